import { HandlerError, findSession, type HandlerContext } from './context.js';

// Shared answers of the turn requests until the turn registry and relay buffer land (a later
// issue): they validate what they can and answer with the honest error code.

export function noTurn(context: HandlerContext, ref: string): never {
  const session = findSession(context, ref);
  throw new HandlerError('no_turn', `session '${session.name}' has no completed turn yet`);
}

export function turnNotFound(turnId: string): never {
  throw new HandlerError('turn_not_found', `no stored turn has the ID '${turnId}'`);
}

export function bufferEmpty(): never {
  throw new HandlerError('buffer_empty', 'the relay buffer is empty: nothing was captured yet');
}

/** A turn reference: a turn ID `<session>:<seq>`, else a session (its latest turn). */
export function turnOrSession(context: HandlerContext, ref: string): never {
  const colon = ref.lastIndexOf(':');
  if (colon > 0 && /^\d+$/.test(ref.slice(colon + 1))) {
    findSession(context, ref.slice(0, colon));
    turnNotFound(ref);
  }
  noTurn(context, ref);
}
