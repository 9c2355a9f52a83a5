import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import { DaemonError } from './errors.js';
import { REQUEST_TIMEOUT_MS } from './limits.js';

/**
 * Read-only documents holding a file as it was at a session's base commit (the left side of
 * its diff): `clippy-base:/PATH?{"worktree","commit","path"}`. The path is there for the tab's
 * title and the language; the query says where to read. A null commit is an empty document:
 * the base side of an added file, or the worktree side of a deleted one.
 */
export const BASE_SCHEME = 'clippy-base';

/** The most a base file may hold to be shown (git's output is read whole). */
const MAX_BASE_FILE_BYTES = 64 * 1024 * 1024;

export interface BaseFile {
  /** The worktree's directory: git runs there, so it reads that repository. */
  worktree: string;
  /** The base commit, or null for no file. */
  commit: string | null;
  /** The path in the repository. */
  path: string;
}

export function baseUri(file: BaseFile): vscode.Uri {
  return vscode.Uri.from({
    scheme: BASE_SCHEME,
    path: `/${file.path}`,
    query: JSON.stringify(file),
  });
}

function baseFileOf(uri: vscode.Uri): BaseFile {
  try {
    const f = JSON.parse(uri.query) as Partial<BaseFile>;
    if (typeof f.worktree === 'string' && typeof f.path === 'string') {
      return {
        worktree: f.worktree,
        commit: typeof f.commit === 'string' ? f.commit : null,
        path: f.path,
      };
    }
  } catch {
    // Not ours: said below.
  }
  throw new DaemonError(`not a clippy base document: ${uri.toString()}`);
}

/**
 * Serves base documents with git itself (`git show COMMIT:PATH` in the worktree): the worktree
 * is on this machine (the daemon that made it answers on a local socket), and a commit never
 * changes, so the document is read once, when VS Code opens it.
 */
export class BaseDocuments implements vscode.TextDocumentContentProvider {
  provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const file = baseFileOf(uri);
    const commit = file.commit;
    if (commit === null) return Promise.resolve('');
    return new Promise((resolve, reject) => {
      execFile(
        'git',
        ['-c', 'core.quotePath=false', 'show', `${commit}:${file.path}`],
        {
          cwd: file.worktree,
          encoding: 'utf8',
          maxBuffer: MAX_BASE_FILE_BYTES,
          timeout: REQUEST_TIMEOUT_MS,
        },
        (err, stdout, stderr) => {
          if (!err) return resolve(stdout);
          const why = stderr.trim().split('\n')[0] || err.message;
          reject(new DaemonError(`cannot read ${file.path} at ${commit.slice(0, 10)}: ${why}`));
        },
      );
    });
  }
}
