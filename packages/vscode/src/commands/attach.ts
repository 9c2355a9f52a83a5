import { UserError } from '../errors.js';
import type { Command } from './context.js';
import { chooseSession, sessionsNow } from './pick.js';

/** Open in Terminal: the session in a VS Code terminal (attach); closing it detaches. */
export const attach: Command = {
  id: 'clippy.attach',
  async run(ctx, session?: unknown) {
    const target = await chooseSession(ctx, session, {
      live: true,
      placeHolder: 'Open which session in a terminal?',
    });
    if (!target) return undefined;
    // Asked first, so that a wrong name is a message here, not an error in a terminal.
    const info =
      target.info ??
      (await sessionsNow(ctx)).find((s) => s.session === target.ref || s.name === target.ref);
    if (!info) throw new UserError(`no session has the ID or name '${target.ref}'`);
    if (info.state === 'exited') {
      throw new UserError(`session '${info.name}' has exited: there is nothing to attach to`);
    }
    return ctx.terminals.show(info.session, info.name);
  },
};
