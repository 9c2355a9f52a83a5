import { setTimeout as sleep } from 'node:timers/promises';
import { encodeKeys } from '@clippy/protocol';
import { sessionTarget, waitFor } from '../relay/inject-into-session.js';
import { HandlerError, findLiveSession, type Handler } from './context.js';

/**
 * Least pause between two keys of an interrupt (OpenCode's and Copilot CLI's Esc, Esc): written
 * at once, a program reads them in one read as one sequence (ESC ESC, Alt+Esc), not two presses.
 */
export const INTERRUPT_KEY_GAP_MS = 100;
/**
 * Longest wait for the program to react to one key of an interrupt (OpenCode draws "esc again
 * to interrupt") before the next: a loaded program that has not read the first key yet would
 * read both in one go. A program that shows nothing gets the next key after this.
 */
export const INTERRUPT_KEY_REACT_MS = 1_500;
/**
 * Longest wait for a preset's `interruptArmed` (OpenCode's "esc again to interrupt") before the
 * next key: the only sign the key was read, since a spinner redraws whether or not it was (the
 * output INTERRUPT_KEY_REACT_MS waits for). A starved agent takes seconds to read and draw;
 * still short of an editor's 10 s cancel grace (acp CANCEL_GRACE_MS).
 */
export const INTERRUPT_ARMED_WAIT_MS = 5_000;

/**
 * Interrupts what a session's program is doing with the keys a person would press: its preset's
 * `interruptKeys`, by default Esc for a full-screen agent (Claude Code, Codex and Gemini stop
 * working on it; Ctrl-C may quit them; OpenCode wants it twice; Copilot CLI's preset says
 * Ctrl-C) and Ctrl-C for a line program (a shell, a REPL, aider: SIGINT). The turn detector sees the keys on the input path
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
  const target = sessionTarget(session);
  let before = session.outputBytes;
  const turns = session.turns;
  for (const [i, key] of keys.entries()) {
    if (i > 0) {
      await sleep(INTERRUPT_KEY_GAP_MS);
      if (turns?.showsInterruptArmed) {
        // The detector's news of a new screen wakes the session's waits.
        await waitFor(
          session,
          () => !session.live || turns.interruptArmed,
          INTERRUPT_ARMED_WAIT_MS,
        );
      } else await target.waitOutput(before, INTERRUPT_KEY_REACT_MS);
    }
    if (!session.live) break;
    before = session.outputBytes;
    session.input(encodeKeys([key], { applicationCursor: session.output.applicationCursor }));
  }
  return { keys };
};
