/**
 * Turn latency: from the moment a fake agent writes its prompt to the `turn_completed` event
 * at a subscriber, for a line preset (aider-style agent) and a screen preset (Claude-style
 * TUI). Targets: line ≤ 20 ms p99, screen ≤ 300 ms p99. Baseline in the same run: the
 * screen preset's settle window (the least latency a screen preset can have by design).
 */
import type { Push } from '@clippy/protocol';
import { SCREEN_SETTLE_MS } from '@clippy/turns';
import { TestDaemon, fmt, nowHr, percentile, promptTimes, spawnAgent } from './_turns-common.js';

/** Turns measured per preset: enough for a stable p99 in a few seconds. */
const TURNS = { line: 60, screen: 30 } as const;

async function measure(kind: 'line' | 'screen'): Promise<number[]> {
  const d = await TestDaemon.start();
  try {
    const c = await d.connect();
    const name = kind === 'line' ? 'aider' : 'claude';
    const log = await spawnAgent(d, c, name, kind === 'line' ? 'aider' : 'claude', name, [
      '--delay',
      '5',
    ]);
    await c.request('subscribe', { events: ['turn_completed'] });
    const arrivals: number[] = [];
    let wake: (() => void) | null = null;
    c.on('turn_completed', (_m: Push<'turn_completed'>) => {
      arrivals.push(nowHr());
      wake?.();
    });
    for (let i = 0; i < TURNS[kind]; i++) {
      const seen = new Promise<void>((r) => (wake = r));
      await c.request('send', { session: name, text: `question ${i}`, enter: true });
      await seen;
    }
    const prompts = promptTimes(log).slice(1);
    await c.close();
    return arrivals.map((t, i) => t - prompts[i]!);
  } finally {
    await d.stop();
  }
}

export async function run(): Promise<void> {
  for (const kind of ['line', 'screen'] as const) {
    const lat = await measure(kind);
    const p50 = percentile(lat, 50);
    const p99 = percentile(lat, 99);
    const target = kind === 'line' ? 20 : 300;
    process.stdout.write(
      `${kind.padEnd(6)} preset: ${lat.length} turns  p50 ${fmt(p50)}  p99 ${fmt(p99)}  max ${fmt(Math.max(...lat))}  ` +
        `(target p99 ≤ ${target} ms: ${(p99 / target).toFixed(2)}× of target` +
        (kind === 'screen'
          ? `; settle window ${SCREEN_SETTLE_MS} ms → p50 ${(p50 / SCREEN_SETTLE_MS).toFixed(2)}× of it)\n`
          : ')\n'),
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
