import type { ClippyClient } from '@clippy/client';
import { parseTurnId } from '@clippy/protocol';
import { connectToHost } from '../connect.js';
import { requestInjection, type InjectArgs } from '../inject-options.js';
import { turnCall } from '../turn-exits.js';
import { hostLabel, type Host } from './host-ref.js';

/** Longest relay-buffer label the broker takes (`put_buffer`'s `label`). */
const MAX_LABEL_CHARS = 64;

/**
 * A relay between two machines' daemons: the turn is read from the source daemon and pasted
 * into the target through the target daemon's own relay buffer, so the target injects it as
 * any relay (idle wait, bracketed paste, a separate Enter, confirmation). The turn travels
 * through this process and the two SSH forwardings, never through a port of clippy's own.
 */
export async function relayAcrossHosts(
  from: { host: Host; ref: string },
  to: { host: Host; ref: string },
  argv: InjectArgs,
): Promise<{ turn_id: string; size: number; submitted: boolean }> {
  const source = (await connectToHost(from.host)).client;
  let turn;
  try {
    turn = await readTurn(source, from.ref);
  } finally {
    await source.close();
  }
  const label = `${hostLabel(from.host)}:${turn.turn_id}`.slice(0, MAX_LABEL_CHARS);
  const target = (await connectToHost(to.host)).client;
  try {
    await target.request('put_buffer', { text: turn.text, content: turn.content, label });
    const pasted = await requestInjection(target, argv, 'paste', { session: to.ref });
    return { ...pasted, turn_id: `${hostLabel(from.host)}:${turn.turn_id}` };
  } finally {
    await target.close();
  }
}

/** A turn ID's turn, or a session's latest. */
async function readTurn(client: ClippyClient, ref: string) {
  const byId = parseTurnId(ref) !== null;
  const { turn } = await turnCall(() =>
    client.request('get_turn', byId ? { turn_id: ref } : { session: ref }),
  );
  return turn;
}
