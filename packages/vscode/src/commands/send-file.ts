import * as vscode from 'vscode';
import path from 'node:path';
import { UserError } from '../errors.js';
import { lineCount, plural } from '../text.js';
import type { Command } from './context.js';
import { chooseSession } from './pick.js';
import { sendText } from './send-selection.js';

/** Send File: a whole file (the explorer's, or the active editor's, unsaved changes included). */
export const sendFile: Command = {
  id: 'clippy.sendFile',
  async run(ctx, file?: unknown, session?: unknown) {
    const uri = file instanceof vscode.Uri ? file : vscode.window.activeTextEditor?.document.uri;
    if (!uri) throw new UserError('nothing to send: no file is open');
    const doc = await vscode.workspace.openTextDocument(uri);
    // The file's final newline ends its last line; it is not part of the message.
    const text = doc.getText().replace(/\r?\n$/, '');
    const name = path.basename(uri.path);
    if (text.trim() === '') throw new UserError(`nothing to send: ${name} is empty`);
    const target = await chooseSession(ctx, session, {
      live: true,
      placeHolder: `Send ${name} to…`,
    });
    if (!target) return undefined;
    return sendText(ctx, target, text, `${name} (${plural(lineCount(text), 'line')})`);
  },
};
