import * as vscode from 'vscode';
import { UserError } from '../errors.js';
import { REQUEST_TIMEOUT_MS } from '../limits.js';
import { plural } from '../text.js';
import type { Command } from './context.js';
import { chooseSession } from './pick.js';

/** The confirmation's button: the session is killed only when the user picks it. */
const KILL = 'Kill';

/**
 * Kill: ends a running session (SIGHUP to its process group, SIGKILL after the daemon's grace
 * period), after a dialog: an agent's unsaved conversation goes with its process. The exited
 * session stays in the view with its turns, to read and relay; Remove forgets it.
 */
export const kill: Command = {
  id: 'clippy.kill',
  async run(ctx, arg?: unknown) {
    const target = await chooseSession(ctx, arg, {
      live: true,
      placeHolder: 'Kill which session?',
    });
    if (!target) return undefined;
    const info = target.info;
    if (info?.state === 'exited') {
      throw new UserError(
        `session '${info.name}' has already exited` +
          (info.has_turn ? ': Remove forgets it and its turns' : ': Remove forgets it'),
      );
    }
    const what = info ? `${[info.command, ...info.args].join(' ')} (pid ${info.pid})` : '';
    const answer = await vscode.window.showWarningMessage(
      `Kill ${target.name}?${what ? ` ${what} ends.` : ''}`,
      { modal: true },
      KILL,
    );
    if (answer !== KILL) return undefined;
    const c = await ctx.link.client();
    await c.request(
      'kill',
      { session: target.ref, remove: false },
      { timeoutMs: REQUEST_TIMEOUT_MS },
    );
    const turns = info?.turn_count ?? 0;
    void vscode.window.showInformationMessage(
      `clippy: killed ${target.name}` +
        (turns > 0 ? `; its ${plural(turns, 'turn')} stay readable until you remove it` : ''),
    );
    return { killed: target.ref };
  },
};
