import { encodeKeys } from '@clippy/protocol';
import { HandlerError, findLiveSession, type Handler } from './context.js';

/**
 * Interrupts what a session's program is doing with the key a person would press: Esc for a
 * full-screen agent (Claude Code, Codex, Gemini and Copilot stop working on it; Ctrl-C may quit
 * them), Ctrl-C for a line program (a shell, a REPL, aider: SIGINT). The turn detector sees the
 * key on the input path and flags the turn in progress `interrupted`.
 */
export const interrupt: Handler<'interrupt'> = (request, context) => {
  const session = findLiveSession(context, request.session);
  if (session.kind !== 'pty') {
    throw new HandlerError(
      'invalid_argument',
      `session '${session.name}' is a wrapper: its program runs in the wrapper, which has no keys of the daemon's`,
    );
  }
  const keys = session.turns?.presetKind === 'screen' ? ['Esc'] : ['C-c'];
  session.input(encodeKeys(keys, { applicationCursor: session.screen.applicationCursor }));
  return { keys };
};
