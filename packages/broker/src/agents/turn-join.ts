import type { AgentTurn } from '@clippy/protocol';
import { readUntil } from './record-wait.js';
import type { AgentChannel, ChannelTurn, ScreenTurnInfo } from './types.js';

/**
 * Longest a turn the screen completed waits for the agent's own report of it (its hook process
 * starts a node process, which a loaded machine can take seconds to run), and longest a pull
 * channel's read of the agent's files may take. Only turns whose report is expected wait (the
 * agent took the prompt, or its channel is live); interrupts and slash commands never do.
 */
export const CHANNEL_WAIT_MS = 10_000;

/** Where the join puts a completed turn (the session's ring), and what it tells the log. */
export interface JoinHost<T extends ScreenTurn = ScreenTurn> {
  store(turn: JoinedTurn<T>): void;
  /** Whether the screen shows no turn in progress (the agent waits at its prompt). */
  screenIdle(): boolean;
  /**
   * A report came for a turn the screen had already completed and stored (it completed early,
   * or the report was late): the newest stored turn gets the disagreement and the agent's
   * record; its text stays the screen's (it was read already).
   */
  amend(disagreement: string, record: AgentTurn): void;
  /** A disagreement or a silent channel: logged at warn level, and shown on the session. */
  warn(message: string, fields: Record<string, unknown>): void;
  debug(message: string, fields: Record<string, unknown>): void;
}

/** A completed turn as the screen gave it, and what the join adds. */
export interface ScreenTurn extends ScreenTurnInfo {
  [key: string]: unknown;
}

/** The screen's turn with the agent's answer and record joined to it (when it had one). */
export type JoinedTurn<T extends ScreenTurn = ScreenTurn> = T & {
  answer?: string;
  agent?: AgentTurn;
  disagreement?: string;
};

type ChannelState = 'waiting' | 'live' | 'silent';

interface Report {
  turn: ChannelTurn;
  /** When it reached the daemon (epoch ms). */
  at: number;
}

/**
 * Joins what the agent's channel reports to the turns the screen completes. The screen stays
 * the authority on a turn's existence and end (the turn contract: a turn completes when its
 * prompt is seen; interrupts and questions show only there); the channel gives the agent's own
 * answer and numbers. Both must agree on the boundaries: one report per screen turn, reported
 * after the turn's input was submitted, for the prompt that was submitted. Anything else is a
 * disagreement, logged and written on the turn (`disagreement`), never resolved silently.
 */
export class TurnJoin<T extends ScreenTurn = ScreenTurn> {
  private _state: ChannelState = 'waiting';
  private _note: string | undefined;
  /** Reports that came before the screen completed their turn (the usual order for hooks). */
  private pending: Report[] = [];
  /**
   * A turn the screen completed, waiting for its report (or its read, for pull channels), and
   * the watch of the agent's record for it (ended when the turn is no longer held).
   */
  private held: {
    turn: T;
    timer: NodeJS.Timeout | null;
    watch?: AbortController;
    /** The agent's report came without its answer while the record was still watched. */
    answerless?: Report;
  } | null = null;
  /** Turns completed while one is held: stored after it, in order. */
  private readonly queue: T[] = [];
  private overdue: NodeJS.Timeout | null = null;
  private disposed = false;

  constructor(
    private readonly channel: AgentChannel,
    private readonly host: JoinHost<T>,
    private readonly waitMs = CHANNEL_WAIT_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** `waiting` until the channel first delivers, `live` once it has, `silent` if it never did when expected. */
  get state(): ChannelState {
    return this._state;
  }

  /** The latest disagreement or channel problem, for the session's info. */
  get note(): string | undefined {
    return this._note;
  }

  /** The channel delivered something (the agent's session started, it took a prompt). */
  alive(): void {
    this._state = 'live';
  }

  /** A turn the screen completed. */
  screenTurn(turn: T): void {
    if (this.disposed) return this.host.store(turn);
    if (this.held) {
      this.queue.push(turn);
      return;
    }
    this.take(turn);
  }

  /** The agent reported a completed turn. */
  channelTurn(report: ChannelTurn): void {
    if (this._state !== 'live') this._state = 'live';
    const entry = { turn: report, at: this.now() };
    if (this.disposed) return;
    if (this.held && this.held.timer) {
      // Its record may still bring the answer the report lacks (the agent writes it late): the
      // turn waits on for it, and is stored with this report if it does not come.
      if (report.answerToCome && this.held.watch) {
        this.held.answerless = entry;
        return;
      }
      return this.finishHeld(entry);
    }
    if (this.host.screenIdle() && !this.held) {
      const text = `the screen completed the turn before the agent did (its turn ${report.record.turn_id ?? '?'}, answering “${clip(report.prompt ?? '')}”, reported after it)${report.note ? `; ${report.note}` : ''}`;
      this.disagree(text, { agent_turn: report.record.turn_id });
      this.host.amend(text, report.record);
      return;
    }
    this.pending.push(entry);
    this.watchOverdue();
  }

  /**
   * The agent's files say the screen's turn started at `startedAt` ended: given to it when the
   * screen completed it and it waits for its report, kept for it while the screen has it `open`
   * still. Never given to another turn (an older one waiting for its own report, a newer one).
   */
  recordedTurn(report: ChannelTurn, startedAt: number, open: boolean): void {
    if (this.disposed) return;
    this._state = 'live';
    const entry = { turn: report, at: this.now() };
    if (this.held?.timer && this.held.turn.startedAt === startedAt) return this.finishHeld(entry);
    if (!open) {
      this.host.debug('agent channel: a recorded turn came after its turn was stored', {
        agent_turn: report.record.turn_id,
      });
      return;
    }
    this.pending.push(entry);
    this.watchOverdue();
  }

  /** Stores what is held (the session ended or the channel goes away): nothing is lost. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.overdue) clearTimeout(this.overdue);
    this.overdue = null;
    if (this.held) {
      const { turn, answerless } = this.held;
      this.release(this.held);
      const reports = this.claim(turn);
      if (answerless) reports.push(answerless);
      this.finish(turn, reports);
    }
    for (const t of this.queue.splice(0)) this.finish(t, []);
  }

  private take(turn: T): void {
    const mine = this.claim(turn);
    // A report whose answer its record did not hold yet waits with the turn for the record,
    // where the record can be watched.
    const answerless =
      mine.length > 0 && mine.at(-1)!.turn.answerToCome && this.watchesRecord()
        ? mine.at(-1)
        : undefined;
    if (mine.length > 0 && (!answerless || turn.interrupted)) return this.finish(turn, mine);
    if (turn.interrupted) return this.finish(turn, []);
    const read = this.channel.readTurn?.bind(this.channel);
    if (read) {
      this.held = { turn, timer: null };
      let done = false;
      const settle = (report: ChannelTurn | null, problem?: string) => {
        if (done) return;
        done = true;
        clearTimeout(guard);
        if (this.disposed) return;
        this.held = null;
        // A live channel's record without this turn of the model's: said on the turn, never a
        // silent fall back to the screen's text.
        const missing =
          !report && this._state === 'live' && forTheModel(turn.prompt)
            ? `the agent's record has no turn for “${clip(turn.prompt)}”${problem ? ` (${problem})` : ''}; its text is the screen's`
            : undefined;
        if (report) this._state = 'live';
        else if (problem && this._state === 'waiting') this.silence(problem);
        this.finish(turn, report ? [{ turn: report, at: this.now() }] : [], missing);
        this.drain();
      };
      const guard = setTimeout(
        () => settle(null, `reading the agent's record took more than ${this.waitMs} ms`),
        this.waitMs,
      );
      read(turn).then(
        (r) => settle(r),
        (err: unknown) => settle(null, (err as Error).message),
      );
      return;
    }
    if (!answerless && (this._state === 'silent' || !this.channel.expectsReport(turn)))
      return this.finish(turn, []);
    const timer = setTimeout(() => this.expire(), this.waitMs);
    const held: NonNullable<typeof this.held> = {
      turn,
      timer,
      ...(answerless ? { answerless } : {}),
    };
    this.held = held;
    this.watchRecord(held);
  }

  /**
   * The agent's files may say the turn ended before its hook's process reports it: they are
   * read now, and again as they change while the turn is held. The record, not the hook, then
   * ends the wait: a hook's process a loaded machine starts late (or one that never runs) costs
   * no answer and no wait once the agent wrote its turn.
   */
  private watchRecord(held: NonNullable<typeof this.held>): void {
    const recorded = this.channel.recorded?.bind(this.channel);
    if (!recorded) return;
    const read = () => recorded(held.turn);
    const path = this.channel.recordPath?.();
    let reading: Promise<ChannelTurn | null>;
    if (path) {
      held.watch = new AbortController();
      reading = readUntil(path, read, (r) => r !== null, this.waitMs, held.watch.signal);
    } else reading = read();
    // Read without the turn: a report without its answer that waited for it stands.
    const without = () => {
      if (!this.disposed && this.held === held && held.answerless) this.finishHeld(held.answerless);
    };
    reading.then(
      (r) => {
        if (this.disposed || this.held !== held) return;
        if (!r) return without();
        this._state = 'live';
        this.finishHeld({ turn: r, at: this.now() });
      },
      without, // unreadable now: the hook's report still comes (or came without the answer)
    );
  }

  /** Whether the channel's record of a turn can be watched while the turn is held (push channels). */
  private watchesRecord(): boolean {
    return !this.channel.readTurn && !!this.channel.recorded && !!this.channel.recordPath?.();
  }

  /** The held turn is no longer held: its record is not watched for it any more. */
  private release(held: NonNullable<typeof this.held>): void {
    if (held.timer) clearTimeout(held.timer);
    held.watch?.abort();
    if (this.held === held) this.held = null;
  }

  /** The held turn's report came: it is stored with it, and the turns queued behind it follow. */
  private finishHeld(report: Report): void {
    const held = this.held!;
    this.release(held);
    this.finish(held.turn, [report]);
    this.drain();
  }

  /** The pending reports that belong to `turn`; older ones belong to no turn the screen saw. */
  private claim(turn: T): Report[] {
    const mine: Report[] = [];
    for (const r of this.pending) {
      if (r.at >= turn.startedAt) mine.push(r);
      else
        this.disagree(
          `the agent reported a turn the screen never completed (its turn ${r.turn.record.turn_id ?? '?'}, answering “${clip(r.turn.prompt ?? '')}”)`,
          { agent_turn: r.turn.record.turn_id },
        );
    }
    this.pending = [];
    return mine;
  }

  private expire(): void {
    if (!this.held) return;
    const { turn, answerless } = this.held;
    if (answerless) return this.finishHeld(answerless);
    this.release(this.held);
    const why = `the agent did not report the turn the screen completed within ${this.waitMs} ms`;
    if (this._state === 'waiting') this.silence(why);
    else this.disagree(`${why} (its text is the screen's)`, {});
    this.finish(turn, []);
    this.drain();
  }

  private silence(why: string): void {
    this._state = 'silent';
    this._note = `agent channel silent: ${why}; turns use the screen's text`;
    this.host.warn(this._note, {});
  }

  private drain(): void {
    while (!this.held && this.queue.length > 0) this.take(this.queue.shift()!);
  }

  private finish(turn: T, reports: Report[], note?: string): void {
    const notes: string[] = note ? [note] : [];
    if (reports.length > 1)
      notes.push(`the agent reported ${reports.length} turns where the screen completed one`);
    const report = reports.at(-1);
    if (report?.turn.note) notes.push(report.turn.note);
    if (report) {
      const said = report.turn.prompt;
      if (said !== undefined && !samePrompt(said, turn.prompt))
        notes.push(
          `the agent answered “${clip(said)}” but the screen's turn was for “${clip(turn.prompt)}”`,
        );
      const late = turn.endedAt - report.at;
      if (late > this.waitMs)
        notes.push(
          `the screen completed the turn ${Math.round(late / 1000)} s after the agent reported it`,
        );
      const early = (report.turn.record.completed_at ?? 0) - turn.endedAt;
      if (early > EARLY_TOLERANCE_MS)
        notes.push(
          `the screen completed the turn ${(early / 1000).toFixed(1)} s before the agent did`,
        );
    }
    const joined: JoinedTurn<T> = { ...turn };
    if (report) {
      joined.agent = report.turn.record;
      if (report.turn.answer !== null) joined.answer = report.turn.answer;
    }
    if (notes.length > 0) {
      joined.disagreement = notes.join('; ');
      this.disagree(joined.disagreement, { agent_turn: report?.turn.record.turn_id });
    }
    this.host.store(joined);
  }

  private disagree(text: string, fields: Record<string, unknown>): void {
    this._note = text;
    this.host.warn(`agent channel and screen disagree: ${text}`, fields);
  }

  /** A report the screen has not completed long after: said once (the turn may still come). */
  private watchOverdue(): void {
    if (this.overdue) return;
    this.overdue = setTimeout(() => {
      this.overdue = null;
      const stale = this.pending.filter((r) => this.now() - r.at >= this.waitMs);
      if (stale.length > 0)
        this._note = `the agent reported turn ${stale.at(-1)!.turn.record.turn_id ?? '?'} complete; the screen has not shown it complete`;
      if (stale.length > 0) this.host.warn(this._note!, {});
      else if (this.pending.length > 0) this.watchOverdue();
    }, this.waitMs);
    this.overdue.unref();
  }
}

/**
 * How much later than the screen's completion the agent may record its own and still agree:
 * the screen completes after the agent (its prompt, then the settle window), so any real lead
 * of the agent's moment means the screen ended the turn early.
 */
export const EARLY_TOLERANCE_MS = 1_000;

/** Whether a prompt goes to the model: not empty, not the agent's own command or shell line. */
function forTheModel(prompt: string): boolean {
  return /\S/u.test(prompt) && !/^\s*[/!]/u.test(prompt);
}

/** Longest piece of a prompt quoted in a disagreement. */
const QUOTE_CHARS = 60;

function clip(text: string): string {
  const one = text.replace(/\s+/gu, ' ').trim();
  return one.length > QUOTE_CHARS ? `${one.slice(0, QUOTE_CHARS - 1)}…` : one;
}

/**
 * Clock slack when matching a prompt the agent recorded to the screen's turn: the agent records
 * it after it read the Enter, and the turn's start is timed before the Enter was written
 * (Session.input), on the same clock; this only absorbs rounding.
 */
export const PROMPT_SLACK_MS = 50;

/**
 * Whether the agent's prompt is the one the screen turn was for: compared without whitespace
 * (the screen's prompt is what was typed, the agent's what it kept), and as prefixes where one
 * side is cut (the turn's prompt keeps 4,096 characters).
 */
export function samePrompt(agent: string, screen: string): boolean {
  const a = agent.replace(/\s+/gu, '');
  const s = screen.replace(/…$/u, '').replace(/\s+/gu, '');
  if (a === '' || s === '') return true;
  return a === s || a.startsWith(s) || s.startsWith(a);
}
