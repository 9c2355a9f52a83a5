import type { SnapshotDoc } from '@clippy/protocol';
import { findSession, type Handler } from './context.js';
import { toMeta } from '../turn-ring/turn-ring.js';
import { sessionTurns } from '../store/history-turns.js';

/** Turn bytes a snapshot carries at most: the answer must fit in one 16 MiB frame (base64 grows it by a third). */
export const SNAPSHOT_TURN_BYTES = 8 * 1024 * 1024;

/** A session's screen, scrollback and turns (the persisted ones too) in one document. */
export const snapshot: Handler<'snapshot'> = async (request, context) => {
  const session = findSession(context, request.session);
  const turns = await sessionTurns(session, context.history);
  // Newest first until the budget is spent; the document lists them oldest first.
  const kept: typeof turns = [];
  let budget = SNAPSHOT_TURN_BYTES;
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i]!;
    const cost = t.content.length + Buffer.byteLength(t.text) + Buffer.byteLength(t.prompt);
    if (cost > budget) break;
    budget -= cost;
    kept.unshift(t);
  }
  // A restored session's screen is its final one when the exit was recorded; unknown otherwise.
  const persisted = context.history?.session(session.id);
  const screenKnown = !session.restored || (persisted?.exit?.sl ?? 0) > 0;
  const doc: SnapshotDoc = {
    format: 'clippy-snapshot',
    version: 1,
    taken_at: Date.now(),
    session: session.info(),
    screen: screenKnown
      ? { cols: session.cols, rows: session.rows, ansi: await session.output.snapshot() }
      : null,
    turns: kept.map((t) => ({
      // The whole text follows: a preview would repeat its start.
      ...toMeta(t, { withPreview: false }),
      content_base64: Buffer.from(t.content).toString('base64'),
      text: t.text,
    })),
    omitted_turns: turns.length - kept.length,
  };
  return { snapshot: doc };
};
