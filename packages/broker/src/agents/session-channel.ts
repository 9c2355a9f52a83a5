import type { SessionInfo } from '@clippy/protocol';
import type { NewTurn } from '../detection/turn-ring.js';
import { TurnJoin, type JoinHost } from './turn-join.js';
import type { AgentChannel } from './types.js';

/** A screen turn as the join sees it (its prompt, start, end and interrupt flag are read). */
type ScreenNewTurn = NewTurn & { [key: string]: unknown };

/**
 * A session's agent channel: the agent's events, handled one at a time in the order they came
 * (a Stop never overtakes its UserPromptSubmit), and the join of what they report to the turns
 * the screen completes.
 */
export class SessionChannel {
  private readonly join: TurnJoin<ScreenNewTurn>;
  private chain: Promise<void> = Promise.resolve();
  private disposed = false;

  constructor(
    readonly channel: AgentChannel,
    host: Pick<JoinHost<ScreenNewTurn>, 'store' | 'screenIdle' | 'amend'>,
    private readonly log: Pick<JoinHost, 'warn' | 'debug'>,
  ) {
    this.join = new TurnJoin<ScreenNewTurn>(channel, {
      store: (t) => host.store(t),
      screenIdle: () => host.screenIdle(),
      amend: (note, record) => host.amend(note, record),
      warn: (m, f) => log.warn(m, f),
      debug: (m, f) => log.debug(m, f),
    });
  }

  /** A turn the screen completed: stored once joined with the agent's report (or without). */
  screenTurn(turn: NewTurn): void {
    this.join.screenTurn(turn as ScreenNewTurn);
  }

  /** An event from the agent's hook; resolves once handled (rejects on a payload it cannot read). */
  event(event: string, payload: string): Promise<void> {
    const run = this.chain.then(async () => {
      if (this.disposed) return;
      const update = await this.channel.onEvent(event, payload);
      if (update.kind === 'turn') this.join.channelTurn(update.turn);
      else if (update.kind === 'ignored')
        this.log.debug('agent channel: event ignored', { event, why: update.why });
      else this.join.alive();
    });
    this.chain = run.catch(() => {});
    return run;
  }

  /** What `list_sessions` shows of the channel. */
  info(): Pick<SessionInfo, 'agent' | 'agent_channel' | 'agent_session' | 'channel_note'> {
    const agentSession = this.channel.agentSession;
    const note = this.join.note;
    return {
      agent: this.channel.agent,
      agent_channel: this.join.state,
      ...(agentSession ? { agent_session: agentSession } : {}),
      ...(note ? { channel_note: note } : {}),
    };
  }

  /** The session ended: what is held is stored (after the events already in hand). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.join.dispose();
    this.channel.dispose();
  }
}
