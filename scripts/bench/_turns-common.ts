// Shared by the turn benchmarks (files starting with `_` are not benchmarks themselves).
import { readFileSync } from 'node:fs';
import { spawnAgent, waitState } from '@clippy/testkit/agents/harness';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
// Armed for the daemons started here: an interrupted run stops them (DaemonEnv.live).
import './_interrupt.js';

export { DaemonEnv, TestDaemon, spawnAgent, waitState };

/** Epoch milliseconds with sub-millisecond resolution (comparable across processes). */
export const nowHr = (): number => performance.timeOrigin + performance.now();

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? NaN;
}

export const fmt = (ms: number): string => `${ms.toFixed(1)} ms`;

/** The high-resolution times at which the agent showed its prompts, in order. */
export function promptTimes(log: string): number[] {
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { prompt_hr?: number })
    .flatMap((e) => (e.prompt_hr ? [e.prompt_hr] : []));
}
