import { closeSync, constants, fsyncSync, readdirSync, renameSync, rmSync } from 'node:fs';
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
import { openOwnSync, ownFolder, readOwnFileSync, writeOwnFileSync } from '../own-files.js';

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
    // The user's own folder (0700), not a link to one: its files are read and rewritten here.
    ownFolder(dir, 'the history folder', false);
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const numbers = names
    .map((n) => SEGMENT_FILE.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const damage: string[] = [];
  for (const n of numbers) {
    let buf: Buffer = readOwnFileSync(join(dir, segmentFileName(n)));
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
    return readOwnFileSync(join(dir, keyFileName(n)));
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
  ownFolder(aside, 'the history folder of damaged records');
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  let bytes = 0;
  for (const d of scan.damaged) {
    const file = join(aside, `${segmentFileName(n)}.${d.start}-${d.end}.${stamp}.bad`);
    writeOwnFileSync(file, buf.subarray(d.start, d.end));
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
  // A leftover of a crash here is not written through (it may be a link): made anew.
  rmSync(tmp, { force: true });
  writeOwnFileSync(tmp, data);
  const fd = openOwnSync(tmp, constants.O_RDONLY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}
