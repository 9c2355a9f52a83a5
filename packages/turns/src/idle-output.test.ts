import { describe, expect, it } from 'vitest';
import v8 from 'node:v8';
import { MAX_IDLE_RAW_BYTES } from './constants.js';
import { IdleOutput } from './idle-output.js';

const text = (idle: IdleOutput) => Buffer.concat(idle.kept.map((p) => Buffer.from(p))).toString();

/** A stream of numbered lines, 8 bytes each: every stretch of it tells where it was taken. */
const STREAM = Array.from({ length: (10 * MAX_IDLE_RAW_BYTES) / 8 }, (_, i) =>
  String(i).padStart(7, '0'),
).join('\n');

/** `n` bytes of the stream from offset `from`. */
const stream = (from: number, n: number) => Buffer.from(STREAM.slice(from, from + n));

describe('IdleOutput', () => {
  it('keeps exactly the last MAX_IDLE_RAW_BYTES of many chunks, at their offsets', () => {
    const idle = new IdleOutput();
    let at = 0;
    // Chunks of uneven sizes, together eight times the bound.
    for (let i = 0; at < 8 * MAX_IDLE_RAW_BYTES; i++) {
      const n = 1 + ((i * 7919) % 5000);
      idle.keep(stream(at, n), at);
      at += n;
    }
    expect(text(idle)).toBe(stream(at - MAX_IDLE_RAW_BYTES, MAX_IDLE_RAW_BYTES).toString());
    expect(idle.cut).toBe(true);
    // The offsets still match the bytes: trimming to a line start keeps exactly from there.
    const lineStart = at - 100;
    idle.trim(lineStart);
    expect(text(idle)).toBe(stream(lineStart, 100).toString());
    expect(idle.cut).toBe(false);
  });

  it('lets go of the chunks it dropped: only the bound’s worth of read buffers stays alive', () => {
    // Each chunk a read buffer of its own (as the pipeline worker's are): a dropped view kept in
    // the list kept its whole buffer alive, 64 of them per session.
    class ReadBuffer extends Uint8Array {}
    const idle = new IdleOutput();
    const size = 4096;
    for (let i = 0; i < 60; i++) {
      const chunk = new ReadBuffer(size);
      chunk.set(stream(i * size, size));
      idle.keep(chunk, i * size);
    }
    // queryObjects collects garbage first, then counts what is still reachable.
    const live = v8QueryObjects(ReadBuffer);
    expect(live).toBeLessThanOrEqual(MAX_IDLE_RAW_BYTES / size + 1);
    expect(text(idle)).toBe(stream(60 * size - MAX_IDLE_RAW_BYTES, MAX_IDLE_RAW_BYTES).toString());
  });

  it('keeps only the end of a chunk larger than the bound, and says the start was cut', () => {
    const idle = new IdleOutput();
    idle.keep(Buffer.from('$ '), 0);
    const big = stream(2, MAX_IDLE_RAW_BYTES + 10);
    idle.keep(big, 2);
    expect(text(idle)).toBe(stream(12, MAX_IDLE_RAW_BYTES).toString());
    expect(idle.cut).toBe(true);
    // The kept bytes start at offset 12: a line start before them was cut, one after is not.
    idle.trim(10);
    expect(idle.cut).toBe(true);
    idle.trim(20);
    expect(text(idle)).toBe(stream(20, MAX_IDLE_RAW_BYTES - 8).toString());
    expect(idle.cut).toBe(false);
  });

  it('keeps the last MAX_IDLE_RAW_BYTES of a paste echoed byte by byte, at their offsets', () => {
    const idle = new IdleOutput();
    const total = 3 * MAX_IDLE_RAW_BYTES + 5;
    const all = stream(0, total);
    for (let at = 0; at < total; at++) idle.keep(all.subarray(at, at + 1), at);
    expect(text(idle)).toBe(stream(total - MAX_IDLE_RAW_BYTES, MAX_IDLE_RAW_BYTES).toString());
    // Not one view per byte: a trickle's views are joined.
    expect(idle.kept.length).toBeLessThanOrEqual(257);
    idle.trim(total - 3);
    expect(text(idle)).toBe(stream(total - 3, 3).toString());
    expect(idle.cut).toBe(false);
  });

  it('starts afresh at a reset: with the prompt line given, or with nothing from an offset', () => {
    const idle = new IdleOutput();
    idle.keep(Buffer.from('old output\r\n$ '), 0);
    idle.reset(Buffer.from('$ '), 100, 102);
    expect(text(idle)).toBe('$ ');
    idle.keep(Buffer.from('ls'), 102);
    expect(text(idle)).toBe('$ ls');
    idle.trim(100);
    expect(text(idle)).toBe('$ ls');
    idle.reset(null, 0, 200, true);
    expect(idle.kept).toEqual([]);
    expect(idle.cut).toBe(true);
    idle.keep(Buffer.from('x'), 200);
    idle.trim(200);
    expect(text(idle)).toBe('x');
  });
});

/** Live objects made by `ctor` after a full collection (v8.queryObjects, without its warning). */
function v8QueryObjects(ctor: new (...args: never[]) => object): number {
  const emit = process.emitWarning;
  process.emitWarning = () => {};
  try {
    return v8.queryObjects(ctor) as number;
  } finally {
    process.emitWarning = emit;
  }
}
