/**
 * The turn history (`npm run bench -- store`), all measured in one run and printed, nothing
 * asserted:
 * - flood: `cat` of a 32 MB file in a persisted session against an unpersisted one (the same
 *   daemon, interleaved rounds, medians): MB/s and the ratio (goal ≥ 0.95×);
 * - a flood of turns: commands answered back to back (send, wait for the turn) in a persisted
 *   session against an unpersisted one: turns/s and the ratio;
 * - the store alone: 100,000 turns appended (turns written/s, bytes per turn on disk), the
 *   time to open it again (scan, checks, index), search latency p50/p99 over it;
 * - the daemon's restart time with those 100,000 turns (100 sessions) against an empty one.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { ACK_INTERVAL_BYTES } from '@clippy/protocol';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { TurnStore } from '../../packages/broker/src/store/turn-store.js';
import { MarkerWatcher, mb, tempDir, writeTextFile } from './_common.js';

const FILE_BYTES = 32 * 1024 * 1024;
const COLS = 200;
const ROWS = 50;
/** Interleaved rounds per variant (the VM's speed drifts between minutes); medians compared. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Commands answered per round of the turn flood. */
const TURNS_PER_ROUND = 150;
/** Turns in the big store, over this many sessions. */
const STORE_TURNS = Number(process.env.BENCH_STORE_TURNS ?? 100_000);
const STORE_SESSIONS = 100;
/** Searches timed over the big store. */
const SEARCHES = 200;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
const shellEnv = () =>
  ({ ...process.env, PS1: '$ ', TERM: 'xterm-256color' }) as Record<string, string>;

async function floods(file: string): Promise<void> {
  const daemon = await TestDaemon.start();
  try {
    const client = await daemon.connect();
    const watchers = new Map<string, { w: MarkerWatcher; done: () => void } | null>();
    let unacked = 0;
    client.on('output', (push) => {
      unacked += push.data.length;
      if (unacked >= ACK_INTERVAL_BYTES) {
        client.notify('ack', { session: push.session, bytes: unacked });
        unacked = 0;
      }
      const entry = watchers.get(push.session);
      if (entry && entry.w.feed(push.data)) {
        watchers.set(push.session, null);
        entry.done();
      }
    });
    const sessions: Record<string, string> = {};
    for (const persist of [false, true]) {
      const { session } = await client.request('spawn', {
        command: 'bash',
        args: ['--norc', '--noprofile'],
        env: shellEnv(),
        cols: COLS,
        rows: ROWS,
        preset: 'bash',
        persist,
      });
      sessions[String(persist)] = session;
      await client.request('attach', { session, mode: 'interactive', cols: COLS, rows: ROWS });
    }
    await new Promise((r) => setTimeout(r, 500));
    const cat = async (session: string, marker: string): Promise<number> => {
      const done = new Promise<void>((resolve) =>
        watchers.set(session, { w: new MarkerWatcher(Buffer.from(marker)), done: resolve }),
      );
      const started = performance.now();
      await client.request('input', {
        session,
        data: Buffer.from(`cat ${file}; echo ${marker.slice(0, 4)}""${marker.slice(4)}\r`),
      });
      await done;
      return performance.now() - started;
    };
    // Warm-up (JIT), then interleaved rounds.
    for (const p of ['false', 'true']) await cat(sessions[p]!, `__WARM_${p}__`);
    const ms: Record<string, number[]> = { false: [], true: [] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const p of r % 2 === 0 ? ['false', 'true'] : ['true', 'false']) {
        await new Promise((res) => setTimeout(res, 300));
        ms[p]!.push(await cat(sessions[p]!, `__DONE_${p}_${r}__`));
      }
    }
    const rate = (p: string) => mb(FILE_BYTES) / (median(ms[p]!) / 1000);
    console.log(
      `flood (cat ${mb(FILE_BYTES)} MB, median of ${ROUNDS}): unpersisted ${rate('false').toFixed(1)} MB/s, ` +
        `persisted ${rate('true').toFixed(1)} MB/s, ratio ${(rate('true') / rate('false')).toFixed(3)}×`,
    );

    // A flood of turns: each command answered and its turn awaited, back to back.
    const turnRate: Record<string, number[]> = { false: [], true: [] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const p of r % 2 === 0 ? ['false', 'true'] : ['true', 'false']) {
        const session = sessions[p]!;
        const started = performance.now();
        for (let i = 0; i < TURNS_PER_ROUND; i++) {
          const { turns } = await client.request('list_turns', { session, limit: 1 });
          await client.request('input', {
            session,
            data: Buffer.from(`echo round ${r} turn ${i} the migration plan\r`),
          });
          await client.request(
            'wait_turn',
            { session, after: turns[0]?.turn_id ?? `${session}:0`, timeout_ms: 10_000 },
            { timeoutMs: 0 },
          );
        }
        turnRate[p]!.push(TURNS_PER_ROUND / ((performance.now() - started) / 1000));
      }
    }
    const tr = (p: string) => median(turnRate[p]!);
    console.log(
      `turn flood (${TURNS_PER_ROUND} commands back to back, median of ${ROUNDS}): unpersisted ${tr('false').toFixed(0)} turns/s, ` +
        `persisted ${tr('true').toFixed(0)} turns/s, ratio ${(tr('true') / tr('false')).toFixed(3)}×`,
    );
    await client.close();
  } finally {
    await daemon.stop();
  }
}

const WORDS = (
  'the a migration plan database schema index query test build deploy error fix refactor ' +
  'function class module import export async await promise session daemon socket turn relay ' +
  'agent claude aider codex gemini review implement synthesize persist history search store ' +
  'segment checksum record retention budget token map repository file directory path config'
).split(' ');

/** A turn like an agent's: a few lines of words, some ANSI colour, a unique tag. */
function fakeTurn(i: number, rnd: () => number): { text: string; content: Buffer } {
  const lines: string[] = [];
  const n = 3 + Math.floor(rnd() * 10);
  for (let l = 0; l < n; l++) {
    const words: string[] = [];
    const k = 6 + Math.floor(rnd() * 10);
    for (let w = 0; w < k; w++) words.push(WORDS[Math.floor(rnd() * WORDS.length)]!);
    lines.push(words.join(' '));
  }
  lines.push(`tag${i}`);
  const text = lines.join('\n');
  const content = Buffer.from(
    `\x1b[1m${lines[0]}\x1b[0m\r\n${lines.slice(1).join('\r\n')}\r\n`.replace(
      /migration/g,
      '\x1b[33mmigration\x1b[0m',
    ),
  );
  return { text, content };
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function store(): Promise<void> {
  const env = new DaemonEnv();
  const dir = path.join(env.env.XDG_STATE_HOME!, 'clippy', 'history');
  mkdirSync(path.dirname(dir), { recursive: true });
  const log = pino({ level: 'silent' });
  try {
    const s = TurnStore.open({ dir, log });
    const ids: string[] = [];
    for (let k = 0; k < STORE_SESSIONS; k++) {
      const id = `s${String(k).padStart(5, '0')}`;
      ids.push(id);
      await s.persistSession({
        id,
        name: `agent-${k}`,
        command: 'claude',
        args: [],
        cwd: '/',
        preset: 'claude',
        created_at: Date.now(),
        cols: 120,
        rows: 40,
      });
    }
    const rnd = rng(42);
    const seqs = new Map<string, number>();
    let payload = 0;
    const started = performance.now();
    // Queued as a daemon would under load: many in flight at once.
    let pending: Promise<boolean>[] = [];
    for (let i = 0; i < STORE_TURNS; i++) {
      const session = ids[i % STORE_SESSIONS]!;
      const seq = (seqs.get(session) ?? 0) + 1;
      seqs.set(session, seq);
      const { text, content } = fakeTurn(i, rnd);
      payload += content.length + Buffer.byteLength(text);
      pending.push(
        s.persistTurn({
          session,
          seq,
          timestamp: Date.now(),
          interrupted: false,
          truncated: false,
          duration_ms: 1234,
          prompt: `question ${i} about the migration`,
          content,
          text,
        }),
      );
      if (pending.length >= 256) {
        await Promise.all(pending);
        pending = [];
      }
    }
    await Promise.all(pending);
    const writeS = (performance.now() - started) / 1000;
    const st = s.status();
    console.log(
      `store: ${STORE_TURNS} turns written in ${writeS.toFixed(2)} s = ${(STORE_TURNS / writeS).toFixed(0)} turns/s; ` +
        `${(st.bytes / STORE_TURNS).toFixed(0)} bytes/turn on disk for ${(payload / STORE_TURNS).toFixed(0)} bytes of content+text ` +
        `(${mb(st.bytes).toFixed(1)} MiB)`,
    );
    await s.close();

    const rss0 = process.memoryUsage.rss();
    const t0 = performance.now();
    const reopened = TurnStore.open({ dir, log });
    const openMs = performance.now() - t0;
    await reopened.indexed();
    const indexMs = performance.now() - t0 - openMs;
    console.log(
      `store open (scan + checksums) of ${reopened.status().turns} turns: ${openMs.toFixed(0)} ms; ` +
        `search index filled in the background in ${indexMs.toFixed(0)} ms more ` +
        `(${reopened.indexedWords} words; store +${mb(process.memoryUsage.rss() - rss0).toFixed(0)} MiB RSS)`,
    );
    const queries: string[] = [];
    const qr = rng(7);
    for (let i = 0; i < SEARCHES; i++) {
      const kind = i % 4;
      if (kind === 0)
        queries.push(`tag${Math.floor(qr() * STORE_TURNS)}`); // one turn
      else if (kind === 1)
        queries.push('migration plan'); // common phrase
      else if (kind === 2)
        queries.push(WORDS[Math.floor(qr() * WORDS.length)]!.slice(0, 4)); // prefix
      else queries.push('nowhere to be found'); // absent
    }
    const lat: number[] = [];
    const byKind: number[][] = [[], [], [], []];
    for (const [i, q] of queries.entries()) {
      const a = performance.now();
      await reopened.search(q);
      const ms = performance.now() - a;
      lat.push(ms);
      byKind[i % 4]!.push(ms);
    }
    const kinds = ['one turn (tagN)', 'common phrase', '4-letter prefix', 'absent words'];
    console.log(
      `search over ${STORE_TURNS} turns (${SEARCHES} queries, 20 results): ` +
        `p50 ${pct(lat, 50).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(1)} ms; p50 by kind: ` +
        kinds.map((k, i) => `${k} ${pct(byKind[i]!, 50).toFixed(1)} ms`).join(', '),
    );
    await reopened.close();

    // The daemon's restart: ready to answer with the history restored, against an empty one.
    const empty = performance.now();
    const d0 = await TestDaemon.start();
    const emptyMs = performance.now() - empty;
    await d0.stop();
    const full = performance.now();
    const d1 = await TestDaemon.start({ env });
    const fullMs = performance.now() - full;
    const c = await d1.connect();
    const status = await c.request('daemon_status', {});
    await c.close();
    await d1.stop();
    console.log(
      `daemon restart with ${status.store?.turns} turns in ${status.store?.sessions} sessions: ${fullMs.toFixed(0)} ms ` +
        `(empty history: ${emptyMs.toFixed(0)} ms; ratio ${(fullMs / emptyMs).toFixed(2)}×)`,
    );
  } finally {
    await env.dispose();
  }
}

export async function run(): Promise<void> {
  const tmp = tempDir();
  try {
    const file = path.join(tmp.dir, 'big.txt');
    writeTextFile(file, FILE_BYTES);
    await floods(file);
    await store();
  } finally {
    tmp.remove();
  }
}
