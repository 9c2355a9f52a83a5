import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TurnStore } from './turn-store.js';
import { segmentFileName } from './segment-file.js';
import { STORE_RESUME_RETRY_MS } from './segment-writer.js';
import { captureLogger, testSessionMeta, testTurn, turnContent } from '../test-support/history.js';

// The turn store on a real directory: what survives a reopen, what damage costs, what a full
// disk does, retention and search.

let root: string;
let dir: string;
let lines: string[];
const stores: TurnStore[] = [];

function openStore(opts: Partial<Parameters<typeof TurnStore.open>[0]> = {}): TurnStore {
  const s = TurnStore.open({ dir, log: captureLogger(lines), ...opts });
  stores.push(s);
  return s;
}

const content = turnContent;
const turn = testTurn;

async function session(s: TurnStore, id: string): Promise<void> {
  await s.persistSession(testSessionMeta(id));
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'clippy-store-'));
  dir = join(root, 'history');
  lines = [];
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  try {
    execFileSync('umount', [join(root, 'tiny')], { stdio: 'ignore' });
  } catch {
    // not mounted
  }
  rmSync(root, { recursive: true, force: true });
});

describe('turn store', () => {
  it('creates nothing until something is persisted; then dir 0700, files 0600', async () => {
    const s = openStore();
    expect(existsSync(dir)).toBe(false);
    await session(s, 'aaaaaa');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(dir)) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
  });

  it('turns written are read back byte-exact after a reopen', async () => {
    const s = openStore();
    await session(s, 'aaaaaa');
    for (let i = 1; i <= 50; i++)
      expect(await s.persistTurn(turn('aaaaaa', i, `answer ${i}`))).toBe(true);
    await s.close();
    const again = openStore();
    const p = again.session('aaaaaa')!;
    expect(p.meta.name).toBe('name-aaaaaa');
    expect(p.turns.map((t) => t.meta.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    for (const ref of p.turns) {
      const got = await again.readTurn(ref);
      expect(got.content.equals(content(ref.meta.seq))).toBe(true);
      expect(got.text).toBe(`answer ${ref.meta.seq}`);
    }
    expect(again.warning).toBeNull();
  });

  it('a damaged record in the middle: the rest is kept, the damage moved aside and logged', async () => {
    const s = openStore();
    await session(s, 'aaaaaa');
    for (let i = 1; i <= 3; i++) await s.persistTurn(turn('aaaaaa', i, `answer ${i}`));
    const second = s.session('aaaaaa')!.turns[1]!;
    await s.close();
    const file = join(dir, segmentFileName(second.segment));
    const bytes = readFileSync(file);
    bytes[second.offset + 40] = bytes[second.offset + 40]! ^ 0xff; // a flipped bit inside turn 2
    writeFileSync(file, bytes);

    const again = openStore();
    expect(again.session('aaaaaa')!.turns.map((t) => t.meta.seq)).toEqual([1, 3]);
    const third = again.session('aaaaaa')!.turns[1]!;
    expect((await again.readTurn(third)).content.equals(content(3))).toBe(true);
    expect(again.warning).toMatch(/damaged history found at start: .*checksum/);
    expect(lines.join('')).toMatch(/damaged records moved aside/);
    const aside = readdirSync(join(dir, 'damaged'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dir, 'damaged', aside[0]!)).length).toBe(second.length);
    await again.close();
    // The segment was rewritten sound: the next open finds nothing wrong.
    expect(openStore().warning).toBeNull();
  });

  it('a torn tail (cut mid-record) and trailing garbage are moved aside; appending goes on', async () => {
    const s = openStore();
    await session(s, 'aaaaaa');
    for (let i = 1; i <= 3; i++) await s.persistTurn(turn('aaaaaa', i, `answer ${i}`));
    await s.close();
    const file = join(dir, segmentFileName(1));
    truncateSync(file, statSync(file).size - 17);
    const again = openStore();
    expect(again.session('aaaaaa')!.turns.map((t) => t.meta.seq)).toEqual([1, 2]);
    expect(again.warning).toMatch(/torn/);
    expect(await again.persistTurn(turn('aaaaaa', 3, 'answer 3 again'))).toBe(true);
    await again.close();
    writeFileSync(file, Buffer.concat([readFileSync(file), Buffer.from('garbage\x00\xff')]));
    const third = openStore();
    expect(third.session('aaaaaa')!.turns.map((t) => t.meta.seq)).toEqual([1, 2, 3]);
    expect((await third.readTurn(third.session('aaaaaa')!.turns[2]!)).text).toBe('answer 3 again');
  });

  it('a segment that is all garbage: the daemon starts, the sound segments are kept', async () => {
    const s = openStore();
    await session(s, 'aaaaaa');
    await s.persistTurn(turn('aaaaaa', 1, 'one'));
    await s.close();
    writeFileSync(join(dir, segmentFileName(7)), Buffer.alloc(5000, 0x41), { mode: 0o600 });
    const again = openStore();
    expect(again.session('aaaaaa')!.turns).toHaveLength(1);
    expect(again.warning).toMatch(/000007\.seg: 5000 bytes/);
  });

  it('search: words from a word start, newest first, by session and time, with the lines', async () => {
    const s = openStore();
    await session(s, 'aaaaaa');
    await session(s, 'bbbbbb');
    const t0 = Date.now() - 10_000;
    await s.persistTurn(turn('aaaaaa', 1, 'We talked about the Migration.\nother line', 100, t0));
    await s.persistTurn(turn('bbbbbb', 1, 'nothing relevant here', 100, t0 + 1000));
    await s.persistTurn(turn('bbbbbb', 2, 'the migration plan is ready', 100, t0 + 2000));
    const hits = await s.search('migra');
    expect(hits.map((h) => `${h.ref.meta.session}:${h.ref.meta.seq}`)).toEqual([
      'bbbbbb:2',
      'aaaaaa:1',
    ]);
    expect(hits[1]!.lines).toEqual(['We talked about the Migration.']);
    expect((await s.search('migration plan')).map((h) => h.ref.meta.session)).toEqual(['bbbbbb']);
    expect((await s.search('migration', { session: 'aaaaaa' })).length).toBe(1);
    expect((await s.search('migration', { since: t0 + 1500 })).length).toBe(1);
    expect(await s.search('absent')).toEqual([]);
    // Survives a reopen: found while the index is rebuilt in the background, and after.
    await s.close();
    const again = openStore();
    expect((await again.search('plan')).map((h) => h.ref.meta.seq)).toEqual([2]);
    await again.indexed();
    expect(again.indexedWords).toBeGreaterThan(5);
    expect((await again.search('plan')).map((h) => h.ref.meta.seq)).toEqual([2]);
    expect((await again.search('migra')).length).toBe(2);
  });

  it('a long answer is indexed in pieces in the background; found before and after', async () => {
    const s = openStore();
    await session(s, 'aaaaaa');
    const long = `${'filler words here\n'.repeat(60_000)}the needle at the very end`;
    await s.persistTurn(turn('aaaaaa', 1, long));
    expect((await s.search('needle at the')).map((h) => h.lines)).toEqual([
      ['the needle at the very end'],
    ]);
    await s.indexed();
    expect((await s.search('needle at the')).length).toBe(1);
    expect((await s.search('very end')).length).toBe(1);
    expect(await s.search('needles')).toEqual([]);
  });

  it('a removed session is neither restored nor searched', async () => {
    const s = openStore();
    await session(s, 'aaaaaa');
    await s.persistTurn(turn('aaaaaa', 1, 'secret words'));
    await s.persistRemove('aaaaaa');
    expect(await s.search('secret')).toEqual([]);
    await s.close();
    const again = openStore();
    expect(again.persistedSessions()).toEqual([]);
    expect(await again.search('secret')).toEqual([]);
  });

  it('retention: above the size limit the oldest segments go; the session stays known', async () => {
    const s = openStore({ maxBytes: 200_000, segmentMaxBytes: 50_000 });
    await session(s, 'aaaaaa');
    for (let i = 1; i <= 100; i++) await s.persistTurn(turn('aaaaaa', i, `t${i}`, 5000));
    await s.enforceRetention();
    const st = s.status();
    expect(st.bytes).toBeLessThanOrEqual(200_000 + 50_000);
    const seqs = s.session('aaaaaa')!.turns.map((t) => t.meta.seq);
    expect(seqs[0]).toBeGreaterThan(1);
    expect(seqs.at(-1)).toBe(100);
    const hits = await s.search('t1', { limit: 1000 });
    expect(hits.map((h) => h.ref.meta.seq)).not.toContain(1);
    expect(hits.every((h) => seqs.includes(h.ref.meta.seq))).toBe(true);
    await s.close();
    const again = openStore({ maxBytes: 200_000, segmentMaxBytes: 50_000 });
    expect(again.session('aaaaaa')!.meta.name).toBe('name-aaaaaa');
    expect(again.session('aaaaaa')!.turns.at(-1)!.meta.seq).toBe(100);
    expect(readdirSync(dir).filter((f) => f.endsWith('.seg')).length).toBeLessThanOrEqual(6);
  });

  it('retention: segments older than the age limit go, the one being written stays', async () => {
    const s = openStore({ segmentMaxBytes: 20_000 });
    await session(s, 'aaaaaa');
    for (let i = 1; i <= 20; i++) await s.persistTurn(turn('aaaaaa', i, `t${i}`, 3000));
    const segments = readdirSync(dir).filter((f) => f.endsWith('.seg')).length;
    expect(segments).toBeGreaterThan(2);
    await s.enforceRetention(Date.now() + 31 * 24 * 3600 * 1000);
    expect(readdirSync(dir).filter((f) => f.endsWith('.seg'))).toHaveLength(1);
  });
});

describe('a full disk', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('pauses persistence with a warning, drops nothing already written, keeps the file sound', async (ctx) => {
    const tiny = join(root, 'tiny');
    mkdirSync(tiny);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', tiny], { stdio: 'ignore' });
    } catch {
      ctx.skip('the full-disk test mounts a tiny tmpfs: it needs root (CAP_SYS_ADMIN)');
    }
    // Room the test frees later, as a user deleting a file on a full disk does.
    const filler = join(tiny, 'filler');
    writeFileSync(filler, Buffer.alloc(16 * 1024));
    dir = join(tiny, 'history');
    const s = openStore();
    await session(s, 'aaaaaa');
    // The pause ends on a timer: faked, so the test says when writing is tried again.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let written = 0;
    for (let i = 1; i <= 40; i++) {
      if (await s.persistTurn(turn('aaaaaa', i, `t${i}`, 4000))) written = i;
      else break;
    }
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(40);
    expect(s.paused).toBe(true);
    expect(s.warning).toMatch(/persistence paused: .*ENOSPC/);
    expect(lines.join('')).toMatch(/persistence paused/);
    // While paused, turns are dropped at once (no wait, no throw).
    expect(await s.persistTurn(turn('aaaaaa', 99, 'dropped'))).toBe(false);
    // The one that failed and the one dropped: both kept in memory only, and counted.
    const pause = s.status().last_pause!;
    expect(pause).toMatchObject({ until: null, turns_not_written: 2 });
    expect(pause.reason).toMatch(/ENOSPC/);
    vi.advanceTimersByTime(STORE_RESUME_RETRY_MS);
    // Writing resumed: the pause stays in the status, ended, with what it cost.
    expect(s.paused).toBe(false);
    expect(s.status().last_pause).toMatchObject({ turns_not_written: 2, since: pause.since });
    expect(s.status().last_pause!.until).toBeGreaterThanOrEqual(pause.since);
    // The disk is still full: the retry fails, and it is the same pause going on.
    expect(await s.persistTurn(turn('aaaaaa', 100, 'still full', 4000))).toBe(false);
    expect(s.status().last_pause).toMatchObject({
      since: pause.since,
      until: null,
      turns_not_written: 3,
    });
    // Room again: the next retry writes, and a later failure is a pause of its own.
    rmSync(filler);
    vi.advanceTimersByTime(STORE_RESUME_RETRY_MS);
    vi.useRealTimers();
    expect(await s.persistTurn(turn('aaaaaa', 101, 'written again'))).toBe(true);
    let more = 101;
    while (await s.persistTurn(turn('aaaaaa', ++more, `m${more}`, 4000)))
      if (more > 200) throw new Error('16 KiB freed took 100 turns of 4 KB');
    expect(s.status().last_pause).toMatchObject({ until: null, turns_not_written: 1 });
    await s.close();
    const again = openStore();
    expect(again.warning).toBeNull();
    expect(again.session('aaaaaa')!.turns.map((t) => t.meta.seq)).toEqual([
      ...Array.from({ length: written }, (_, i) => i + 1),
      ...Array.from({ length: more - 101 }, (_, i) => 101 + i),
    ]);
  });
});
