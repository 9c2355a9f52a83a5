import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOG_MAX_BYTES, LOG_REOPEN_INTERVAL_MS } from './constants.js';
import { closeLogger, createLogger, logHealth, logMaxBytes, type Logger } from './log.js';

const dirs: string[] = [];
const loggers: Logger[] = [];

afterEach(() => {
  vi.restoreAllMocks();
  for (const l of loggers.splice(0)) closeLogger(l);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'clippy-log-'));
  dirs.push(d);
  return d;
}

function logger(file: string, maxBytes?: number): Logger {
  const l = createLogger({ level: 'info', file, maxBytes });
  loggers.push(l);
  return l;
}

function jsonLines(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('the log never throws', () => {
  it('a log that is a symbolic link is never written through: lines are dropped and counted, the error says why', () => {
    const dir = tempDir();
    const file = join(dir, 'clippyd.log');
    // Another user's planted link would have the daemon append to a file of the user's choice.
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'untouched\n');
    symlinkSync(victim, file);
    const log = logger(file);
    expect(() => {
      log.info('one');
      log.error({ err: new Error('boom') }, 'two');
    }).not.toThrow();
    expect(logHealth(log)).toMatchObject({
      destination: 'none',
      droppedLines: 2,
      lastError: `${file} is a symbolic link (to ${victim}): clippy never opens its files through one`,
      maxBytes: LOG_MAX_BYTES,
    });
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
  });

  it('a file that cannot be opened: no throw, nothing written, tried again later', () => {
    const dir = tempDir();
    // Where the log's directory should be there is a file.
    writeFileSync(join(dir, 'clippy'), 'in the way');
    const file = join(dir, 'clippy', 'clippyd.log');
    const log = logger(file);
    log.info('lost');
    expect(logHealth(log)).toMatchObject({
      destination: 'none',
      droppedLines: 1,
      lastError: expect.stringMatching(/EEXIST|ENOTDIR/),
    });

    // Fixed by the user; the next line after the retry interval opens the file again.
    rmSync(join(dir, 'clippy'));
    log.info('still lost: not retried yet');
    expect(existsSync(file)).toBe(false);
    const later = Date.now() + LOG_REOPEN_INTERVAL_MS;
    vi.spyOn(Date, 'now').mockReturnValue(later);
    log.info('back');
    expect(logHealth(log)).toMatchObject({ destination: 'file', droppedLines: 2 });
    const lines = jsonLines(file);
    expect(lines.map((l) => l.msg)).toEqual(['log lines dropped', 'back']);
    expect(lines[0]).toMatchObject({ dropped: 2, error: expect.stringMatching(/EEXIST|ENOTDIR/) });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe('rotation', () => {
  it('keeps clippyd.log and one clippyd.log.1, each within the bound, in whole lines', () => {
    const dir = tempDir();
    const file = join(dir, 'clippyd.log');
    const bound = 1000;
    const log = logger(file, bound);
    for (let i = 0; i < 60; i++) log.info({ i }, 'a line of about a hundred bytes');
    expect(statSync(file).size).toBeLessThanOrEqual(bound);
    expect(statSync(`${file}.1`).size).toBeLessThanOrEqual(bound);
    const current = jsonLines(file);
    const previous = jsonLines(`${file}.1`);
    // The newest lines, in order, across the two files; older ones went with earlier rotations.
    const seen = [...previous, ...current].map((l) => l.i as number);
    expect(seen.at(-1)).toBe(59);
    expect(seen).toEqual(seen.map((_, k) => seen[0]! + k));
    expect(logHealth(log)?.droppedLines).toBe(0);
  });

  it('the bound is LOG_MAX_BYTES unless the test seam gives a positive integer', () => {
    expect(logMaxBytes({})).toBe(LOG_MAX_BYTES);
    expect(logMaxBytes({ CLIPPYD_LOG_MAX_BYTES: '4096' })).toBe(4096);
    expect(logMaxBytes({ CLIPPYD_LOG_MAX_BYTES: '-1' })).toBe(LOG_MAX_BYTES);
    expect(logMaxBytes({ CLIPPYD_LOG_MAX_BYTES: 'lots' })).toBe(LOG_MAX_BYTES);
  });
});
