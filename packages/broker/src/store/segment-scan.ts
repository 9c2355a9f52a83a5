import {
  RECORD_MAGIC,
  decodeRecordAt,
  type DecodedRecord,
  type RecordFault,
} from './record-format.js';

/** A stretch of a segment that holds no sound record (torn tail, flipped bits, garbage). */
export interface DamagedRange {
  start: number;
  end: number;
  fault: RecordFault;
}

export interface SegmentScan {
  records: DecodedRecord[];
  damaged: DamagedRange[];
}

const MAGIC_BYTES = Buffer.alloc(4);
MAGIC_BYTES.writeUInt32BE(RECORD_MAGIC, 0);

/**
 * Reads every sound record of a segment in order. Where a record is not sound, the scan looks
 * for the next offset holding one (its magic and checksum) and goes on from there: damage in the
 * middle of a segment costs only the damaged records.
 */
export function scanSegment(buf: Buffer): SegmentScan {
  const records: DecodedRecord[] = [];
  const damaged: DamagedRange[] = [];
  let offset = 0;
  while (offset < buf.length) {
    const r = decodeRecordAt(buf, offset);
    if (typeof r !== 'string') {
      records.push(r);
      offset += r.length;
      continue;
    }
    let next = -1;
    for (let at = buf.indexOf(MAGIC_BYTES, offset + 1); at !== -1;) {
      if (typeof decodeRecordAt(buf, at) !== 'string') {
        next = at;
        break;
      }
      at = buf.indexOf(MAGIC_BYTES, at + 1);
    }
    damaged.push({ start: offset, end: next === -1 ? buf.length : next, fault: r });
    if (next === -1) break;
    offset = next;
  }
  return { records, damaged };
}
