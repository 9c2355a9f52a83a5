import * as vscode from 'vscode';
import { INJECT_TIMEOUT_MS } from '../limits.js';
import { lineCount, plural } from '../text.js';
import type { Command, CommandContext } from './context.js';
import { chooseSession, type Target } from './pick.js';
import { selectedText } from './selection.js';

/** Types `text` into a session and presses Enter, waiting for it to be idle first (`clippy send`). */
export async function sendText(
  ctx: CommandContext,
  target: Target,
  text: string,
  what: string,
): Promise<boolean> {
  const c = await ctx.link.client();
  const r = await c.request(
    'send',
    { session: target.ref, text, enter: true },
    { timeoutMs: INJECT_TIMEOUT_MS },
  );
  if (r.submitted) {
    void vscode.window.showInformationMessage(`clippy: sent ${what} to ${target.name}`);
  } else {
    void vscode.window.showWarningMessage(
      `clippy: the text was typed into ${target.name} but it did not react to Enter`,
    );
  }
  return r.submitted;
}

/** Send Selection: the selected text into a session, as one message. */
export const sendSelection: Command = {
  id: 'clippy.sendSelection',
  async run(ctx, session?: unknown) {
    const text = selectedText('send');
    const target = await chooseSession(ctx, session, {
      live: true,
      placeHolder: 'Send the selection to…',
    });
    if (!target) return undefined;
    return sendText(ctx, target, text, plural(lineCount(text), 'line'));
  },
};
