import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readUntil } from './record-wait.js';

/**
 * A wait no test lasts: a `readUntil` that did not wake on the write would outlast the test's
 * own timeout, so each test below fails by timing out when the wake is broken.
 */
const NEVER_MS = 600_000;
/** How late the record is written in the tests of a lagging agent (the scenario, not a wait). */
const LATE_MS = 100;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clippy-record-wait-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const lines = (path: string) => async () => {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
};
const hasEnd = (l: string[]) => l.includes('end');

describe('readUntil', () => {
  it('returns the first read when it holds what is waited for, without a second', async () => {
    const path = join(dir, 'r.jsonl');
    writeFileSync(path, 'prompt\nend\n');
    let reads = 0;
    const read = lines(path);
    const t = await readUntil(path, () => (reads++, read()), hasEnd, NEVER_MS);
    expect(t).toEqual(['prompt', 'end']);
    expect(reads).toBe(1);
  });

  it('waits for the record to be written: woken by the write, it returns what was written', async () => {
    const path = join(dir, 'r.jsonl');
    writeFileSync(path, 'prompt\n');
    const late = setTimeout(() => appendFileSync(path, 'end\n'), LATE_MS);
    try {
      expect(await readUntil(path, lines(path), hasEnd, NEVER_MS)).toEqual(['prompt', 'end']);
    } finally {
      clearTimeout(late);
    }
  });

  it('a record whose folder does not exist yet is read again until it is written', async () => {
    const path = join(dir, 'later', 'r.jsonl');
    const late = setTimeout(() => {
      mkdirSync(join(dir, 'later'));
      writeFileSync(path, 'prompt\nend\n');
    }, LATE_MS);
    try {
      expect(await readUntil(path, lines(path), hasEnd, NEVER_MS)).toEqual(['prompt', 'end']);
    } finally {
      clearTimeout(late);
    }
  });

  it('a write during a read is not lost: the wait reads again instead of sleeping', async () => {
    const path = join(dir, 'r.jsonl');
    writeFileSync(path, 'prompt\n');
    const read = lines(path);
    let reads = 0;
    // The agent writes its end while the second read (the first once watched) is under way.
    const racing = async () => {
      const t = await read();
      if (++reads === 2) {
        appendFileSync(path, 'end\n');
        // The kernel's event arrives before the read returns.
        await new Promise((r) => setTimeout(r, LATE_MS));
      }
      return t;
    };
    expect(await readUntil(path, racing, hasEnd, NEVER_MS)).toEqual(['prompt', 'end']);
  });

  it('gives the last read once the wait is over when the record never holds it', async () => {
    const path = join(dir, 'r.jsonl');
    writeFileSync(path, 'prompt\n');
    expect(await readUntil(path, lines(path), hasEnd, LATE_MS)).toEqual(['prompt']);
  });

  it('ends when its caller no longer needs it (aborted), with the last read, before its time', async () => {
    const path = join(dir, 'r.jsonl');
    writeFileSync(path, 'prompt\n');
    const stop = new AbortController();
    setTimeout(() => stop.abort(), LATE_MS);
    const t = await readUntil(path, lines(path), hasEnd, NEVER_MS, stop.signal);
    expect(t).toEqual(['prompt']);
  });
});
