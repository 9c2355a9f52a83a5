import { encodeFrame, type Push } from '@clippy/protocol';
import { HandlerError } from '../errors.js';
import type { Session, SessionClient } from '../sessions/session.js';
import { neutralizeControls } from './injected-text.js';
import { INJECT_IDLE_WAIT_MS, inject, type InjectResult, type InjectTarget } from './injector.js';

/** Unsent input bytes above which an injection waits before writing more (PTY backpressure). */
const INPUT_HIGH_WATER_BYTES = 64 * 1024;

/** The injector's view of a broker-owned PTY session. */
export function sessionTarget(session: Session): InjectTarget {
  return {
    name: session.name,
    isLive: () => session.live,
    state: () => session.state,
    waitState: (ready, ms) =>
      waitFor(session, () => ready.includes(session.state) || !session.live, ms).then(() =>
        ready.includes(session.state),
      ),
    readsLines: () => session.turns?.readsLines ?? false,
    bracketedPaste: () => session.output.bracketedPaste,
    multiline: () => session.turns?.multiline ?? { mode: 'lines' },
    clearInput: () => session.turns?.clearInput ?? null,
    outputBytes: () => session.outputBytes,
    waitOutput: (after, ms) =>
      waitFor(session, () => session.outputBytes > after || !session.live, ms).then(
        () => session.outputBytes > after,
      ),
    write: async (data) => {
      session.input(data);
      // The detector (in the pipeline worker) has taken this input before the injector asks
      // whether an Enter was a submit.
      await session.turns?.synced();
      await session.inputTaken(INPUT_HIGH_WATER_BYTES);
    },
    drain: () => session.inputTaken(0),
    canonicalMode: () =>
      import('./line-discipline.js').then((m) => m.readCanonicalMode(session.ptsName)),
    inputShows: (text) => session.turns?.inputShows(text) ?? null,
    waitShown: (text, ms) => {
      const shown = () => session.turns?.inputShows(text) === true;
      return waitFor(session, () => shown() || !session.live, ms).then(shown);
    },
    submits: () => session.turns?.submits ?? null,
    loads: () => session.turns?.loads ?? 0,
    dropUntaken: () => session.turns?.dropUntaken(),
    waitTaken: (seq, ms, held) => {
      const taken = () => (session.turns?.submits?.taken ?? 0) >= seq;
      const back = () => held !== undefined && session.turns?.inputShows(held) === true;
      return waitFor(session, () => taken() || back() || !session.live, ms).then(taken);
    },
    hasContinuation: () => session.turns?.hasContinuation ?? false,
    waitContinuation: (ms) => {
      const turns = session.turns;
      const count = turns?.ring.count ?? 0;
      const more = () => turns?.awaitingMore === true;
      return waitFor(
        session,
        () => more() || (turns?.ring.count ?? 0) > count || !session.live,
        ms,
      ).then(more);
    },
  };
}

/** Checks `done` on every output chunk and state change of the session, up to `ms`. */
export function waitFor(session: Session, done: () => boolean, ms: number): Promise<void> {
  if (done()) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(finish, ms);
    const off = session.onActivity(() => {
      if (done()) finish();
    });
    function finish() {
      clearTimeout(timer);
      off();
      resolve();
    }
  });
}

export interface InjectPayload {
  content: Uint8Array;
  text: string;
}

export interface InjectRequest {
  raw?: boolean | undefined;
  enter?: boolean | undefined;
  force?: boolean | undefined;
  /** Close a block left open at a continuation prompt with one more Enter (`ask`). */
  complete?: boolean | undefined;
  /** Wait at most this long for idle (never longer than INJECT_IDLE_WAIT_MS). */
  idleWaitMs?: number | undefined;
  /** Try again after `not_submitted` (see InjectOptions.resubmit). */
  resubmit?: boolean | undefined;
}

/**
 * Injects a turn's text (or with `raw` its exact bytes) into a session: a broker-owned PTY
 * goes through the injector; a wrapper session gets an `inject` push on the connection that
 * registered it (the wrapper types it into its own process).
 */
export async function injectInto(
  wrappers: { wrapperOf(session: Session): SessionClient | undefined },
  session: Session,
  payload: InjectPayload,
  req: InjectRequest,
): Promise<InjectResult> {
  if (!session.live)
    throw new HandlerError(
      'session_exited',
      `session '${session.name}' has exited: it takes no input`,
    );
  const enter = req.enter ?? true;
  if (session.kind !== 'pty') {
    const owner = wrappers.wrapperOf(session);
    if (!owner)
      throw new HandlerError(
        'session_disconnected',
        `the wrapper of session '${session.name}' is gone`,
      );
    // The wrapper types this into its own process: the same rule as inject() (injected-text.ts).
    const content = neutralizeControls(
      req.raw ? payload.content : Buffer.from(payload.text, 'utf8'),
    );
    const text = content.toString('utf8');
    owner.send(
      encodeFrame({
        type: 'inject',
        id: 0,
        session: session.id,
        content,
        text,
        enter,
      } satisfies Push<'inject'>),
    );
    return { submitted: enter, bracketed: false };
  }
  const bytes = req.raw ? payload.content : Buffer.from(payload.text, 'utf8');
  return oneAtATime(
    session,
    () =>
      inject(sessionTarget(session), bytes, {
        enter,
        force: req.force ?? false,
        complete: req.complete ?? false,
        ...(req.resubmit ? { resubmit: true } : {}),
        ...(req.idleWaitMs !== undefined
          ? { idleWaitMs: Math.min(req.idleWaitMs, INJECT_IDLE_WAIT_MS) }
          : {}),
      }),
    // The next text waits until this one's turn shows (the agent left its prompt, or already
    // answered): a line agent's Enter is confirmed by its echo, before its detector opens the
    // turn, and a text typed then would land in this turn's answer.
    (result) => {
      if (!result.submitted || !session.turns) return Promise.resolve();
      const turns = session.turns.ring.count;
      return waitFor(
        session,
        () => session.state !== 'idle' || (session.turns?.ring.count ?? 0) > turns,
        TURN_SHOWN_WAIT_MS,
      );
    },
  );
}

/**
 * Longest the next text waits for a submitted one's turn to show: a program that never leaves
 * its prompt for a line (nothing to answer) must not hold its queue.
 */
const TURN_SHOWN_WAIT_MS = 1_000;

/**
 * Per session, the end of the injection typing into it now. Texts sent at the same moment to an
 * idle agent each found it idle and were typed into the same input (one submission, or a mix);
 * one at a time, the next waits for the one before it, then for the agent to be idle again (an
 * Enter it confirmed has opened a turn), as any text sent during a turn does.
 */
const typing = new WeakMap<Session, Promise<void>>();

function oneAtATime<T>(
  session: Session,
  run: () => Promise<T>,
  settled: (result: T) => Promise<void>,
): Promise<T> {
  const before = typing.get(session) ?? Promise.resolve();
  const mine = before.then(run);
  // The caller has its answer at once; the queue goes on once the text's turn shows.
  const done = mine.then(settled, () => {});
  typing.set(session, done);
  void done.then(() => {
    if (typing.get(session) === done) typing.delete(session);
  });
  return mine;
}
