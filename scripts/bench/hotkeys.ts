/**
 * Hotkey latency under Xvfb: from a key press (`xdotool key super+shift+v` into the X server)
 * to the pasted text arriving in the focused session (its echo in the session's output), with
 * the real `clippy hotkeys` client and the real `clippy attach` in an xterm: p50 over 20
 * presses. Baseline in the same run: the same paste as a command (`clippy paste SESSION`
 * started as a process), which is what a desktop or tmux key binding runs. Both include the
 * start of one helper process (xdotool, or clippy itself). The goal is under 300 ms.
 * Prints figures; asserts nothing. Needs `npm run build`, and xvfb, xterm, xdotool.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { ClippyClient } from '@clippy/client';
import { DESKTOP_VARS, envWithout } from '@clippy/testkit/env';
import { bins } from '@clippy/testkit/paths';
import { XServer, x11Missing } from '@clippy/testkit/x-server';
import { MarkerWatcher, isMain } from './_common.js';
import { TestDaemon, fmt, percentile, waitState } from './_turns-common.js';

/** Presses measured per variant. */
const PRESSES = 20;
/** Give up on one press after this long (the paste waits for the target to be idle first). */
const PRESS_TIMEOUT_MS = 30_000;
/** Time for the hotkey client to grab its keys, and for a window to appear. */
const START_TIMEOUT_MS = 20_000;
const PROMPT = 'PROMPT$ ';

/** Resolves when `marker` shows in the output of session ID `session` (observer attach on `c`). */
function arrival(c: ClippyClient, session: string, marker: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const watcher = new MarkerWatcher(Buffer.from(marker));
    const timer = setTimeout(() => {
      off();
      reject(new Error(`'${marker}' did not arrive within ${PRESS_TIMEOUT_MS} ms`));
    }, PRESS_TIMEOUT_MS);
    const off = c.on('output', (p) => {
      if (p.session !== session || !watcher.feed(p.data)) return;
      clearTimeout(timer);
      off();
      resolve(performance.now());
    });
  });
}

/** Press-to-arrival times: `press()` triggers one paste of the buffer set just before. */
async function measure(
  c: ClippyClient,
  session: { id: string; name: string },
  label: string,
  press: () => Promise<unknown>,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < PRESSES; i++) {
    const marker = `${label}-${i}-mark`;
    await c.request('put_buffer', { text: `: ${marker}`, label: 'bench' });
    await waitState(c, session.name, 'idle', PRESS_TIMEOUT_MS);
    const arrived = arrival(c, session.id, marker);
    const started = performance.now();
    await press();
    times.push((await arrived) - started);
  }
  return times;
}

function waitOutput(proc: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`no '${text}' within ${START_TIMEOUT_MS} ms: ${out}`)),
      START_TIMEOUT_MS,
    );
    const onData = (d: Buffer) => {
      out += d.toString();
      if (!out.includes(text)) return;
      clearTimeout(timer);
      resolve();
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
  });
}

function runToEnd(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(argv[0]!, argv.slice(1), { env, stdio: 'ignore' });
    p.once('error', reject);
    p.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${argv.join(' ')}: exit ${code}`)),
    );
  });
}

export async function run(): Promise<void> {
  const missing = x11Missing();
  if (missing) {
    process.stdout.write(`skipped: ${missing}\n`);
    return;
  }
  let x: XServer;
  try {
    x = await XServer.start();
  } catch (err) {
    process.stdout.write(`skipped: X11 cannot start here: ${(err as Error).message}\n`);
    return;
  }
  const d = await TestDaemon.start();
  try {
    const env = { ...envWithout(d.env.env, DESKTOP_VARS), PS1: PROMPT, TERM: 'xterm-256color' };
    const xenv = x.env(env);
    const c = await d.connect();
    const { session: id } = await c.request('spawn', {
      command: 'bash',
      args: ['--norc', '--noprofile'],
      name: 'target',
      env: env as Record<string, string>,
    });
    await waitState(c, 'target', 'idle', START_TIMEOUT_MS);
    await c.request('attach', { session: 'target', mode: 'observer' });
    const session = { id, name: 'target' };
    const win = await x.xterm([process.execPath, bins.clippy, 'attach', 'target'], env, 'target');
    const hotkeys = spawn(process.execPath, [bins.clippy, 'hotkeys', '--feedback', 'terminal'], {
      env: xenv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    x.track(hotkeys);
    await waitOutput(hotkeys, 'clippy hotkeys on');
    // A press that failed says why on the client's stderr: show it beside the figures.
    hotkeys.stderr!.on('data', (d: Buffer) => process.stdout.write(`hotkeys: ${d.toString()}`));
    await x.focus(win.window);

    const key = await measure(c, session, 'hk', () => x.key('super+shift+v'));
    const cli = await measure(c, session, 'cli', () =>
      runToEnd([process.execPath, bins.clippy, 'paste', 'target', '--quiet'], env),
    );
    const keyP50 = percentile(key, 50);
    const cliP50 = percentile(cli, 50);
    process.stdout.write(
      `hotkey paste (key press -> text in the session), ${PRESSES} presses: p50 ${fmt(keyP50)}  p90 ${fmt(percentile(key, 90))}  (goal < 300 ms)\n` +
        `baseline: clippy paste as a command, ${PRESSES} runs: p50 ${fmt(cliP50)}  p90 ${fmt(percentile(cli, 90))}\n` +
        `hotkey / command: ${(keyP50 / cliP50).toFixed(2)}x\n`,
    );
    // From here on it only says that its X server went away: the teardown, not a failed press.
    hotkeys.stderr!.removeAllListeners('data');
    await c.close();
  } finally {
    await x.dispose();
    await d.stop();
  }
}

if (isMain(import.meta.url)) await run();
