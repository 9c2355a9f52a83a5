import { HandlerError, type Handler } from './context.js';

/** Full-text search over the persisted turns, newest first. */
export const historySearch: Handler<'history_search'> = async (request, { history, sessions }) => {
  if (!history)
    throw new HandlerError('history_unavailable', 'the turn history could not be opened at start');
  let session: string | undefined;
  if (request.session !== undefined) {
    const s = sessions.resolve(request.session);
    session = s?.id ?? (history.session(request.session) ? request.session : undefined);
    if (!session)
      throw new HandlerError(
        'session_not_found',
        `no session has the ID or name '${request.session}'`,
      );
  }
  const hits = await history.search(request.query, {
    ...(session !== undefined ? { session } : {}),
    ...(request.since !== undefined ? { since: request.since } : {}),
    ...(request.limit !== undefined ? { limit: request.limit } : {}),
  });
  return {
    results: hits.map((h) => ({
      // The index keeps no text to cut a preview from: a hit carries its matching lines instead.
      turn: {
        turn_id: `${h.meta.session}:${h.meta.seq}`,
        session: h.meta.session,
        seq: h.meta.seq,
        timestamp: h.meta.timestamp,
        byte_length: h.meta.cl,
        interrupted: h.meta.interrupted,
        truncated: h.meta.truncated,
        duration_ms: h.meta.duration_ms,
        prompt: h.meta.prompt,
      },
      name: h.name,
      lines: h.lines,
    })),
  };
};
