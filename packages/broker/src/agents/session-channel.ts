import type { SessionInfo } from '@clippy/protocol';
import type { NewTurn } from '../turn-ring/turn-ring.js';
import { FileChanges } from './file-changes.js';
import { TurnJoin, samePrompt, type JoinHost } from './turn-join.js';
import type { AgentChannel, ChannelTurn } from './types.js';

/** A screen turn as the join sees it (its prompt, start, end and interrupt flag are read). */
type ScreenNewTurn = NewTurn & { [key: string]: unknown };

/** The turn the screen has open, as the detector tells it. */
export interface OpenScreenTurn {
  input: string;
  startedAt: number;
}

/** The open turn whose end is watched for in the agent's record. */
interface Followed extends OpenScreenTurn {
  /** Called once the record says it ended, with the answer it gave (null: none). */
  ended: (startedAt: number, answer: string | null) => void;
  files: FileChanges | null;
  reading: boolean;
  /** The file changed while it was being read: read again after. */
  again: boolean;
  done: boolean;
}

/**
 * A session's agent channel: the agent's events, handled one at a time in the order they came
 * (a Stop never overtakes its UserPromptSubmit), and the join of what they report to the turns
 * the screen completes. While the screen has a turn open, the agent's record of it is watched
 * (`follow`): once it says the turn ended, the screen is told so (its settle is cut short) and
 * the join has the report before the screen completes the turn.
 */
export class SessionChannel {
  private readonly join: TurnJoin<ScreenNewTurn>;
  private chain: Promise<void> = Promise.resolve();
  private disposed = false;
  private followed: Followed | null = null;
  /** Reports refused for want of the session's secret (not from its agent), and what it says. */
  private refusedReports = 0;
  private lastRefused: string | undefined;

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

  /**
   * The turn the screen has open now (null: none). A new one is followed in the agent's record
   * (channels that read one: `recorded`); `ended` is called once the record (or the agent's
   * hook, for every push channel) says it ended. Cheap when nothing changed: called after every
   * detector step.
   */
  follow(
    turn: OpenScreenTurn | null,
    ended: (startedAt: number, answer: string | null) => void,
  ): void {
    if (this.disposed) return;
    if (turn?.startedAt === this.followed?.startedAt) return;
    this.unfollow();
    if (!turn) return;
    const f: Followed = { ...turn, ended, files: null, reading: false, again: false, done: false };
    this.followed = f;
    this.watch(f);
  }

  /** An event from the agent's hook; resolves once handled (rejects on a payload it cannot read). */
  event(event: string, payload: string): Promise<void> {
    const run = this.chain.then(async () => {
      if (this.disposed) return;
      const update = await this.channel.onEvent(event, payload);
      if (update.kind === 'turn') {
        this.join.channelTurn(update.turn);
        this.hookEnded(update.turn);
      } else if (update.kind === 'ignored')
        this.log.debug('agent channel: event ignored', { event, why: update.why });
      else this.join.alive();
      // The event may have named the record, or another one (Claude Code's transcript after
      // /clear): watch that one now.
      const f = this.followed;
      if (f && !f.done) this.watch(f);
    });
    this.chain = run.catch(() => {});
    return run;
  }

  /**
   * A report came without the session's secret (`how`: without one, or with a wrong one) and
   * was refused: said on the session. True for the first (the caller logs it; later ones are
   * counted on the session only, so a flood of them never floods the log).
   */
  refused(how: 'without' | 'with a wrong'): boolean {
    this.refusedReports++;
    const n = this.refusedReports;
    this.lastRefused = `${n} report${n === 1 ? '' : 's'} ${how} the session's secret refused (not from its agent: something else named this session)`;
    return this.refusedReports === 1;
  }

  /** What `list_sessions` shows of the channel. */
  info(): Pick<SessionInfo, 'agent' | 'agent_channel' | 'agent_session' | 'channel_note'> {
    const agentSession = this.channel.agentSession;
    const note = [this.join.note, this.lastRefused].filter(Boolean).join('; ');
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
    this.unfollow();
    this.join.dispose();
    this.channel.dispose();
  }

  private unfollow(): void {
    const f = this.followed;
    if (!f) return;
    f.done = true;
    f.files?.dispose();
    this.followed = null;
  }

  /** Watches the followed turn's record file, when the channel reads one and knows it. */
  private watch(f: Followed): void {
    if (!this.channel.recorded) return;
    const path = this.channel.recordPath?.();
    if (!path || (f.files?.watching && f.files.path === path)) return;
    f.files?.dispose();
    f.files = new FileChanges(path, () => this.read(f));
  }

  /** The record changed: does it say the followed turn ended? (One read at a time.) */
  private read(f: Followed): void {
    if (f.done) return;
    if (f.reading) {
      f.again = true;
      return;
    }
    f.reading = true;
    const info = {
      prompt: f.input,
      startedAt: f.startedAt,
      endedAt: Date.now(),
      interrupted: false,
    };
    this.channel.recorded!(info).then(
      (report) => {
        f.reading = false;
        if (this.disposed) return;
        // Read, it is the join's, even when the screen completed the turn meanwhile (the
        // join's own read of it then found it taken): it waits for it.
        if (report) this.join.recordedTurn(report, f.startedAt, this.followed === f);
        if (f.done) return;
        if (report) this.ended(f, report.answer);
        else if (f.again) {
          f.again = false;
          this.read(f);
        }
      },
      (err: unknown) => {
        f.reading = false;
        this.log.debug('agent channel: its record could not be read', {
          error: (err as Error).message,
        });
      },
    );
  }

  /**
   * The agent's hook reported a turn: the followed one's end when it is for its prompt and was
   * completed during it (a late report of an earlier turn with the same question is not).
   */
  private hookEnded(report: ChannelTurn): void {
    const f = this.followed;
    if (!f || f.done || report.prompt === undefined) return;
    const at = report.record.completed_at;
    if (at === undefined || at < f.startedAt || !samePrompt(report.prompt, f.input)) return;
    this.ended(f, report.answer);
  }

  private ended(f: Followed, answer: string | null): void {
    f.done = true;
    f.files?.dispose();
    f.files = null;
    f.ended(f.startedAt, answer);
  }
}
