import path from 'node:path';
import * as vscode from 'vscode';
import { baseUri } from '../base-documents.js';
import { REQUEST_TIMEOUT_MS } from '../limits.js';
import { plural } from '../text.js';
import type { Command } from './context.js';
import { chooseSession } from './pick.js';

/**
 * Open Session Changes: a session's diff (`clippy diff`) in VS Code's multi-file diff editor,
 * each changed file as it was at the session's base (left, read-only) beside the file in its
 * worktree (right: the real file, editable). Binary files are named in a message instead.
 */
export const diff: Command = {
  id: 'clippy.diff',
  async run(ctx, arg?: unknown) {
    const target = await chooseSession(ctx, arg, {
      worktree: true,
      placeHolder: 'Open the changes of…',
    });
    if (!target) return undefined;
    const c = await ctx.link.client();
    const r = await c.request(
      'diff',
      { session: target.ref, detail: 'files' },
      { timeoutMs: REQUEST_TIMEOUT_MS },
    );
    const { worktree } = r;
    if (r.files.length === 0) {
      void vscode.window.showInformationMessage(
        `clippy: ${target.name} has no changes on ${worktree.branch} against its base`,
      );
      return { title: null, files: [] };
    }
    const none = (file: string) => baseUri({ worktree: worktree.path, commit: null, path: file });
    const shown = r.files.filter((f) => !f.binary);
    const resources = shown.map((f) => {
      const onDisk = vscode.Uri.file(path.join(worktree.path, f.path));
      const left =
        f.status === 'added'
          ? none(f.path)
          : baseUri({ worktree: worktree.path, commit: r.base, path: f.old_path ?? f.path });
      const right = f.status === 'deleted' ? none(f.path) : onDisk;
      return [onDisk, left, right] as const;
    });
    const title = `${target.name}: ${worktree.branch} against ${r.base.slice(0, 10)}`;
    const binary = r.files.length - shown.length;
    if (binary > 0) {
      void vscode.window.showInformationMessage(
        `clippy: ${plural(binary, 'binary file')} of ${target.name} not shown: ` +
          r.files
            .filter((f) => f.binary)
            .map((f) => f.path)
            .join(', '),
      );
    }
    if (resources.length > 0)
      await vscode.commands.executeCommand('vscode.changes', title, resources);
    return { title, files: shown.map((f) => f.path) };
  },
};
