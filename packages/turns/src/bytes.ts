// Byte-array helpers of the turn watchers.

export function concat(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 0) return new Uint8Array(0);
  if (chunks.length === 1) return chunks[0]!;
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

export function lastIndexOfBytes(hay: Uint8Array, needle: Uint8Array): number {
  for (let i = hay.length - needle.length; i >= 0; i--)
    if (startsWithBytes(hay, i, needle)) return i;
  return -1;
}

export function startsWithBytes(hay: Uint8Array, at: number, needle: Uint8Array): boolean {
  if (at + needle.length > hay.length) return false;
  for (let j = 0; j < needle.length; j++) if (hay[at + j] !== needle[j]) return false;
  return true;
}

/**
 * Copies bytes [start, end) of `from` into `to` at `at`. Short runs (the text between a TUI's
 * escape sequences) by hand: a view per run cost more than the copy itself.
 */
export function copyInto(
  to: Uint8Array,
  at: number,
  from: Uint8Array,
  start: number,
  end: number,
): void {
  if (end - start > 32) {
    to.set(from.subarray(start, end), at);
    return;
  }
  for (let i = start; i < end; i++) to[at++] = from[i]!;
}
