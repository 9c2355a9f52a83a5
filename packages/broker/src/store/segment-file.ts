import { createHash, createSecretKey, randomBytes } from 'node:crypto';
import type { SegmentKey } from './record-format.js';

/**
 * A segment's files: `NNNNNN.seg` (a header, then records) and `NNNNNN.key` (the header again).
 * The header holds the segment's key, 32 random bytes made when the segment begins:
 *
 *   magic "CLSG" u32 | format u32 (2) | key (32 bytes) | checksum u32 (SHA-256 of the above)
 *
 * The key file is a second copy, so that damage to the start of a segment does not cost every
 * record in it: either copy that checks out gives the key.
 */
const SEGMENT_MAGIC = 0x434c5347; // "CLSG"
const SEGMENT_FORMAT = 2;
const KEY_BYTES = 32;
export const SEGMENT_HEADER_BYTES = 8 + KEY_BYTES + 4;

export function segmentFileName(segment: number): string {
  return `${String(segment).padStart(6, '0')}.seg`;
}

export function keyFileName(segment: number): string {
  return `${String(segment).padStart(6, '0')}.key`;
}

/** A new segment's key: 32 random bytes. */
export function newSegmentKey(): SegmentKey {
  return createSecretKey(randomBytes(KEY_BYTES));
}

/** The header of a segment whose key is `key` (the key file holds the same bytes). */
export function segmentHeader(key: SegmentKey): Buffer {
  const header = Buffer.alloc(SEGMENT_HEADER_BYTES);
  header.writeUInt32BE(SEGMENT_MAGIC, 0);
  header.writeUInt32BE(SEGMENT_FORMAT, 4);
  key.export().copy(header, 8);
  checksum(header.subarray(0, 8 + KEY_BYTES)).copy(header, 8 + KEY_BYTES);
  return header;
}

/** The key in a header (a segment's start or a key file), or null if it does not check out. */
export function readSegmentKey(buf: Buffer | null): SegmentKey | null {
  if (!buf || buf.length < SEGMENT_HEADER_BYTES) return null;
  if (buf.readUInt32BE(0) !== SEGMENT_MAGIC || buf.readUInt32BE(4) !== SEGMENT_FORMAT) return null;
  const sum = buf.subarray(8 + KEY_BYTES, SEGMENT_HEADER_BYTES);
  if (!checksum(buf.subarray(0, 8 + KEY_BYTES)).equals(sum)) return null;
  return createSecretKey(Buffer.from(buf.subarray(8, 8 + KEY_BYTES)));
}

function checksum(bytes: Buffer): Buffer {
  return createHash('sha256').update(bytes).digest().subarray(0, 4);
}
