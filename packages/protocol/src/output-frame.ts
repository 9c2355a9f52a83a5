import { FrameError } from './codec.js';
import { FRAME_HEADER_SIZE, MAX_PAYLOAD_SIZE } from './constants.js';

// MessagePack type bytes used by the `output` push (https://github.com/msgpack/msgpack/blob/master/spec.md).
const FIXMAP_4 = 0x84;
const FIXSTR = 0xa0;
const STR8 = 0xd9;
const STR16 = 0xda;
const STR32 = 0xdb;
const BIN8 = 0xc4;
const BIN16 = 0xc5;
const BIN32 = 0xc6;

/** `"type": "output", "id": 0, "session":` as MessagePack: the same for every output push. */
const PREFIX = Buffer.from([
  FIXMAP_4,
  FIXSTR | 4,
  ...Buffer.from('type'),
  FIXSTR | 6,
  ...Buffer.from('output'),
  FIXSTR | 2,
  ...Buffer.from('id'),
  0x00,
  FIXSTR | 7,
  ...Buffer.from('session'),
]);
const DATA_KEY = Buffer.from([FIXSTR | 4, ...Buffer.from('data')]);

function strHeader(length: number): number[] {
  if (length < 32) return [FIXSTR | length];
  if (length < 0x100) return [STR8, length];
  if (length < 0x10000) return [STR16, length >> 8, length & 0xff];
  return [STR32, length >>> 24, (length >> 16) & 0xff, (length >> 8) & 0xff, length & 0xff];
}

function binHeader(length: number): number[] {
  if (length < 0x100) return [BIN8, length];
  if (length < 0x10000) return [BIN16, length >> 8, length & 0xff];
  return [BIN32, length >>> 24, (length >> 16) & 0xff, (length >> 8) & 0xff, length & 0xff];
}

/**
 * The `output` push `{type: 'output', id: 0, session, data}` framed, with `data` the
 * concatenation of `chunks` (`bytes` in all): the same bytes `encodeFrame` produces, written
 * straight into the frame. Output is the broker's hot path: packing it the general way copied
 * every byte three times (gathering, packing, framing) and allocated as many buffers, and the
 * garbage kept V8's major GC busy during floods.
 */
export function encodeOutputFrame(
  session: string,
  chunks: readonly Uint8Array[],
  bytes: number,
): Buffer {
  const sessionBytes = Buffer.byteLength(session);
  const sessionHeader = strHeader(sessionBytes);
  const dataHeader = binHeader(bytes);
  const payload =
    PREFIX.length +
    sessionHeader.length +
    sessionBytes +
    DATA_KEY.length +
    dataHeader.length +
    bytes;
  if (payload > MAX_PAYLOAD_SIZE) {
    throw new FrameError(
      'payload_too_large',
      `message of ${payload} bytes exceeds the ${MAX_PAYLOAD_SIZE}-byte frame limit`,
    );
  }
  const frame = Buffer.allocUnsafe(FRAME_HEADER_SIZE + payload);
  let at = frame.writeUInt32BE(payload, 0);
  at += PREFIX.copy(frame, at);
  for (const b of sessionHeader) frame[at++] = b;
  at += frame.write(session, at, 'utf8');
  at += DATA_KEY.copy(frame, at);
  for (const b of dataHeader) frame[at++] = b;
  for (const c of chunks) {
    frame.set(c, at);
    at += c.length;
  }
  if (at !== frame.length)
    throw new RangeError(`output frame: the chunks do not hold ${bytes} bytes`);
  return frame;
}
