import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameDecoder, FrameError } from './codec.js';
import { MAX_PAYLOAD_SIZE } from './constants.js';

function frameOfLength(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n, 0);
  return b;
}

describe('frame codec', () => {
  it('round-trips a message with binary content byte-for-byte', () => {
    const content = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const dec = new FrameDecoder();
    const [msg] = dec.push(
      encodeFrame({ type: 'turn_completed', id: 3, content, interrupted: true }),
    );
    expect(msg).toMatchObject({ type: 'turn_completed', id: 3, interrupted: true });
    expect(Buffer.from((msg as { content: Uint8Array }).content).equals(content)).toBe(true);
  });

  it('writes a big-endian u32 length prefix', () => {
    const frame = encodeFrame({ type: 'hello', id: 0 });
    expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
  });

  it('reassembles frames split at every byte boundary', () => {
    const frames = Buffer.concat([
      encodeFrame({ type: 'a', id: 1, s: 'x'.repeat(300) }),
      encodeFrame({ type: 'b', id: 2 }),
    ]);
    for (let cut = 1; cut < frames.length; cut++) {
      const dec = new FrameDecoder();
      const got = [...dec.push(frames.subarray(0, cut)), ...dec.push(frames.subarray(cut))];
      expect(got.map((m) => (m as { type: string }).type)).toEqual(['a', 'b']);
      expect(dec.pendingBytes).toBe(0);
    }
  });

  it('decodes a frame delivered one byte at a time', () => {
    const frame = encodeFrame({ type: 'x', id: 9, list: [1, 2, 3] });
    const dec = new FrameDecoder();
    const got: unknown[] = [];
    for (const byte of frame) got.push(...dec.push(Buffer.from([byte])));
    expect(got).toEqual([{ type: 'x', id: 9, list: [1, 2, 3] }]);
  });

  it('decodes many frames in one chunk, in order', () => {
    const chunk = Buffer.concat(
      Array.from({ length: 1000 }, (_, i) => encodeFrame({ type: 't', id: i + 1 })),
    );
    const got = new FrameDecoder().push(chunk) as { id: number }[];
    expect(got).toHaveLength(1000);
    expect(got.map((m) => m.id)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
  });

  it('accepts a payload of exactly 16 MiB announced and rejects 16 MiB + 1 before buffering it', () => {
    const dec = new FrameDecoder();
    // Only the header of the oversize frame is sent: the decoder must refuse without waiting for the body.
    expect(() => dec.push(frameOfLength(MAX_PAYLOAD_SIZE + 1))).toThrowError(FrameError);
    try {
      new FrameDecoder().push(frameOfLength(MAX_PAYLOAD_SIZE + 1));
    } catch (err) {
      expect((err as FrameError).code).toBe('payload_too_large');
    }
    const ok = new FrameDecoder();
    expect(ok.push(frameOfLength(MAX_PAYLOAD_SIZE))).toEqual([]);
    expect(ok.pendingBytes).toBe(4);
  });

  it('refuses to encode a payload over the cap', () => {
    expect(() =>
      encodeFrame({ type: 'x', id: 1, data: Buffer.alloc(MAX_PAYLOAD_SIZE + 1) }),
    ).toThrowError(/exceeds/);
  });

  it('rejects garbage as malformed_frame and stays failed', () => {
    const dec = new FrameDecoder();
    const garbage = Buffer.concat([frameOfLength(3), Buffer.from([0xc1, 0xc1, 0xc1])]);
    expect(() => dec.push(garbage)).toThrowError(
      expect.objectContaining({ code: 'malformed_frame' }),
    );
    expect(() => dec.push(encodeFrame({ type: 'ok', id: 1 }))).toThrowError(FrameError);
  });

  it('rejects a payload that is valid MessagePack but not a map', () => {
    const body = Buffer.from([0x93, 0x01, 0x02, 0x03]); // [1, 2, 3]
    const dec = new FrameDecoder();
    expect(() => dec.push(Buffer.concat([frameOfLength(body.length), body]))).toThrowError(
      expect.objectContaining({ code: 'malformed_frame' }),
    );
  });

  it('rejects the reserved byte 0xc1, which msgpackr decodes to an object that is not a map', () => {
    const dec = new FrameDecoder();
    expect(() => dec.push(Buffer.concat([frameOfLength(1), Buffer.from([0xc1])]))).toThrowError(
      expect.objectContaining({ code: 'malformed_frame' }),
    );
  });

  it('survives random bytes without hanging or crashing the process', () => {
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed);
    for (let i = 0; i < 2000; i++) {
      const len = rand() % 64;
      const buf = Buffer.from(Array.from({ length: len }, () => rand() & 0xff));
      const dec = new FrameDecoder();
      try {
        dec.push(buf);
      } catch (err) {
        expect(err).toBeInstanceOf(FrameError);
      }
    }
  });
});
