/** Shortest word indexed: single letters would match nearly every turn. */
const MIN_TOKEN_CHARS = 2;
/** Words are indexed by their first 32 characters: longer ones are hashes and paths. */
const MAX_TOKEN_CHARS = 32;

const WORD = /[\p{L}\p{N}_]+/gu;

/** The distinct words of a text, lower-cased and cut as the index keeps them. */
export function tokens(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(WORD)) {
    const w = m[0];
    if (w.length >= MIN_TOKEN_CHARS) out.add(w.slice(0, MAX_TOKEN_CHARS));
  }
  return out;
}

/**
 * The full-text index of the turn store: each word → the ordinals of the turns holding it
 * (ascending, as turns are added in order). A query's words select candidates (all but the
 * last must be whole words; the last may be the start of one); the store then checks each
 * candidate's text for the query itself. Ordinals of dropped turns are skipped by `alive`.
 */
export class SearchIndex {
  private readonly postings = new Map<string, Postings>();

  /** Adds a turn's words (a long text may come in pieces, one call each, in order). */
  add(ordinal: number, text: string): void {
    for (const t of tokens(text)) {
      const list = this.postings.get(t);
      if (!list) this.postings.set(t, new Postings(ordinal));
      else if (list.a[list.n - 1] !== ordinal) list.push(ordinal);
    }
  }

  /** Distinct words held (for status and the benchmark). */
  get words(): number {
    return this.postings.size;
  }

  /**
   * Candidate ordinals for `query`, newest first, or null when the query has no indexable
   * word (every turn is a candidate). `alive` drops the ordinals of turns gone since.
   */
  candidates(query: string, alive: (ordinal: number) => boolean): number[] | null {
    const words = [...query.toLowerCase().matchAll(WORD)].map((m) => m[0]);
    if (words.length === 0) return null;
    const sets: number[][] = [];
    words.forEach((w, i) => {
      if (w.length < MIN_TOKEN_CHARS) return;
      const key = w.slice(0, MAX_TOKEN_CHARS);
      // The query may end inside a word (and a cut word is a prefix of its key): any word
      // starting with it qualifies.
      if (i === words.length - 1 || w.length > MAX_TOKEN_CHARS) {
        const union = new Set<number>();
        for (const [token, list] of this.postings) {
          if (token.startsWith(key)) for (const o of this.trim(token, list, alive)) union.add(o);
        }
        sets.push([...union]);
      } else {
        const list = this.postings.get(key);
        sets.push(list ? [...this.trim(key, list, alive)] : []);
      }
    });
    if (sets.length === 0) return null;
    sets.sort((a, b) => a.length - b.length);
    let result = sets[0]!;
    for (const other of sets.slice(1)) {
      const keep = new Set(other);
      result = result.filter((o) => keep.has(o));
    }
    return result.filter(alive).sort((a, b) => b - a);
  }

  /** Drops leading dead ordinals (retention removes the oldest turns first). */
  private trim(token: string, list: Postings, alive: (ordinal: number) => boolean): Uint32Array {
    let dead = 0;
    while (dead < list.n && !alive(list.a[dead]!)) dead++;
    if (dead === list.n) {
      this.postings.delete(token);
      return new Uint32Array(0);
    }
    if (dead > 0) list.dropFirst(dead);
    return list.view();
  }
}

/** One word's ordinals, ascending, in a growable typed array (4 bytes each, not a JS array's 8+). */
class Postings {
  a: Uint32Array;
  n = 1;

  constructor(first: number) {
    this.a = new Uint32Array(2);
    this.a[0] = first;
  }

  push(ordinal: number): void {
    if (this.n === this.a.length) {
      const grown = new Uint32Array(this.a.length * 2);
      grown.set(this.a);
      this.a = grown;
    }
    this.a[this.n++] = ordinal;
  }

  dropFirst(k: number): void {
    this.a.copyWithin(0, k, this.n);
    this.n -= k;
  }

  view(): Uint32Array {
    return this.a.subarray(0, this.n);
  }
}
