import { setTimeout as sleep } from 'node:timers/promises';
import { encodeKeys } from '@clippy/protocol';
import { HandlerError, findLiveSession, type Handler } from './context.js';

/**
 * Pause between two keys of an interrupt (OpenCode's Esc, Esc): written at once, a program
 * reads them in one read as one sequence (ESC ESC, Alt+Esc), not two presses.
 */
export const INTERRUPT_KEY_GAP_MS = 100;

/**
 * Interrupts what a session's program is doing with the keys a person would press: its preset's
 * `interruptKeys`, by default Esc for a full-screen agent (Claude Code, Codex, Gemini and Copilot
 * stop working on it; Ctrl-C may quit them; OpenCode wants it twice) and Ctrl-C for a line
 * program (a shell, a REPL, aider: SIGINT). The turn detector sees the keys on the input path
 * and flags the turn in progress `interrupted`.
 */
export const interrupt: Handler<'interrupt'> = async (request, context) => {
  const session = findLiveSession(context, request.session);
  if (session.kind !== 'pty') {
    throw new HandlerError(
      'invalid_argument',
      `session '${session.name}' is a wrapper: its program runs in the wrapper, which has no keys of the daemon's`,
    );
  }
  const keys = [...(session.turns?.interruptKeys ?? ['C-c'])];
  for (const [i, key] of keys.entries()) {
    if (i > 0) await sleep(INTERRUPT_KEY_GAP_MS);
    if (!session.live) break;
    session.input(encodeKeys([key], { applicationCursor: session.screen.applicationCursor }));
  }
  return { keys };
};
