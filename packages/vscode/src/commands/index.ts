import * as vscode from 'vscode';
import { messageOf } from '../errors.js';
import { ask } from './ask.js';
import { attach } from './attach.js';
import { capture } from './capture.js';
import { diff } from './diff.js';
import type { Command, CommandContext } from './context.js';
import { kill } from './kill.js';
import { navigate } from './navigate.js';
import { newSession } from './new-session.js';
import { openWeb } from './open-web.js';
import { paste } from './paste.js';
import { refresh } from './refresh.js';
import { relay } from './relay.js';
import { remove } from './remove.js';
import { sendFile } from './send-file.js';
import { sendSelection } from './send-selection.js';
import { showTurn } from './show-turn.js';

/** Every command, registered in one table (package.json contributes.commands lists the same). */
export const COMMANDS: readonly Command[] = [
  newSession,
  sendSelection,
  sendFile,
  ask,
  relay,
  capture,
  paste,
  showTurn,
  diff,
  attach,
  kill,
  remove,
  navigate,
  openWeb,
  refresh,
];

/**
 * Registers the commands. A failure becomes one error message (`clippy: …`), never a stack
 * trace; the command then resolves with undefined.
 */
export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  return COMMANDS.map((cmd) =>
    vscode.commands.registerCommand(cmd.id, async (...args: unknown[]) => {
      try {
        return await cmd.run(ctx, ...args);
      } catch (err) {
        let socket: string | undefined;
        try {
          socket = ctx.link.socketPath();
        } catch {
          socket = undefined;
        }
        void vscode.window.showErrorMessage(`clippy: ${messageOf(err, socket)}`);
        return undefined;
      }
    }),
  );
}
