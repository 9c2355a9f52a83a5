import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OUTPUT_BATCH_MAX_BYTES, OUTPUT_BATCH_MS, OUTPUT_BULK_CHUNK_BYTES } from '../constants.js';
import { OutputBatcher } from './output-batcher.js';

const sent: string[][] = [];
let batcher: OutputBatcher | null = null;

function make(): OutputBatcher {
  batcher = new OutputBatcher((chunks, bytes) => {
    expect(chunks.reduce((n, c) => n + c.length, 0)).toBe(bytes);
    sent.push(chunks.map((c) => c.toString('latin1')));
  });
  return batcher;
}

const bulk = (ch: string) => Buffer.alloc(OUTPUT_BULK_CHUNK_BYTES, ch);

// The batch timer runs on a fake clock: a test moves time itself, to the millisecond.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});

afterEach(() => {
  vi.useRealTimers();
  batcher?.dispose();
  batcher = null;
  sent.length = 0;
});

describe('OutputBatcher', () => {
  it('sends a small chunk (an echo) at once', () => {
    make().push(Buffer.from('a'));
    expect(sent).toEqual([['a']]);
  });

  it('holds flood reads for a moment and sends them as one frame, in order', () => {
    const b = make();
    b.push(bulk('x'));
    b.push(bulk('y'));
    expect(sent).toEqual([]);
    expect(b.pendingBytes).toBe(2 * OUTPUT_BULK_CHUNK_BYTES);
    vi.advanceTimersByTime(OUTPUT_BATCH_MS - 1);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([[bulk('x').toString('latin1'), bulk('y').toString('latin1')]]);
  });

  it('sends what waits together with a small chunk that follows (the end of a flood)', () => {
    const b = make();
    b.push(bulk('x'));
    b.push(Buffer.from('$ '));
    expect(sent).toEqual([[bulk('x').toString('latin1'), '$ ']]);
    expect(b.pendingBytes).toBe(0);
  });

  it('never gathers more than a frame’s worth', () => {
    const b = make();
    const n = Math.ceil(OUTPUT_BATCH_MAX_BYTES / OUTPUT_BULK_CHUNK_BYTES);
    for (let i = 0; i < n; i++) b.push(bulk('z'));
    expect(sent).toHaveLength(1);
    expect(b.pendingBytes).toBe(0);
  });

  it('flush() sends at once; after dispose() nothing is sent', () => {
    const b = make();
    b.push(bulk('x'));
    b.flush();
    expect(sent).toHaveLength(1);
    b.push(bulk('y'));
    b.dispose();
    vi.advanceTimersByTime(10 * OUTPUT_BATCH_MS);
    b.push(Buffer.from('a'));
    expect(sent).toHaveLength(1);
  });
});
