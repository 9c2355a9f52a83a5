import { formatTurnId, turnPreview, type TurnMeta } from '@clippy/protocol';

/** A turn as stored: its metadata plus the exact content and the readable text. */
export interface StoredTurn extends TurnMeta {
  content: Uint8Array;
  text: string;
}

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

  constructor(
    private readonly sessionId: string,
    private readonly limits: RingLimits,
  ) {}

  /** Turns completed since the session started (evicted ones included). */
  get count(): number {
    return this.seq;
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
    let text = turn.text;
    if (text.length > this.limits.maxTurnBytes) {
      text = text.slice(0, this.limits.maxTurnBytes);
      truncated = true;
    }
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
      content,
      text,
    };
    this.turns.push(stored);
    while (this.turns.length > this.limits.depth) this.turns.shift();
    return stored;
  }

  /** Refills the ring from the history after a restart: numbering goes on after `lastSeq`. */
  restore(turns: StoredTurn[], lastSeq: number): void {
    this.turns.push(...turns.slice(-this.limits.depth));
    this.seq = Math.max(this.seq, lastSeq);
  }

  get(seq: number): StoredTurn | undefined {
    const oldest = this.turns[0];
    if (!oldest) return undefined;
    return this.turns[seq - oldest.seq];
  }

  latest(): StoredTurn | undefined {
    return this.turns.at(-1);
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
  };
}
