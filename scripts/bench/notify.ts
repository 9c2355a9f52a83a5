/**
 * Notifications: from a turn completing (the fake agent writes its prompt) to the desktop
 * notification (a fake `notify-send` first on the daemon's PATH stamps the time it runs, in ms),
 * beside the baseline measured in the same run: the same turns' `turn_completed` event at a plain
 * subscribed client. The difference is what the daemon's notification path adds (its policy,
 * starting notify-send, the shell's own start).
 */
import { spawn } from 'node:child_process';
import type { Push } from '@clippy/protocol';
import { FakeNotifySend } from '@clippy/testkit/fake-notify';
import {
  DaemonEnv,
  TestDaemon,
  fmt,
  nowHr,
  percentile,
  promptTimes,
  spawnAgent,
} from './_turns-common.js';

/** Turns measured: enough for a stable p50 and a rough p99 in a few seconds. */
const TURNS = 40;
/** Direct runs of the fake notify-send: what starting it costs, outside the daemon. */
const DIRECT_RUNS = 20;

/** From spawning the fake notify-send (as the daemon does) to the time it stamps, per run. */
async function directStarts(fake: FakeNotifySend): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < DIRECT_RUNS; i++) {
    const before = fake.records().length;
    const t0 = nowHr();
    await new Promise<void>((resolve, reject) => {
      const child = spawn('notify-send', ['--app-name=clippy', '--', 't', 'b'], {
        env: { ...process.env, PATH: fake.path() },
        stdio: 'ignore',
      });
      child.on('error', reject);
      child.on('close', () => resolve());
    });
    out.push(fake.records()[before]!.at - t0);
  }
  return out.sort((a, b) => a - b);
}

export async function run(): Promise<void> {
  const fake = new FakeNotifySend();
  const d = await TestDaemon.start({
    env: new DaemonEnv({ DISPLAY: ':99', PATH: fake.path() }),
  });
  try {
    const c = await d.connect();
    const log = await spawnAgent(d, c, 'agent', 'aider', 'aider', ['--delay', '5']);
    await c.request('subscribe', { events: ['turn_completed'] });
    const arrivals: number[] = [];
    let wake: (() => void) | null = null;
    c.on('turn_completed', (_m: Push<'turn_completed'>) => {
      arrivals.push(nowHr());
      wake?.();
    });
    for (let i = 0; i < TURNS; i++) {
      const seen = new Promise<void>((r) => (wake = r));
      await c.request('send', { session: 'agent', text: `question ${i}`, enter: true });
      await seen;
      await fake.waitFor(i + 1);
    }
    await c.close();
    const prompts = promptTimes(log).slice(1);
    const records = fake.records();
    const event = arrivals.map((t, i) => t - prompts[i]!).sort((a, b) => a - b);
    const desktop = records.map((r, i) => r.at - prompts[i]!).sort((a, b) => a - b);
    const line = (label: string, v: number[]) =>
      `${label.padEnd(34)} p50 ${fmt(percentile(v, 50))}  p99 ${fmt(percentile(v, 99))}  max ${fmt(v.at(-1)!)}`;
    process.stdout.write(`${TURNS} turns (line preset; notify-send stamps whole ms)\n`);
    process.stdout.write(`${line('baseline: turn_completed at a client', event)}\n`);
    process.stdout.write(`${line('desktop notification (notify-send)', desktop)}\n`);
    const direct = await directStarts(fake);
    process.stdout.write(`${line('fake notify-send alone (its start)', direct)}\n`);
    const own = percentile(desktop, 50) - percentile(event, 50) - percentile(direct, 50);
    process.stdout.write(`the daemon's own part (desktop − event − start, p50): ${fmt(own)}\n`);
    const ratio = percentile(desktop, 50) / Math.max(percentile(event, 50), 0.001);
    process.stdout.write(
      `desktop p50 is ${ratio.toFixed(2)}× the baseline's (+${fmt(percentile(desktop, 50) - percentile(event, 50))})\n`,
    );
  } finally {
    await d.stop();
    fake.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
