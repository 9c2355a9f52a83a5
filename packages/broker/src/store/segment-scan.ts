import { LEGACY_HEADER_BYTES, LEGACY_RECORD_MAGIC, decodeLegacyRecordAt } from './legacy-format.js';
import {
  RECORD_MAGIC_BYTES,
  decodeRecordAt,
  type DecodedRecord,
  type RecordFault,
  type SegmentKey,
} from './record-format.js';
import { SEGMENT_HEADER_BYTES, readSegmentKey } from './segment-file.js';

/** A stretch of a segment that holds no sound record (torn tail, flipped bits, garbage). */
export interface DamagedRange {
  start: number;
  end: number;
  fault: RecordFault | 'bad_header' | 'no_key';
}

export interface SegmentScan {
  /** 2: a header, then keyed records; 1: the first format (read in place, never appended to). */
  format: 1 | 2;
  /** The segment's key (format 2), from its header or else its key file; null when neither checks out. */
  key: SegmentKey | null;
  records: DecodedRecord[];
  damaged: DamagedRange[];
}

/**
 * Reads every sound record of a segment in order. Format 2: where a record is not sound, the
 * scan goes on at the next offset holding a record that verifies under the segment's key — one
 * the store wrote there, never bytes a session printed — so damage costs only the damaged
 * records. Format 1 (no key): records are read from the start while they are sound (one whose
 * checksum holds but whose fields cannot be used is skipped alone); from the first that is not,
 * the rest is damage — resynchronising there could land on records a session printed.
 */
export function scanSegment(buf: Buffer, keyFile: Buffer | null): SegmentScan {
  if (buf.length >= 4 && buf.readUInt32BE(0) === LEGACY_RECORD_MAGIC) return scanLegacy(buf);
  const headerKey = readSegmentKey(buf);
  const key = headerKey ?? readSegmentKey(keyFile);
  if (!key) {
    const damaged: DamagedRange[] =
      buf.length > 0 ? [{ start: 0, end: buf.length, fault: 'no_key' }] : [];
    return { format: 2, key: null, records: [], damaged };
  }
  const records: DecodedRecord[] = [];
  const damaged: DamagedRange[] = [];
  if (!headerKey)
    damaged.push({
      start: 0,
      end: Math.min(SEGMENT_HEADER_BYTES, buf.length),
      fault: 'bad_header',
    });
  let offset = SEGMENT_HEADER_BYTES;
  while (offset < buf.length) {
    const r = decodeRecordAt(buf, offset, key);
    if (typeof r !== 'string') {
      records.push(r);
      offset += r.length;
      continue;
    }
    const next = nextRecord(buf, offset + 1, key);
    damaged.push({ start: offset, end: next ?? buf.length, fault: r });
    if (next === null) break;
    offset = next;
  }
  return { format: 2, key, records, damaged };
}

/** The offset of the next record from `from` that verifies under `key`, or null. */
function nextRecord(buf: Buffer, from: number, key: SegmentKey): number | null {
  for (let at = buf.indexOf(RECORD_MAGIC_BYTES, from); at !== -1;) {
    if (typeof decodeRecordAt(buf, at, key) !== 'string') return at;
    at = buf.indexOf(RECORD_MAGIC_BYTES, at + 1);
  }
  return null;
}

function scanLegacy(buf: Buffer): SegmentScan {
  const records: DecodedRecord[] = [];
  const damaged: DamagedRange[] = [];
  let offset = 0;
  while (offset < buf.length) {
    const r = decodeLegacyRecordAt(buf, offset);
    if (typeof r !== 'string') {
      records.push(r);
      offset += r.length;
    } else if (r === 'bad_meta') {
      // Its checksum held: the next record begins where its length says.
      const end = offset + LEGACY_HEADER_BYTES + buf.readUInt32BE(offset + 4);
      damaged.push({ start: offset, end, fault: r });
      offset = end;
    } else {
      damaged.push({ start: offset, end: buf.length, fault: r });
      break;
    }
  }
  return { format: 1, key: null, records, damaged };
}
