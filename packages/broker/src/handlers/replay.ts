import { findLiveSession, findSession, type Handler } from './context.js';
import { injectInto } from '../relay/inject-into-session.js';
import { sessionTurns } from '../store/history-turns.js';
import { replayMessage } from '../store/replay-message.js';

/** The last N turns of a session (persisted ones too), as one message, into a live session. */
export const replay: Handler<'replay'> = async (request, context) => {
  const source = findSession(context, request.session);
  const target = findLiveSession(context, request.into);
  const turns = await sessionTurns(source, context.history, request.last);
  // A template may show the source's diff (`{{diff}}`): the one of its worktree now.
  const diff =
    request.template !== undefined && source.worktree
      ? await context.worktrees.templateDiff(source)
      : undefined;
  const text =
    request.template !== undefined
      ? context.routes.renderTurns(request.template, source.name, turns, diff)
      : replayMessage(source.name, turns);
  const result = await injectInto(
    context.sessions,
    target,
    { content: Buffer.from(text), text },
    { enter: request.enter, force: request.force },
  );
  return {
    turns: turns.map((t) => t.turn_id),
    size: Buffer.byteLength(text),
    submitted: result.submitted,
  };
};
