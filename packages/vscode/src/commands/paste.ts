import * as vscode from 'vscode';
import { INJECT_TIMEOUT_MS } from '../limits.js';
import type { Command } from './context.js';
import { chooseSession } from './pick.js';

/** Paste: the relay buffer (what Capture took) typed into a session, and submitted. */
export const paste: Command = {
  id: 'clippy.paste',
  async run(ctx, session?: unknown) {
    const target = await chooseSession(ctx, session, {
      live: true,
      placeHolder: 'Paste the captured turn into…',
    });
    if (!target) return undefined;
    const c = await ctx.link.client();
    const r = await c.request('paste', { session: target.ref }, { timeoutMs: INJECT_TIMEOUT_MS });
    if (r.submitted) {
      void vscode.window.showInformationMessage(
        `clippy: pasted ${r.turn_id} (${r.size} bytes) into ${target.name}`,
      );
    } else {
      void vscode.window.showWarningMessage(
        `clippy: pasted ${r.turn_id} into ${target.name}, but it did not react to Enter`,
      );
    }
    return r;
  },
};
