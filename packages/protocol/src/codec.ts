import { Packr } from 'msgpackr';
import { FRAME_HEADER_SIZE, MAX_PAYLOAD_SIZE } from './constants.js';

// Standard MessagePack on both ends: no msgpackr records, no Maps (plain objects).
const packr = new Packr({ useRecords: false, mapsAsObjects: true, variableMapSize: true });

/** Why a byte stream could not be turned into messages; the broker answers with the code. */
export class FrameError extends Error {
  constructor(
    readonly code: 'payload_too_large' | 'malformed_frame',
    message: string,
  ) {
    super(message);
    this.name = 'FrameError';
  }
}

/** Encodes one message as `[u32 BE length][MessagePack map]`. Throws if the payload passes the cap. */
export function encodeFrame(message: object): Buffer {
  const body = packr.pack(message);
  if (body.length > MAX_PAYLOAD_SIZE) {
    throw new FrameError(
      'payload_too_large',
      `message of ${body.length} bytes exceeds the ${MAX_PAYLOAD_SIZE}-byte frame limit`,
    );
  }
  const frame = Buffer.allocUnsafe(FRAME_HEADER_SIZE + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, FRAME_HEADER_SIZE);
  return frame;
}

/** Decodes one MessagePack payload (without the length prefix) into a plain value. */
export function decodePayload(payload: Uint8Array): unknown {
  try {
    return packr.unpack(payload);
  } catch (err) {
    throw new FrameError(
      'malformed_frame',
      `payload is not valid MessagePack: ${(err as Error).message}`,
    );
  }
}

/**
 * Decodes one payload that must hold a message: a MessagePack map, as a plain object.
 * msgpackr turns some reserved bytes (0xc1) into class instances: those are not maps either.
 */
export function decodeMessage(payload: Uint8Array): Record<string, unknown> {
  const value = decodePayload(payload);
  if (
    value === null ||
    typeof value !== 'object' ||
    Object.getPrototypeOf(value) !== Object.prototype
  ) {
    throw new FrameError('malformed_frame', 'frame payload is not a MessagePack map');
  }
  return value as Record<string, unknown>;
}

/**
 * Streaming frame decoder: feed it socket chunks in any split; it returns every complete
 * payload decoded. A frame announcing more than `maxPayload` bytes is rejected as soon as its
 * header is read, before any of its body is buffered. After an error the decoder is unusable
 * (the connection must be closed), so it keeps throwing.
 *
 * Decoded binary fields may share memory with the chunks passed in; copy what you keep.
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private failed: FrameError | null = null;

  constructor(private readonly maxPayload = MAX_PAYLOAD_SIZE) {}

  /** Bytes held for an incomplete frame. */
  get pendingBytes(): number {
    return this.buffered;
  }

  push(chunk: Uint8Array): unknown[] {
    if (this.failed) throw this.failed;
    const buf = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (buf.length === 0) return [];
    this.chunks.push(buf);
    this.buffered += buf.length;
    const out: unknown[] = [];
    try {
      for (;;) {
        if (this.buffered < FRAME_HEADER_SIZE) break;
        const length = this.peekLength();
        if (length > this.maxPayload) {
          throw new FrameError(
            'payload_too_large',
            `frame announces ${length} bytes, more than the ${this.maxPayload}-byte limit`,
          );
        }
        const total = FRAME_HEADER_SIZE + length;
        if (this.buffered < total) break;
        const frame = this.take(total);
        const value = decodeMessage(frame.subarray(FRAME_HEADER_SIZE));
        out.push(value);
      }
    } catch (err) {
      this.failed =
        err instanceof FrameError ? err : new FrameError('malformed_frame', String(err));
      this.chunks = [];
      this.buffered = 0;
      throw this.failed;
    }
    return out;
  }

  private peekLength(): number {
    const first = this.chunks[0]!;
    if (first.length >= FRAME_HEADER_SIZE) return first.readUInt32BE(0);
    const head = Buffer.concat(this.chunks, Math.min(this.buffered, FRAME_HEADER_SIZE * 2));
    return head.readUInt32BE(0);
  }

  /** Removes and returns the first `n` buffered bytes, copying only when they span chunks. */
  private take(n: number): Buffer {
    const first = this.chunks[0]!;
    let result: Buffer;
    if (first.length >= n) {
      result = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      result = Buffer.allocUnsafe(n);
      let filled = 0;
      while (filled < n) {
        const c = this.chunks[0]!;
        const need = n - filled;
        if (c.length <= need) {
          c.copy(result, filled);
          filled += c.length;
          this.chunks.shift();
        } else {
          c.copy(result, filled, 0, need);
          filled += need;
          this.chunks[0] = c.subarray(need);
        }
      }
    }
    this.buffered -= n;
    return result;
  }
}
