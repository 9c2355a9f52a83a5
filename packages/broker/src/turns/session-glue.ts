import { encodeFrame, parseTurnId, type EventName, type Push } from '@clippy/protocol';
import { PresetError, resolvePreset, type Preset } from '@clippy/turns';
import type { Logger } from '../log.js';
import { InputWaitWatch } from '../sessions/input-wait.js';
import type { Session, SessionClient } from '../sessions/session.js';
import type { SessionTable } from '../sessions/session-table.js';
import { loadTurnConfig, type TurnConfig } from './config.js';
import { HandlerError } from '../errors.js';
import { neutralizeControls } from './injected-text.js';
import { inject, type InjectResult, type InjectTarget } from './injector.js';
import { toMeta, type StoredTurn } from './ring.js';
import { SessionTurns } from './session-turns.js';

/** Unsent input bytes above which an injection waits before writing more (PTY backpressure). */
const INPUT_HIGH_WATER_BYTES = 64 * 1024;
/** Poll period while waiting for the PTY to take queued input. */
const INPUT_DRAIN_POLL_MS = 2;

/** Where a session's turns are reported: broker events and the log. */
export interface TurnsHost {
  readonly events: { emit(event: EventName, session: Session, push: Push): void };
  readonly log: Logger;
}

/**
 * The turn settings, read at each spawn so edits to config.json/presets.json apply to new
 * sessions; a broken file is an `invalid_config` answer naming it and the line.
 */
export function currentTurnConfig(): TurnConfig {
  return loadTurnConfig(process.env);
}

/**
 * The preset of a new session: `--pattern` makes a line preset, else the named preset
 * (default `generic`) with the user's presets.json applied. Fails before anything is spawned,
 * with the engine's message: `invalid_pattern` or `unknown_preset`.
 */
export function resolveSessionPreset(
  name: string | undefined,
  pattern: string | undefined,
  config: TurnConfig,
): Preset {
  try {
    return resolvePreset(pattern !== undefined && name === undefined ? undefined : name, {
      ...(pattern !== undefined ? { pattern } : {}),
      userPresets: config.userPresets,
    });
  } catch (err) {
    if (!(err instanceof PresetError)) throw err;
    const unknown = /^unknown preset/.test(err.message);
    throw new HandlerError(unknown ? 'unknown_preset' : 'invalid_pattern', err.message);
  }
}

/**
 * A session's turns, built as part of the session (SessionParams.turns): a detector with the
 * preset (null for wrapper sessions, whose client publishes turns), the ring, and the events
 * it raises as broker events.
 */
export function createSessionTurns(
  { events, log }: TurnsHost,
  session: Session,
  preset: Preset | null,
  config: TurnConfig,
): SessionTurns {
  // Benchmarks only: measures output throughput without detection (the ring stays, empty).
  if (process.env.CLIPPY_TURN_DETECTION === 'off') preset = null;
  const turns = new SessionTurns({
    sessionId: session.id,
    preset,
    limits: { depth: config.turnRingDepth, maxTurnBytes: config.maxTurnBytes },
    cols: session.cols,
    screen: { snapshot: () => session.screen.turnSnapshot() },
    events: {
      ready: () =>
        events.emit('session_ready', session, {
          type: 'session_ready',
          id: 0,
          session: session.id,
          name: session.name,
        } satisfies Push<'session_ready'>),
      state: (state) => {
        if (!session.live) return;
        if (inputWait) inputWait.stateChanged(state);
        else session.setState(state);
      },
      turn: (turn) => {
        log.debug(
          { session: session.id, turn: turn.turn_id, bytes: turn.byte_length },
          'turn completed',
        );
        events.emit('turn_completed', session, {
          type: 'turn_completed',
          id: 0,
          session: session.id,
          name: session.name,
          turn: toMeta(turn),
        } satisfies Push<'turn_completed'>);
      },
      error: (err) => log.error({ err, session: session.id }, 'turn detection failed'),
      stopped: (reason) => log.error({ session: session.id, name: session.name, reason }, reason),
      backlog: () => session.updateFlow(),
    },
  });
  // A line program reading input without a prompt is `blocked`, not busy forever (its own
  // timer runs only while busy and ends with the session).
  const inputWait =
    preset?.kind === 'line'
      ? new InputWaitWatch({
          get live() {
            return session.live;
          },
          pid: session.pid,
          get ptsName() {
            return session.ptsName;
          },
          get outputBytes() {
            return session.outputBytes;
          },
          setState: (state) => session.setState(state),
          onActivity: (listener) => turns.onActivity(listener),
        })
      : null;
  if (preset?.kind === 'screen') session.screen.onParsed = () => turns.onScreenParsed();
  return turns;
}

/** A stored turn by reference: a turn ID (`<session>:<seq>`, session by ID or name), else a session's latest. */
export function findTurn(sessions: Pick<SessionTable, 'resolve'>, ref: string): StoredTurn {
  const asId = parseTurnId(ref);
  if (asId) {
    const session = sessions.resolve(asId.session);
    const turn = session?.turns?.ring.get(asId.seq);
    if (turn) return turn;
    if (!session && !sessions.resolve(ref)) {
      throw new HandlerError(
        'turn_not_found',
        `no stored turn has the ID '${ref}' (no session '${asId.session}')`,
      );
    }
    if (session)
      throw new HandlerError(
        'turn_not_found',
        `no stored turn has the ID '${ref}' (never existed, or evicted)`,
      );
  }
  const session = sessions.resolve(ref);
  if (!session)
    throw new HandlerError('session_not_found', `no session has the ID or name '${ref}'`);
  const latest = session.turns?.ring.latest();
  if (!latest)
    throw new HandlerError('no_turn', `session '${session.name}' has no completed turn yet`);
  return latest;
}

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
    bracketedPaste: () => session.screen.bracketedPaste,
    outputBytes: () => session.outputBytes,
    waitOutput: (after, ms) =>
      waitFor(session, () => session.outputBytes > after || !session.live, ms).then(
        () => session.outputBytes > after,
      ),
    write: async (data) => {
      session.input(data);
      while (session.live && session.pendingInputBytes > INPUT_HIGH_WATER_BYTES) {
        await new Promise((r) => setTimeout(r, INPUT_DRAIN_POLL_MS));
      }
    },
    drain: async () => {
      while (session.live && session.pendingInputBytes > 0) {
        await new Promise((r) => setTimeout(r, INPUT_DRAIN_POLL_MS));
      }
    },
    canonicalMode: () =>
      import('./line-discipline.js').then((m) => m.readCanonicalMode(session.ptsName)),
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
function waitFor(session: Session, done: () => boolean, ms: number): Promise<void> {
  if (done()) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(finish, ms);
    const off = session.turns?.onActivity(() => {
      if (done()) finish();
    });
    function finish() {
      clearTimeout(timer);
      off?.();
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
  /** A `blocked` target (it asks a question) takes the text at once (`send`, `paste`). */
  answers?: boolean | undefined;
  /** Single-line text is typed as keys, not pasted (`send`: as if from a keyboard). */
  typed?: boolean | undefined;
  /** Close a block left open at a continuation prompt with one more Enter (`ask`). */
  complete?: boolean | undefined;
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
  return inject(sessionTarget(session), bytes, {
    enter,
    force: req.force ?? false,
    answers: req.answers ?? false,
    typed: req.typed ?? false,
    complete: req.complete ?? false,
  });
}
