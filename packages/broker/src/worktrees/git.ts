import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { HandlerError } from '../errors.js';

// git itself does the git work: its rules for refs, ignores, renames and locks are the user's,
// and nothing of them is re-implemented here.

/** Longest a reading git command may take (a diff of a large repository on a loaded machine). */
export const GIT_READ_TIMEOUT_MS = 60_000;
/** Longest `git worktree add` or `remove` may take: a large repository's files, and hooks. */
export const GIT_WORKTREE_TIMEOUT_MS = 10 * 60_000;
/** Output kept of one git command; past it the command is stopped and `overflow` set. */
export const GIT_OUTPUT_MAX_BYTES = 64 * 1024 * 1024;
/** Standard error kept of one git command: its message, for an error the user reads. */
const GIT_STDERR_MAX_BYTES = 16 * 1024;

// The environment git runs with: protocol's gitEnvironment (clippy diff runs git with it too).
export { gitEnvironment } from '@clippy/system/git';

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  code: number;
  /** Output passed `maxBytes`: the command was stopped, `stdout` holds what came before. */
  overflow: boolean;
}

export interface GitOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs?: number;
  maxBytes?: number;
}

/** Runs `git args…` in `cwd`; resolves with its exit code whatever it is (see `gitOk`). */
export function runGit(args: readonly string[], opts: GitOptions): Promise<GitResult> {
  const maxBytes = opts.maxBytes ?? GIT_OUTPUT_MAX_BYTES;
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let overflow = false;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (overflow) return;
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        size = maxBytes;
        overflow = true;
        child.kill('SIGKILL');
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < GIT_STDERR_MAX_BYTES) stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      stderr += `\n(stopped after ${opts.timeoutMs ?? GIT_READ_TIMEOUT_MS} ms)`;
    }, opts.timeoutMs ?? GIT_READ_TIMEOUT_MS);
    timer.unref();
    child.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      let why = `could not run git: ${err.message}`;
      if (err.code === 'ENOENT') {
        why = existsSync(opts.cwd)
          ? 'git is not installed (no `git` in the daemon’s PATH)'
          : `the folder ${opts.cwd} does not exist`;
      }
      reject(new HandlerError('git_failed', why));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        stdout: Buffer.concat(chunks, size),
        stderr: stderr.trim(),
        code: code ?? (signal ? 128 : 1),
        overflow,
      });
    });
  });
}

/** git's own words for a failure, one line each, without its `fatal: ` and `error: ` labels. */
export function gitMessage(r: GitResult): string {
  return (
    r.stderr
      .split('\n')
      .map((l) => l.replace(/^(fatal|error): /u, '').trim())
      .filter(Boolean)
      .join('; ') || `git exited with code ${r.code}`
  );
}

/** Runs git and wants it to succeed: stdout as text, else `git_failed` with git's words. */
export async function gitOk(
  args: readonly string[],
  opts: GitOptions,
  what = `git ${args[0]}`,
): Promise<string> {
  const r = await runGit(args, opts);
  if (r.code !== 0) throw new HandlerError('git_failed', `${what} failed: ${gitMessage(r)}`);
  return r.stdout.toString('utf8');
}
