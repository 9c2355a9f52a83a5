import { describe, expect, it } from 'vitest';
import { FrameDecoder, encodeFrame } from './codec.js';
import { MAX_PAYLOAD_SIZE } from './constants.js';
import { encodeOutputFrame } from './output-frame.js';

function bytes(n: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
}

describe('encodeOutputFrame', () => {
  // Every size class of MessagePack bin and str headers, on both sides of each boundary.
  const sizes = [0, 1, 255, 256, 65_535, 65_536, 200_000];
  const sessions = ['s1', 'x'.repeat(31), 'y'.repeat(32), 'z'.repeat(300), 'é'.repeat(40_000)];

  it('produces exactly the bytes of the general encoder, from any split into chunks', () => {
    for (const size of sizes) {
      for (const session of sessions) {
        const data = bytes(size, size + session.length);
        const expected = encodeFrame({ type: 'output', id: 0, session, data });
        const third = Math.floor(size / 3);
        const chunks = [
          data.subarray(0, third),
          data.subarray(third, 2 * third),
          data.subarray(2 * third),
        ];
        expect(encodeOutputFrame(session, chunks, size).equals(expected)).toBe(true);
        expect(encodeOutputFrame(session, [new Uint8Array(data)], size).equals(expected)).toBe(
          true,
        );
      }
    }
  });

  it('decodes to the output push it stands for', () => {
    const data = bytes(70_000, 3);
    const decoder = new FrameDecoder();
    const [message] = decoder.push(
      encodeOutputFrame('sess', [data.subarray(0, 10), data.subarray(10)], 70_000),
    );
    expect(message).toMatchObject({ type: 'output', id: 0, session: 'sess' });
    expect(Buffer.from((message as { data: Uint8Array }).data).equals(data)).toBe(true);
  });

  it('refuses chunks that do not hold the announced bytes, and payloads over the cap', () => {
    expect(() => encodeOutputFrame('s', [Buffer.alloc(3)], 4)).toThrow(RangeError);
    expect(() => encodeOutputFrame('s', [], MAX_PAYLOAD_SIZE)).toThrow(/frame limit/);
  });
});
