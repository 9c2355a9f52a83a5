import { createHash } from 'node:crypto';

/**
 * The turn store's on-disk record: `magic u32 | length u32 | checksum u32 | payload`, all
 * big-endian. The payload is `metaLength u32 | meta (JSON) | blob…`: small fields as JSON, the
 * turn's exact bytes and its text as raw blobs whose lengths the meta gives. The checksum (the
 * first 4 bytes of the payload's SHA-256) lets a scan tell a sound record from a torn or
 * damaged one; the magic lets it find the next sound record after damage.
 */
export const RECORD_MAGIC = 0x434c5452; // "CLTR"
export const RECORD_HEADER_BYTES = 12;
/** Largest payload a scan accepts: a 12 MiB turn with its text and meta fits with room. */
export const MAX_RECORD_PAYLOAD_BYTES = 64 * 1024 * 1024;

/** A session as it was spawned: what `ls -a` shows of it after a restart. */
export interface SessionMeta {
  k: 'session';
  id: string;
  name: string;
  command: string;
  args: string[];
  cwd: string;
  preset: string;
  created_at: number;
  cols: number;
  rows: number;
}

/** A completed turn; `cl`/`tl` are the byte lengths of its content and text blobs. */
export interface TurnRecordMeta {
  k: 'turn';
  session: string;
  seq: number;
  timestamp: number;
  interrupted: boolean;
  truncated: boolean;
  duration_ms: number;
  prompt: string;
  cl: number;
  tl: number;
}

/** The session's process ended; `sl`: the final screen's length (a blob), 0 when none. */
export interface ExitMeta {
  k: 'exit';
  session: string;
  exited_at: number;
  exit_code: number | null;
  exit_signal: string | null;
  cols: number;
  rows: number;
  sl: number;
}

/** `clippy rm`: the session is forgotten (its turns are no longer restored or searched). */
export interface RemoveMeta {
  k: 'remove';
  session: string;
  at: number;
}

export type RecordMeta = SessionMeta | TurnRecordMeta | ExitMeta | RemoveMeta;

function checksum(payload: Uint8Array): number {
  return createHash('sha256').update(payload).digest().readUInt32BE(0);
}

/** One record, ready to append. */
export function encodeRecord(meta: RecordMeta, blobs: Uint8Array[] = []): Buffer {
  const metaBytes = Buffer.from(JSON.stringify(meta));
  let payloadLength = 4 + metaBytes.length;
  for (const b of blobs) payloadLength += b.length;
  const out = Buffer.allocUnsafe(RECORD_HEADER_BYTES + payloadLength);
  out.writeUInt32BE(RECORD_MAGIC, 0);
  out.writeUInt32BE(payloadLength, 4);
  let at = RECORD_HEADER_BYTES;
  out.writeUInt32BE(metaBytes.length, at);
  at += 4;
  at += metaBytes.copy(out, at);
  for (const b of blobs) {
    out.set(b, at);
    at += b.length;
  }
  out.writeUInt32BE(checksum(out.subarray(RECORD_HEADER_BYTES)), 8);
  return out;
}

/** A record read back: its meta and where its blobs start in the buffer it was read from. */
export interface DecodedRecord {
  meta: RecordMeta;
  /** Offset of the record in the buffer. */
  offset: number;
  /** Whole record length (header included). */
  length: number;
  /** Offset of the first blob in the buffer. */
  blobsAt: number;
}

/** Why the bytes at an offset are not a sound record. */
export type RecordFault = 'bad_magic' | 'torn' | 'checksum' | 'bad_meta';

/** Decodes the record at `offset`, or says why it is not sound. */
export function decodeRecordAt(buf: Buffer, offset: number): DecodedRecord | RecordFault {
  if (offset + RECORD_HEADER_BYTES > buf.length) return 'torn';
  if (buf.readUInt32BE(offset) !== RECORD_MAGIC) return 'bad_magic';
  const payloadLength = buf.readUInt32BE(offset + 4);
  if (payloadLength < 4 || payloadLength > MAX_RECORD_PAYLOAD_BYTES) return 'bad_meta';
  const end = offset + RECORD_HEADER_BYTES + payloadLength;
  if (end > buf.length) return 'torn';
  const payload = buf.subarray(offset + RECORD_HEADER_BYTES, end);
  if (checksum(payload) !== buf.readUInt32BE(offset + 8)) return 'checksum';
  const metaLength = payload.readUInt32BE(0);
  if (metaLength > payload.length - 4) return 'bad_meta';
  let meta: RecordMeta;
  try {
    meta = JSON.parse(payload.subarray(4, 4 + metaLength).toString('utf8')) as RecordMeta;
  } catch {
    return 'bad_meta';
  }
  if (!meta || typeof meta !== 'object' || typeof meta.k !== 'string') return 'bad_meta';
  const blobsAt = offset + RECORD_HEADER_BYTES + 4 + metaLength;
  if (meta.k === 'turn' && blobsAt + meta.cl + meta.tl !== end) return 'bad_meta';
  if (meta.k === 'exit' && blobsAt + meta.sl !== end) return 'bad_meta';
  return { meta, offset, length: end - offset, blobsAt };
}
