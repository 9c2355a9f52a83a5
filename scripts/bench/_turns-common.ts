// Shared by the turn benchmarks (files starting with `_` are not benchmarks themselves).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClippyClient } from '@clippy/client';
import { agentCommand, type AgentName } from '@clippy/testkit/agents/index';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';

export { DaemonEnv, TestDaemon };

/** Epoch milliseconds with sub-millisecond resolution (comparable across processes). */
export const nowHr = (): number => performance.timeOrigin + performance.now();

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? NaN;
}

export const fmt = (ms: number): string => `${ms.toFixed(1)} ms`;

/** Spawns a fake agent as a session (through the protocol) and returns its log path. */
export async function spawnAgent(
  d: TestDaemon,
  c: ClippyClient,
  name: string,
  agent: AgentName,
  preset: string,
  args: string[] = [],
): Promise<string> {
  const log = join(d.env.root, `${name}.log`);
  const { command, args: full } = agentCommand(agent, ['--log', log, ...args]);
  await c.request('spawn', {
    command,
    args: full,
    name,
    preset,
    cwd: d.env.root,
    env: d.env.env as Record<string, string>,
  });
  await waitState(c, name, 'idle');
  return log;
}

export async function waitState(
  c: ClippyClient,
  name: string,
  state: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { sessions } = await c.request('list_sessions', {});
    if (sessions.find((s) => s.name === name)?.state === state) return;
    if (Date.now() > deadline) throw new Error(`${name} did not reach ${state}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The high-resolution times at which the agent showed its prompts, in order. */
export function promptTimes(log: string): number[] {
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { prompt_hr?: number })
    .flatMap((e) => (e.prompt_hr ? [e.prompt_hr] : []));
}
