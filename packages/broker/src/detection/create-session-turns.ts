import type { EventName, Push } from '@clippy/protocol';
import type { Preset } from '@clippy/turns';
import type { Logger } from '../log.js';
import { InputWaitWatch } from '../sessions/input-wait.js';
import type { Session } from '../sessions/session.js';
import { SessionTurns } from './session-turns.js';
import type { TurnConfig } from '../turn-config/turn-config.js';
import { toMeta } from '../turn-ring/turn-ring.js';
import type { TurnStore } from '../store/turn-store.js';
import type { AgentChannel } from '../agents/types.js';

/** Where a session's turns are reported: broker events and the log. */
export interface TurnsHost {
  readonly events: { emit(event: EventName, session: Session, push: Push): void };
  readonly log: Logger;
  /** The turn history: a persisted session's turns are written there before they are announced. */
  readonly history: TurnStore | null;
}

/**
 * A session's turns, built as part of the session (SessionParams.turns): a detector with the
 * preset (null for wrapper sessions, whose client publishes turns), the ring, and the events
 * it raises as broker events.
 */
export function createSessionTurns(
  { events, log, history }: TurnsHost,
  session: Session,
  preset: Preset | null,
  config: TurnConfig,
  channel: AgentChannel | null = null,
): SessionTurns {
  // Benchmarks only: measures output throughput without detection (the ring stays, empty).
  if (process.env.CLIPPY_TURN_DETECTION === 'off') preset = null;
  const turns = new SessionTurns({
    sessionId: session.id,
    preset,
    limits: { depth: config.turnRingDepth, maxTurnBytes: config.maxTurnBytes },
    cols: session.cols,
    pipeline: session.output,
    ...(channel
      ? {
          channel: {
            agent: channel,
            log: {
              warn: (msg, fields) =>
                log.warn({ ...fields, session: session.id, name: session.name }, msg),
              debug: (msg, fields) => log.debug({ ...fields, session: session.id }, msg),
            },
          },
        }
      : {}),
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
      menu: (menu) => session.setMenu(menu),
      turn: (turn) => {
        log.debug(
          { session: session.id, turn: turn.turn_id, bytes: turn.byte_length },
          'turn completed',
        );
        const announce = () =>
          events.emit('turn_completed', session, {
            type: 'turn_completed',
            id: 0,
            session: session.id,
            name: session.name,
            turn: toMeta(turn),
          } satisfies Push<'turn_completed'>);
        // A persisted turn is announced once it is written (in order: the writer is FIFO), so
        // every turn reported complete survives a crash of the daemon. A paused history still
        // announces it: sessions go on without persistence.
        // The session's usage totals go with it (they survive a restart with its newest turn).
        if (session.persisted && history)
          void history.persistTurn(turn, turns.ring.usage).then(announce, announce);
        else announce();
      },
      error: (err) => log.error({ err, session: session.id }, 'turn detection failed'),
      stopped: (reason) => log.error({ session: session.id, name: session.name, reason }, reason),
      activity: () => session.notifyActivity(),
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
          onActivity: (listener) => session.onActivity(listener),
        })
      : null;
  return turns;
}
