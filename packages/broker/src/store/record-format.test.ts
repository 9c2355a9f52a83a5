import { describe, expect, it } from 'vitest';
import { RECORD_HEADER_BYTES, decodeRecordAt, encodeRecord, sealRecord } from './record-format.js';
import { newSegmentKey, readSegmentKey, segmentHeader } from './segment-file.js';

// A keyed record verifies only under its segment's key and only where it was written.

const meta = { k: 'remove' as const, session: 'aaaaaa', at: 1 };

function sealed(offset: number, key = newSegmentKey()) {
  const record = encodeRecord(meta);
  sealRecord(record, key, offset);
  return { record, key };
}

describe('keyed records', () => {
  it('decode where they were sealed, under their key', () => {
    const { record, key } = sealed(1000);
    const r = decodeRecordAt(record, 0, key, 1000);
    expect(typeof r === 'string' ? r : r.meta).toEqual(meta);
    const placed = Buffer.concat([Buffer.alloc(1000), record]);
    expect(typeof decodeRecordAt(placed, 1000, key)).toBe('object');
  });

  it('a copy elsewhere, another key or any changed byte does not verify', () => {
    const { record, key } = sealed(1000);
    expect(decodeRecordAt(record, 0, key, 1001)).toBe('checksum');
    expect(decodeRecordAt(record, 0, newSegmentKey(), 1000)).toBe('checksum');
    for (let i = 8; i < record.length; i++) {
      const bad = Buffer.from(record);
      bad[i] = bad[i]! ^ 1;
      expect(decodeRecordAt(bad, 0, key, 1000), `byte ${i}`).toBe('checksum');
    }
    expect(decodeRecordAt(record.subarray(0, record.length - 1), 0, key, 1000)).toBe('torn');
    const long = Buffer.from(record);
    long.writeUInt32BE(0xffffffff, 4);
    expect(decodeRecordAt(long, 0, key, 1000)).toBe('bad_length');
    expect(record.length).toBe(RECORD_HEADER_BYTES + 4 + JSON.stringify(meta).length);
  });

  it("a segment's header gives its key back; a damaged one gives none", () => {
    const key = newSegmentKey();
    const header = segmentHeader(key);
    const { record } = sealed(44, key);
    expect(typeof decodeRecordAt(record, 0, readSegmentKey(header)!, 44)).toBe('object');
    header[20] = header[20]! ^ 1;
    expect(readSegmentKey(header)).toBeNull();
  });
});
