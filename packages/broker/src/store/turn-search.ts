import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { openOwn } from '../own-files.js';
import type { HistoryIndex, TurnRef } from './history-index.js';
import type { TurnRecordMeta } from './record-meta.js';
import { SearchIndex } from './search-index.js';

/** Default and largest number of search results: enough to read, few enough to answer fast. */
export const DEFAULT_SEARCH_LIMIT = 20;
/** Matching lines shown per result, and their longest length: a result is a pointer, not the turn. */
const MAX_MATCH_LINES = 5;
const MAX_MATCH_LINE_CHARS = 400;
/** Candidate texts read at once by a search: enough to keep the thread pool busy, little memory. */
const SEARCH_READ_BATCH = 64;
/**
 * Turns indexed per step of the background indexing at start, between which the daemon serves
 * requests: a few milliseconds of work each.
 */
const INDEX_STEP_TURNS = 200;
/**
 * Text indexed per step for turns written while the daemon runs: a 4 MiB answer is split at
 * word boundaries into pieces of about this size, so indexing it never holds the event loop
 * (and the output it forwards) for more than a millisecond or two.
 */
const INDEX_STEP_CHARS = 64 * 1024;

export interface SearchHit {
  ref: TurnRef;
  meta: TurnRecordMeta;
  name: string;
  lines: string[];
}

/** What search needs of the store: where segments are and a turn's record. */
export interface SearchHost {
  readonly index: HistoryIndex;
  segmentPath(segment: number): string;
  readTurnMeta(ref: TurnRef): Promise<TurnRecordMeta>;
}

/**
 * Full-text search over the persisted turns: the words of every turn's text in a SearchIndex,
 * filled in the background (the turns read at start, segment by segment; each turn written
 * since, in pieces), and a check of each candidate's text read from disk. Turns whose words
 * are not indexed yet are all candidates, so a search never misses one.
 */
export class TurnSearch {
  private readonly words = new SearchIndex();
  /**
   * Turns read at start: ordinals below `indexedBelow` are indexed, and so are those from
   * `loadedCount` on (appended since); searches scan the ones between.
   */
  private indexedBelow = 0;
  private loadedCount = 0;
  private indexing: Promise<void> | null = null;
  /** Turns written since start whose words are not indexed yet (searches scan them). */
  private readonly pendingIndex: { ordinal: number; text: string; at: number }[] = [];
  private readonly pendingOrdinals = new Set<number>();
  private pendingRunning = false;
  private closed = false;

  constructor(private readonly host: SearchHost) {}

  /** Distinct words in the search index. */
  get indexedWords(): number {
    return this.words.words;
  }

  /** Indexes, in the background, the turns read at start (those the index holds now). */
  indexLoaded(): void {
    this.loadedCount = this.host.index.refs.length;
    this.indexing = this.runIndexLoaded();
  }

  /** Resolves once every turn is in the search index (benchmarks, tests). */
  async indexed(): Promise<void> {
    await this.indexing;
    while (this.pendingRunning) await new Promise((r) => setImmediate(r));
  }

  /** Stops indexing (the store closes). */
  async close(): Promise<void> {
    this.closed = true;
    await this.indexing;
  }

  /**
   * Persisted turns whose text contains `query` (case-insensitive; found through the index,
   * so from the start of a word), newest first, with the matching lines.
   */
  async search(
    query: string,
    opts: { session?: string; since?: number; limit?: number } = {},
  ): Promise<SearchHit[]> {
    const { refs, sessions } = this.host.index;
    const limit = opts.limit ?? DEFAULT_SEARCH_LIMIT;
    const alive = (o: number) => refs[o] !== undefined;
    let candidates = this.words.candidates(query, alive);
    if (candidates === null) {
      candidates = [];
      for (let o = refs.length - 1; o >= 0; o--) if (refs[o]) candidates.push(o);
    } else if (this.indexedBelow < this.loadedCount || this.pendingOrdinals.size > 0) {
      // Turns not indexed yet (read at start, or just written) are all candidates.
      const merged = new Set(candidates);
      for (let o = this.indexedBelow; o < this.loadedCount; o++) if (refs[o]) merged.add(o);
      for (const o of this.pendingOrdinals) if (refs[o]) merged.add(o);
      candidates = [...merged].sort((a, b) => b - a);
    }
    const needle = query.toLowerCase();
    const hits: SearchHit[] = [];
    // One open per segment, shared by the concurrent reads (the promise, so none opens twice).
    const files = new Map<number, Promise<FileHandle>>();
    try {
      const wanted = candidates
        .map((o) => refs[o])
        .filter(
          (ref): ref is TurnRef =>
            ref !== undefined &&
            (opts.session === undefined || ref.meta.session === opts.session) &&
            (opts.since === undefined || ref.meta.timestamp >= opts.since),
        );
      const handle = (segment: number): Promise<FileHandle> => {
        let fh = files.get(segment);
        if (!fh) {
          fh = openOwn(this.host.segmentPath(segment), constants.O_RDONLY);
          files.set(segment, fh);
        }
        return fh;
      };
      // Candidates are read a batch at a time, concurrently (the thread pool reads in
      // parallel), newest first, until enough match.
      for (let i = 0; i < wanted.length && hits.length < limit; i += SEARCH_READ_BATCH) {
        const batch = wanted.slice(i, i + SEARCH_READ_BATCH);
        const texts = await Promise.all(
          batch.map(async (ref) => {
            const buf = Buffer.alloc(ref.meta.tl);
            await (await handle(ref.segment)).read(buf, 0, buf.length, ref.textAt);
            return buf.toString('utf8');
          }),
        );
        for (let k = 0; k < batch.length && hits.length < limit; k++) {
          const ref = batch[k]!;
          const text = texts[k]!;
          if (!text.toLowerCase().includes(needle)) continue;
          const session = sessions.get(ref.meta.session);
          hits.push({
            // The whole record for a hit (a handful): its prompt and flags are not kept in memory.
            meta: await this.host.readTurnMeta(ref),
            ref,
            name: session?.meta.name ?? ref.meta.session,
            lines: matchLines(text, needle),
          });
        }
      }
    } finally {
      for (const fh of files.values()) await fh.then((f) => f.close()).catch(() => {});
    }
    return hits;
  }

  /** Indexes a just-written turn's words in the background, a piece per event-loop turn. */
  queue(ordinal: number, text: string): void {
    this.pendingIndex.push({ ordinal, text, at: 0 });
    this.pendingOrdinals.add(ordinal);
    if (this.pendingRunning) return;
    this.pendingRunning = true;
    const step = () => {
      const job = this.pendingIndex[0];
      if (!job || this.closed) {
        this.pendingRunning = false;
        return;
      }
      let end = Math.min(job.text.length, job.at + INDEX_STEP_CHARS);
      // Cut after a non-word character so that no word is split between two pieces.
      while (end < job.text.length && /[\p{L}\p{N}_]/u.test(job.text[end - 1]!)) end++;
      this.words.add(job.ordinal, job.text.slice(job.at, end));
      job.at = end;
      if (job.at >= job.text.length) {
        this.pendingIndex.shift();
        this.pendingOrdinals.delete(job.ordinal);
      }
      setImmediate(step);
    };
    setImmediate(step);
  }

  /**
   * Indexes the turns read at start, segment by segment (one async read each), a few hundred
   * turns per step with a yield between steps: opening stays a scan, and the daemon answers
   * while the index fills.
   */
  private async runIndexLoaded(): Promise<void> {
    const { refs } = this.host.index;
    let o = 0;
    while (o < this.loadedCount && !this.closed) {
      const first = refs[o];
      if (!first) {
        o++;
        this.indexedBelow = o;
        continue;
      }
      let buf: Buffer;
      try {
        const fh = await openOwn(this.host.segmentPath(first.segment), constants.O_RDONLY);
        try {
          buf = await fh.readFile();
        } finally {
          await fh.close();
        }
      } catch {
        buf = Buffer.alloc(0); // dropped by retention meanwhile: nothing left to index
      }
      const segment = first.segment;
      let step = 0;
      for (; o < this.loadedCount && !this.closed; o++) {
        const ref = refs[o];
        if (ref && ref.segment !== segment) break;
        if (ref && ref.textAt + ref.meta.tl <= buf.length)
          this.words.add(o, buf.toString('utf8', ref.textAt, ref.textAt + ref.meta.tl));
        this.indexedBelow = o + 1;
        if (++step >= INDEX_STEP_TURNS) {
          step = 0;
          await new Promise((r) => setImmediate(r));
        }
      }
    }
  }
}

/** The lines of `text` holding `needle` (lower-cased), a few, each cut to a readable length. */
function matchLines(text: string, needle: string): string[] {
  const out: string[] = [];
  const first = needle.split('\n')[0]!;
  for (const line of text.split('\n')) {
    if (!line.toLowerCase().includes(first)) continue;
    out.push(
      line.length > MAX_MATCH_LINE_CHARS ? `${line.slice(0, MAX_MATCH_LINE_CHARS - 1)}…` : line,
    );
    if (out.length >= MAX_MATCH_LINES) break;
  }
  return out;
}
