/**
 * The hook path: one `clippy-hook` run, as an agent's hook runs it, from its start to its exit
 * once the daemon answered (an agent waits for its hooks, or runs them in the background), for
 * a report with the session's secret (taken), one without (refused), and the baseline measured
 * in the same run: `node -e 0`, the node start every hook pays. The session is the fake Claude
 * Code with its hooks wired (the real daemon). p50/p99 over BENCH_HOOKS runs each (default 30).
 * Measures, never asserts.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnAgent } from '@clippy/testkit/agents/harness';
import { TestDaemon } from '@clippy/testkit/daemon';
import { repoRoot } from '@clippy/testkit/paths';
import { percentile } from './_common.js';

const RUNS = Number(process.env.BENCH_HOOKS ?? 30);
const HOOK_ENTRY = join(repoRoot, 'packages', 'broker', 'bin', 'clippy-hook.js');

/** Runs `args` with node, `input` on stdin; resolves with its wall time (ms) and stderr. */
function timed(
  args: string[],
  env: NodeJS.ProcessEnv,
  input = '',
): Promise<{ ms: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const p = spawn(process.execPath, args, { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    p.once('error', reject);
    p.once('exit', () => resolve({ ms: performance.now() - start, stderr }));
    p.stdin!.end(input);
  });
}

/** The runs of every kind, interleaved (a load that comes and goes weighs on each alike). */
async function series(kinds: Record<string, () => Promise<{ ms: number; stderr: string }>>) {
  const ms = new Map<string, number[]>(Object.keys(kinds).map((k) => [k, []]));
  const said = new Map<string, string>();
  for (let i = 0; i < RUNS; i++)
    for (const [k, run] of Object.entries(kinds)) {
      const r = await run();
      ms.get(k)!.push(r.ms);
      if (!said.has(k) && r.stderr.trim()) said.set(k, r.stderr.trim());
    }
  const out: Record<string, { p50: number; p99: number; said?: string }> = {};
  for (const [k, v] of ms) {
    v.sort((a, b) => a - b);
    out[k] = { p50: percentile(v, 50), p99: percentile(v, 99), said: said.get(k) };
  }
  return out;
}

export async function run(): Promise<void> {
  const d = await TestDaemon.start();
  try {
    const c = await d.connect();
    await spawnAgent(d, c, 'hooked', 'claude', 'claude', ['--hooks']);
    const { sessions } = await c.request('list_sessions', {});
    const s = sessions.find((x) => x.name === 'hooked')!;
    // The secret as the agent's hooks inherit it (its environment).
    const secret = /(?:^|\0)CLIPPY_HOOK_SECRET=([^\0]+)/u.exec(
      readFileSync(`/proc/${s.pid}/environ`, 'latin1'),
    )?.[1];
    await c.close();
    const base = { ...process.env, ...d.env.env };
    const payload = JSON.stringify({ prompt: 'bench', prompt_id: 'b1' });
    const hook = [HOOK_ENTRY, d.env.socket, s.session, 'claude', 'UserPromptSubmit'];
    const r = await series({
      node: () => timed(['-e', '0'], base),
      taken: () => timed(hook, secret ? { ...base, CLIPPY_HOOK_SECRET: secret } : base, payload),
      refused: () => timed(hook, base, payload),
    });
    const line = (what: string, x: { p50: number; p99: number }) =>
      `${what.padEnd(34)} p50 ${x.p50.toFixed(0).padStart(4)} ms  p99 ${x.p99.toFixed(0).padStart(4)} ms  (÷ node start: p50 ${(x.p50 / r.node!.p50).toFixed(2)}×)`;
    console.log(line('node -e 0 (baseline)', r.node!));
    console.log(line(`hook, ${secret ? 'with the secret' : 'no secret known'}`, r.taken!));
    console.log(line('hook, without the secret', r.refused!));
    for (const k of ['taken', 'refused'])
      if (r[k]!.said) console.log(`  (${k}: ${r[k]!.said!.slice(0, 140)})`);
  } finally {
    await d.stop();
  }
}
