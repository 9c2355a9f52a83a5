import * as vscode from 'vscode';
import { REQUEST_TIMEOUT_MS } from '../limits.js';
import { plural } from '../text.js';
import type { Command } from './context.js';
import { chooseSession } from './pick.js';

/** The confirmation's button: the session is forgotten only when the user picks it. */
const REMOVE = 'Remove';

/**
 * Remove: forget an exited session (finished navigator runs are kept so their context can be
 * relayed, and pile up in the view). Its stored turns go with it, so a session with turns is
 * removed only after a confirmation that says how many. A running session is refused by the
 * daemon, with what to do instead.
 */
export const remove: Command = {
  id: 'clippy.remove',
  async run(ctx, arg?: unknown) {
    const target = await chooseSession(ctx, arg, {
      exited: true,
      placeHolder: 'Remove the exited session…',
    });
    if (!target) return undefined;
    const turns = target.info?.turn_count ?? 0;
    // A running session is not confirmed: the daemon refuses it, saying what to do.
    if (target.info?.state === 'exited' && turns > 0) {
      const answer = await vscode.window.showWarningMessage(
        `Remove ${target.name}? Its ${plural(turns, 'stored turn')} will be gone.`,
        { modal: true },
        REMOVE,
      );
      if (answer !== REMOVE) return undefined;
    }
    const c = await ctx.link.client();
    await c.request('remove', { session: target.ref }, { timeoutMs: REQUEST_TIMEOUT_MS });
    return { removed: target.ref };
  },
};
