/**
 * `relay` of a 1 MiB turn between two sessions, end to end (request to answer: idle check,
 * bracketed paste in chunks with backpressure, Enter, confirmation): p50/p99. Baseline in the
 * same run: relaying a 1 KiB turn between the same sessions.
 */
import type { ClippyClient } from '@clippy/client';
import { TestDaemon, fmt, percentile, spawnAgent, waitState } from './_turns-common.js';

/** Relays measured per size. */
const RELAYS = 12;
const BIG = 1024 * 1024;
const SMALL = 1024;

async function relays(c: ClippyClient, from: string, to: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < RELAYS; i++) {
    await waitState(c, to, 'idle', 60_000);
    const started = performance.now();
    await c.request('relay', { from, to, raw: true }, { timeoutMs: 120_000 });
    times.push(performance.now() - started);
  }
  return times;
}

export async function run(): Promise<void> {
  const d = await TestDaemon.start();
  try {
    const c = await d.connect();
    // Sources: line agents streaming an answer of the given size; target: a TUI with bracketed paste.
    await spawnAgent(d, c, 'big', 'aider', 'aider', ['--big', String(BIG)]);
    await spawnAgent(d, c, 'small', 'aider', 'aider', ['--big', String(SMALL)]);
    await spawnAgent(d, c, 'target', 'claude', 'claude', ['--delay', '5']);
    for (const s of ['big', 'small']) {
      await c.request('send', { session: s, text: 'go', enter: true });
      await c.request(
        'wait_turn',
        { session: s, after: `${s}:0`, timeout_ms: 60_000 },
        { timeoutMs: 0 },
      );
    }
    const sizes = await Promise.all(
      ['big', 'small'].map((s) =>
        c.request('get_turn', { session: s }).then((r) => r.turn.byte_length),
      ),
    );
    const small = await relays(c, 'small', 'target');
    const big = await relays(c, 'big', 'target');
    process.stdout.write(
      `relay ${(sizes[1]! / 1024).toFixed(1)} KiB: p50 ${fmt(percentile(small, 50))}  p99 ${fmt(percentile(small, 99))}\n` +
        `relay ${(sizes[0]! / 1024 / 1024).toFixed(2)} MiB: p50 ${fmt(percentile(big, 50))}  p99 ${fmt(percentile(big, 99))}  ` +
        `(${(percentile(big, 50) / percentile(small, 50)).toFixed(1)}× the small relay's p50)\n`,
    );
    await c.close();
  } finally {
    await d.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
