import { createHmac, type KeyObject } from 'node:crypto';
import { checkMeta, type OtherMeta, type RecordMeta } from './record-meta.js';

/**
 * The turn store's on-disk record (format 2):
 *
 *   magic "CLR2" u32 | payload length u32 | head tag (4 bytes) | body tag (16 bytes) | payload
 *   payload = meta length u32 | meta (JSON) | blob…
 *
 * all big-endian. The tags are HMAC-SHA256 under the segment's key (a random secret kept in
 * the segment's header and key file, never in a turn or a message): the head tag covers the
 * record's offset in the segment and its length, the body tag those and the payload. A
 * session's output is stored inside payloads, and whatever it prints it cannot produce a
 * record that verifies — it does not know the key — so a scan that resynchronises after damage
 * lands only on records the store wrote. The offset in the tags keeps even a copy of a real
 * record (a session that `cat`s the segment) from verifying anywhere but where it was written.
 * The head tag is checked first: a candidate costs a short HMAC, not a hash of its claimed
 * length, so content full of magic numbers cannot slow a scan down much.
 */
export const RECORD_MAGIC = 0x434c5232; // "CLR2"
const HEAD_TAG_BYTES = 4;
const BODY_TAG_BYTES = 16;
export const RECORD_HEADER_BYTES = 8 + HEAD_TAG_BYTES + BODY_TAG_BYTES;
/** Largest payload a scan accepts: a 12 MiB turn with its text and meta fits with room. */
export const MAX_RECORD_PAYLOAD_BYTES = 64 * 1024 * 1024;

export const RECORD_MAGIC_BYTES = Buffer.alloc(4);
RECORD_MAGIC_BYTES.writeUInt32BE(RECORD_MAGIC, 0);

/** A segment's key as the tags use it. */
export type SegmentKey = KeyObject;

/** A record read back: its meta and where its blobs start in the buffer it was read from. */
export interface DecodedRecord {
  meta: RecordMeta | OtherMeta;
  /** Offset of the record in the buffer. */
  offset: number;
  /** Whole record length (header included). */
  length: number;
  /** Offset of the first blob in the buffer. */
  blobsAt: number;
}

/**
 * Why the bytes at an offset are not a sound record. `bad_meta`: the record checks out (its
 * extent is sure) but its fields cannot be used.
 */
export type RecordFault = 'bad_magic' | 'bad_length' | 'torn' | 'checksum' | 'bad_meta';

/**
 * A record with its header left blank: it is sealed (`sealRecord`) where it lands, as the
 * tags cover its offset.
 */
export function encodeRecord(meta: RecordMeta, blobs: Uint8Array[] = []): Buffer {
  const metaBytes = Buffer.from(JSON.stringify(meta));
  let length = RECORD_HEADER_BYTES + 4 + metaBytes.length;
  for (const b of blobs) length += b.length;
  const out = Buffer.allocUnsafe(length);
  out.fill(0, 0, RECORD_HEADER_BYTES);
  out.writeUInt32BE(metaBytes.length, RECORD_HEADER_BYTES);
  let at = RECORD_HEADER_BYTES + 4 + metaBytes.copy(out, RECORD_HEADER_BYTES + 4);
  for (const b of blobs) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

/** An unsealed record holding `payload` (copied). */
export function recordAround(payload: Uint8Array): Buffer {
  const out = Buffer.alloc(RECORD_HEADER_BYTES + payload.length);
  out.set(payload, RECORD_HEADER_BYTES);
  return out;
}

/** Offset of the first blob in an encoded record. */
export function blobsOffset(record: Buffer): number {
  return RECORD_HEADER_BYTES + 4 + record.readUInt32BE(RECORD_HEADER_BYTES);
}

/** Fills in the header of a record that will be written at `offset` of its segment. */
export function sealRecord(record: Buffer, key: SegmentKey, offset: number): void {
  const length = record.length - RECORD_HEADER_BYTES;
  record.writeUInt32BE(RECORD_MAGIC, 0);
  record.writeUInt32BE(length, 4);
  headTag(key, offset, length).copy(record, 8);
  bodyTag(key, offset, length, record.subarray(RECORD_HEADER_BYTES)).copy(
    record,
    8 + HEAD_TAG_BYTES,
  );
}

/**
 * Decodes the record at `at` of `buf`, or says why it is not sound. `base`: the segment
 * offset of `buf[0]` (a record read alone is checked against where it lies in its segment).
 */
export function decodeRecordAt(
  buf: Buffer,
  at: number,
  key: SegmentKey,
  base = 0,
): DecodedRecord | RecordFault {
  if (at + RECORD_HEADER_BYTES > buf.length) return 'torn';
  if (buf.readUInt32BE(at) !== RECORD_MAGIC) return 'bad_magic';
  const length = buf.readUInt32BE(at + 4);
  if (length < 4 || length > MAX_RECORD_PAYLOAD_BYTES) return 'bad_length';
  if (!headTag(key, base + at, length).equals(buf.subarray(at + 8, at + 8 + HEAD_TAG_BYTES)))
    return 'checksum';
  const end = at + RECORD_HEADER_BYTES + length;
  if (end > buf.length) return 'torn';
  const payload = buf.subarray(at + RECORD_HEADER_BYTES, end);
  const tag = buf.subarray(at + 8 + HEAD_TAG_BYTES, at + RECORD_HEADER_BYTES);
  if (!bodyTag(key, base + at, length, payload).equals(tag)) return 'checksum';
  return readPayload(buf, at, at + RECORD_HEADER_BYTES, end);
}

/** The meta of the payload in `buf[start, end)`, checked against its blobs. */
export function readPayload(
  buf: Buffer,
  offset: number,
  start: number,
  end: number,
): DecodedRecord | RecordFault {
  const metaLength = buf.readUInt32BE(start);
  if (metaLength > end - start - 4) return 'bad_meta';
  const blobsAt = start + 4 + metaLength;
  let raw: unknown;
  try {
    raw = JSON.parse(buf.toString('utf8', start + 4, blobsAt));
  } catch {
    return 'bad_meta';
  }
  const meta = checkMeta(raw, end - blobsAt);
  if (!meta) return 'bad_meta';
  return { meta, offset, length: end - offset, blobsAt };
}

function headTag(key: SegmentKey, offset: number, length: number): Buffer {
  return createHmac('sha256', key)
    .update(position('h', offset, length))
    .digest()
    .subarray(0, HEAD_TAG_BYTES);
}

function bodyTag(key: SegmentKey, offset: number, length: number, payload: Uint8Array): Buffer {
  return createHmac('sha256', key)
    .update(position('b', offset, length))
    .update(payload)
    .digest()
    .subarray(0, BODY_TAG_BYTES);
}

/** What a tag covers besides the payload: which tag, the record's offset and its length. */
function position(which: 'h' | 'b', offset: number, length: number): Buffer {
  const b = Buffer.alloc(13);
  b.write(which, 0, 'latin1');
  b.writeBigUInt64BE(BigInt(offset), 1);
  b.writeUInt32BE(length, 9);
  return b;
}
