import { createHash } from 'node:crypto';
import {
  MAX_RECORD_PAYLOAD_BYTES,
  readPayload,
  type DecodedRecord,
  type RecordFault,
} from './record-format.js';

/**
 * The store's first record format, which segments written before segment keys hold:
 *
 *   magic "CLTR" u32 | payload length u32 | first 4 bytes of SHA-256(payload) | payload
 *
 * with the same payload as format 2. Such segments are read in place (never appended to; new
 * records go to a new segment) until retention drops them. Their checksum is no secret — a
 * session can print bytes that pass it — so a scan of one never resynchronises: it reads
 * records one after the other from the start, and from the first unsound one on, the rest of
 * the segment is moved aside (see segment-scan.ts). A record that checks out but whose fields
 * cannot be used (`bad_meta`) is skipped alone: its checksum proves its length.
 */
export const LEGACY_RECORD_MAGIC = 0x434c5452; // "CLTR"
export const LEGACY_HEADER_BYTES = 12;

export function decodeLegacyRecordAt(buf: Buffer, at: number): DecodedRecord | RecordFault {
  if (at + LEGACY_HEADER_BYTES > buf.length) return 'torn';
  if (buf.readUInt32BE(at) !== LEGACY_RECORD_MAGIC) return 'bad_magic';
  const length = buf.readUInt32BE(at + 4);
  if (length < 4 || length > MAX_RECORD_PAYLOAD_BYTES) return 'bad_length';
  const end = at + LEGACY_HEADER_BYTES + length;
  if (end > buf.length) return 'torn';
  const payload = buf.subarray(at + LEGACY_HEADER_BYTES, end);
  if (createHash('sha256').update(payload).digest().readUInt32BE(0) !== buf.readUInt32BE(at + 8))
    return 'checksum';
  return readPayload(buf, at, at + LEGACY_HEADER_BYTES, end);
}
