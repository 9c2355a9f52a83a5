import {
  chmodSync,
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { LEGACY_HEADER_BYTES } from './legacy-format.js';
import { RECORD_HEADER_BYTES, recordAround, sealRecord } from './record-format.js';
import {
  SEGMENT_HEADER_BYTES,
  keyFileName,
  newSegmentKey,
  segmentFileName,
  segmentHeader,
} from './segment-file.js';
import { scanSegment, type SegmentScan } from './segment-scan.js';

const SEGMENT_FILE = /^(\d{6})\.seg$/;

/**
 * Reads every segment of the history in order and hands each one's sound records to `segment`
 * (its number, its scan, its size). A segment with damage has each damaged stretch copied to
 * `damaged/` and is rewritten with its sound records (format 2: a first-format segment is
 * converted then) before it is handed on. Returns what was damaged, one line per segment, for
 * the warning; an empty list when all was sound or there is no history yet.
 */
export function readHistory(
  dir: string,
  segment: (n: number, scan: SegmentScan, size: number) => void,
): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  if ((lstatSync(dir).mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
  const numbers = names
    .map((n) => SEGMENT_FILE.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const damage: string[] = [];
  for (const n of numbers) {
    let buf: Buffer = readFileSync(join(dir, segmentFileName(n)));
    let scan = scanSegment(buf, readKeyFile(dir, n));
    if (scan.damaged.length > 0) {
      const repaired = repair(dir, n, buf, scan);
      damage.push(repaired.summary);
      buf = repaired.buf;
      scan = scanSegment(buf, null);
    }
    segment(n, scan, buf.length);
  }
  return damage;
}

function readKeyFile(dir: string, n: number): Buffer | null {
  try {
    return readFileSync(join(dir, keyFileName(n)));
  } catch {
    return null;
  }
}

/**
 * Copies each damaged stretch of segment `n` into `damaged/`, then rewrites the segment with
 * its sound records only, sealed at their new offsets under its key (a new one when it had
 * none): the key file first, then the segment, each written beside its file, synced and
 * renamed over it, so a crash here loses nothing.
 */
function repair(
  dir: string,
  n: number,
  buf: Buffer,
  scan: SegmentScan,
): { buf: Buffer; summary: string } {
  const aside = join(dir, 'damaged');
  mkdirSync(aside, { recursive: true, mode: 0o700 });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  let bytes = 0;
  for (const d of scan.damaged) {
    const file = join(aside, `${segmentFileName(n)}.${d.start}-${d.end}.${stamp}.bad`);
    writeFileSync(file, buf.subarray(d.start, d.end), { mode: 0o600 });
    bytes += d.end - d.start;
  }
  const key = scan.key ?? newSegmentKey();
  const header = segmentHeader(key);
  const headerBytes = scan.format === 1 ? LEGACY_HEADER_BYTES : RECORD_HEADER_BYTES;
  const parts = [header];
  let at = SEGMENT_HEADER_BYTES;
  for (const r of scan.records) {
    const record = recordAround(buf.subarray(r.offset + headerBytes, r.offset + r.length));
    sealRecord(record, key, at);
    parts.push(record);
    at += record.length;
  }
  const sound = Buffer.concat(parts);
  replaceFile(join(dir, keyFileName(n)), header);
  replaceFile(join(dir, segmentFileName(n)), sound);
  const faults = [...new Set(scan.damaged.map((d) => d.fault))].join(', ');
  return {
    buf: sound,
    summary: `${segmentFileName(n)}: ${bytes} bytes (${faults}) moved to ${aside}, ${scan.records.length} records kept`,
  };
}

/** Writes `file` whole or not at all: beside it, synced, renamed over it. */
function replaceFile(file: string, data: Buffer): void {
  const tmp = `${file}.rewrite`;
  writeFileSync(tmp, data, { mode: 0o600 });
  const fd = openSync(tmp, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}
