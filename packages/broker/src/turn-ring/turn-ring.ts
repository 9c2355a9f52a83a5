import { formatTurnId, turnPreview, type AgentTurn, type TurnMeta } from '@clippy/protocol';

/** A turn as stored: its metadata plus the exact content and the readable text. */
export interface StoredTurn extends TurnMeta {
  content: Uint8Array;
  /** The agent's own answer when `text_source` is `agent`, else the screen's text. */
  text: string;
  /** With `text_source` `agent`: the screen's text. */
  screen_text?: string;
}

/** Tokens and cost summed over a session's turns, from what its agent reported. */
export interface SessionUsage {
  input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
  /** Why some of its turns have no cost (their models, distinct): `cost_usd` leaves them out. */
  cost_unknown?: string;
}

/** Distinct reasons kept in a session's `cost_unknown` (one per model without a price). */
const MAX_COST_UNKNOWN_REASONS = 8;

/** A completed turn before it is stored (from the detector, or published by a wrapper). */
export interface NewTurn {
  content: Uint8Array;
  text: string;
  prompt: string;
  interrupted: boolean;
  /** The producer already cut the content at its cap. */
  truncated?: boolean;
  /** Epoch ms: input submitted / prompt seen. */
  startedAt: number;
  endedAt: number;
  /** The agent's own Markdown answer (its channel delivered it): becomes `text`. */
  answer?: string;
  /** The agent's own record of the turn. */
  agent?: AgentTurn;
  /** What the agent's channel and the screen disagreed on. */
  disagreement?: string;
}

/** Longest `prompt` kept in a turn's metadata: it is listed with every turn. */
export const MAX_PROMPT_CHARS = 4096;

export interface RingLimits {
  /** Turns kept per session; older ones are evicted silently. */
  depth: number;
  /** Content bytes kept per turn; longer content is cut and flagged `truncated`. */
  maxTurnBytes: number;
}

/**
 * One session's turns, newest last in memory, served newest first. Sequence numbers start at
 * 1, grow by one per turn and are never reused, even after eviction.
 */
export class TurnRing {
  private readonly turns: StoredTurn[] = [];
  private seq = 0;
  private _usage: SessionUsage = {};

  constructor(
    private readonly sessionId: string,
    private readonly limits: RingLimits,
  ) {}

  /** Turns completed since the session started (evicted ones included). */
  get count(): number {
    return this.seq;
  }

  /** Tokens and cost of every turn since the session started, as its agent reported them. */
  get usage(): SessionUsage {
    return this._usage;
  }

  /** Turns held right now (at most the depth). */
  get size(): number {
    return this.turns.length;
  }

  add(turn: NewTurn): StoredTurn {
    let content = turn.content;
    let truncated = turn.truncated ?? false;
    if (content.length > this.limits.maxTurnBytes) {
      content = content.subarray(0, this.limits.maxTurnBytes);
      truncated = true;
    }
    // A copy: the producer's buffer (a decoded frame, the detector's scratch) may be reused.
    content = Buffer.from(content);
    const cap = (t: string) => {
      if (t.length <= this.limits.maxTurnBytes) return t;
      truncated = true;
      return t.slice(0, this.limits.maxTurnBytes);
    };
    const screenText = cap(turn.text);
    const text = turn.answer !== undefined ? cap(turn.answer) : screenText;
    this.seq += 1;
    const stored: StoredTurn = {
      turn_id: formatTurnId(this.sessionId, this.seq),
      session: this.sessionId,
      seq: this.seq,
      timestamp: turn.endedAt,
      byte_length: content.length,
      interrupted: turn.interrupted,
      truncated,
      duration_ms: Math.max(0, turn.endedAt - turn.startedAt),
      prompt:
        turn.prompt.length > MAX_PROMPT_CHARS
          ? `${turn.prompt.slice(0, MAX_PROMPT_CHARS - 1)}…`
          : turn.prompt,
      text_source: turn.answer !== undefined ? 'agent' : 'screen',
      ...(turn.agent ? { agent: turn.agent } : {}),
      ...(turn.disagreement ? { disagreement: turn.disagreement } : {}),
      content,
      text,
      ...(turn.answer !== undefined ? { screen_text: screenText } : {}),
    };
    if (turn.agent) this._usage = addUsage(this._usage, turn.agent);
    this.turns.push(stored);
    while (this.turns.length > this.limits.depth) this.turns.shift();
    return stored;
  }

  /**
   * Refills the ring from the history after a restart (or from the session a revive replaces):
   * numbering goes on after `lastSeq`, the usage totals from `usage`.
   */
  restore(turns: StoredTurn[], lastSeq: number, usage?: SessionUsage): void {
    this.turns.push(...turns.slice(-this.limits.depth));
    this.seq = Math.max(this.seq, lastSeq);
    if (usage) this._usage = usage;
  }

  get(seq: number): StoredTurn | undefined {
    const oldest = this.turns[0];
    if (!oldest) return undefined;
    return this.turns[seq - oldest.seq];
  }

  latest(): StoredTurn | undefined {
    return this.turns.at(-1);
  }

  /** The agent whose record the newest turn that has one carries. */
  latestAgent(): AgentTurn['agent'] | undefined {
    return this.turns.findLast((t) => t.agent)?.agent?.agent;
  }

  /** The agent's own session ID named by the newest turn that has one (what a revive resumes). */
  latestAgentSession(): string | undefined {
    return this.turns.findLast((t) => t.agent?.session_id)?.agent?.session_id;
  }

  /** The oldest stored turn newer than `seq` (for waits that must not miss a turn). */
  after(seq: number): StoredTurn | undefined {
    return this.turns.find((t) => t.seq > seq);
  }

  /** Metadata, newest first. */
  list(limit = this.turns.length): TurnMeta[] {
    return this.turns
      .slice(-limit)
      .reverse()
      .map((t) => toMeta(t));
  }
}

/**
 * The metadata of a stored turn (what `list_turns` and events carry: no content, the start of
 * the text as `preview`; `withPreview: false` where the whole text goes along anyway).
 */
export function toMeta(t: StoredTurn, { withPreview = true } = {}): TurnMeta {
  return {
    turn_id: t.turn_id,
    session: t.session,
    seq: t.seq,
    timestamp: t.timestamp,
    byte_length: t.byte_length,
    interrupted: t.interrupted,
    truncated: t.truncated,
    duration_ms: t.duration_ms,
    prompt: t.prompt,
    ...(withPreview ? { preview: turnPreview(t.text) } : {}),
    ...(t.hops !== undefined ? { hops: t.hops } : {}),
    ...(t.text_source ? { text_source: t.text_source } : {}),
    ...(t.agent ? { agent: t.agent } : {}),
    ...(t.disagreement ? { disagreement: t.disagreement } : {}),
  };
}

/** `total` plus what one turn's record says (a field absent from both stays absent). */
function addUsage(total: SessionUsage, turn: SessionUsage): SessionUsage {
  const sum = (a: number | undefined, b: number | undefined) =>
    a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
  const out: SessionUsage = {};
  const input = sum(total.input_tokens, turn.input_tokens);
  const output = sum(total.output_tokens, turn.output_tokens);
  const cost = sum(total.cost_usd, turn.cost_usd);
  if (input !== undefined) out.input_tokens = input;
  if (output !== undefined) out.output_tokens = output;
  if (cost !== undefined) out.cost_usd = cost;
  const reasons = new Set(total.cost_unknown?.split('; '));
  if (turn.cost_unknown && reasons.size < MAX_COST_UNKNOWN_REASONS) reasons.add(turn.cost_unknown);
  if (reasons.size > 0) out.cost_unknown = [...reasons].join('; ');
  return out;
}
