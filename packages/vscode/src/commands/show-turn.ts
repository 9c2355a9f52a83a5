import { REQUEST_TIMEOUT_MS } from '../limits.js';
import type { Command } from './context.js';
import { chooseSession, chooseTurn, sessionOfNode, turnOf } from './pick.js';

/**
 * Show Turn: a turn's text in a read-only document (`clippy-turn:`). A turn ID or a turn row
 * opens that turn; a session (or none: pick one) offers its turns, newest first.
 */
export const showTurn: Command = {
  id: 'clippy.showTurn',
  async run(ctx, arg?: unknown) {
    const given = turnOf(arg);
    if (given) {
      // Read first, so that a wrong ID is an error message rather than an empty tab.
      const c = await ctx.link.client();
      const { turn } = await c.request(
        'get_turn',
        { turn_id: given.turnId },
        { timeoutMs: REQUEST_TIMEOUT_MS },
      );
      const name =
        ctx.model.sessions.find((s) => s.session === turn.session)?.name ??
        sessionOfNode(arg)?.name ??
        given.name;
      return ctx.turns.show(turn.turn_id, name);
    }
    const target = await chooseSession(ctx, arg, {
      withTurn: true,
      placeHolder: 'Show a turn of…',
    });
    if (!target) return undefined;
    const turn = await chooseTurn(ctx, target);
    if (!turn) return undefined;
    return ctx.turns.show(turn.turn_id, target.name);
  },
};
