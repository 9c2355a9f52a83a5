import * as vscode from 'vscode';
import { REQUEST_TIMEOUT_MS } from '../limits.js';
import type { Command } from './context.js';
import { chooseSession, turnOf } from './pick.js';

/** Capture: a turn (a session's latest, or one picked in the view) into the relay buffer. */
export const capture: Command = {
  id: 'clippy.capture',
  async run(ctx, arg?: unknown) {
    const turn = turnOf(arg);
    const c = await ctx.link.client();
    let r;
    if (turn) {
      r = await c.request(
        'capture_by_id',
        { turn_id: turn.turnId },
        { timeoutMs: REQUEST_TIMEOUT_MS },
      );
    } else {
      const target = await chooseSession(ctx, arg, {
        withTurn: true,
        placeHolder: 'Capture the latest turn of…',
      });
      if (!target) return undefined;
      r = await c.request('capture', { session: target.ref }, { timeoutMs: REQUEST_TIMEOUT_MS });
    }
    void vscode.window.showInformationMessage(
      `clippy: captured ${r.turn_id} (${r.text_size === undefined ? `${r.size} raw bytes` : `${r.text_size} bytes of text, ${r.size} raw`}); Paste puts it into a session`,
    );
    return r;
  },
};
