import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runClippy } from '@clippy/testkit/cli-pty';
import { TestDaemon } from '@clippy/testkit/daemon';
import { DESKTOP_VARS, envWithout } from '@clippy/testkit/env';
import { installed } from '@clippy/testkit/installed';
import { bins } from '@clippy/testkit/paths';
import { until } from '@clippy/testkit/until';
import { XServer, x11Missing } from '@clippy/testkit/x-server';

/** Per test: a daemon, an X server, two terminal windows, the hotkey client. */
const E2E_TIMEOUT_MS = 120_000;
/** A key press's outcome: resolve, capture or paste (waits for the target to be idle), feedback. */
const PRESS_TIMEOUT_MS = 30_000;

// End-to-end under Xvfb (apt: xvfb, xterm, xdotool; installed by .ci/run): two real xterm
// windows each run the real `clippy attach`; the real `clippy hotkeys` grabs the keys; xdotool
// focuses the windows and presses the keys as a keyboard does.

const PROMPT = 'PROMPT$ ';
const run = promisify(execFile);
const missing = x11Missing();
let daemon: TestDaemon;
let env: NodeJS.ProcessEnv;
let x: XServer | null = null;
let xError = '';

/** The hotkey client, its output as it comes. */
function startHotkeys(): { proc: ChildProcess; out: () => string } {
  const proc = spawn(process.execPath, [bins.clippy, 'hotkeys'], {
    env: x!.env(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  x!.track(proc);
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { proc, out: () => out };
}

/** The lines of a session's latest turn, once one holds `line` (or the last seen after the wait). */
async function latestTurnLines(session: string, line: string): Promise<string[]> {
  const deadline = Date.now() + PRESS_TIMEOUT_MS;
  let lines: string[] = [];
  while (Date.now() < deadline) {
    lines = (await runClippy(['show', session], env)).stdout.split('\n');
    if (lines.includes(line)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return lines;
}

async function newBash(name: string): Promise<void> {
  const r = await runClippy(
    ['new', '-d', '--name', name, '--', 'bash', '--norc', '--noprofile'],
    env,
  );
  expect(r.code).toBe(0);
}

beforeEach(async () => {
  daemon = await TestDaemon.start();
  // No tmux, no desktop notifications: feedback goes to the focused terminal.
  env = { ...envWithout(daemon.env.env, DESKTOP_VARS), PS1: PROMPT, TERM: 'xterm-256color' };
  x = null;
  if (missing) return;
  try {
    x = await XServer.start();
  } catch (err) {
    xError = (err as Error).message;
  }
}, E2E_TIMEOUT_MS);

afterEach(async () => {
  await x?.dispose();
  await daemon.stop();
}, E2E_TIMEOUT_MS);

describe('clippy hotkeys under X11', { timeout: E2E_TIMEOUT_MS }, () => {
  it('captures from the focused window with Super+Shift+C and pastes into another with Super+Shift+V', async (ctx) => {
    if (missing) return ctx.skip(missing);
    if (!x) return ctx.skip(`X11 cannot start here: ${xError}`);
    await newBash('src');
    await newBash('dst');
    const ask = await runClippy(['ask', 'src', 'echo echo relayed-$((4*5))'], env, 30_000);
    expect(ask.stdout).toContain('echo relayed-20');
    const a = await x.xterm([process.execPath, bins.clippy, 'attach', 'src'], env, 'src');
    const b = await x.xterm([process.execPath, bins.clippy, 'attach', 'dst'], env, 'dst');
    const hk = startHotkeys();
    await until(
      () => hk.out().includes('clippy hotkeys on'),
      'the hotkey client grabs its keys',
      20_000,
    );
    expect(hk.out()).toContain('super+shift+c captures, super+shift+v pastes');

    await x.focus(a.window);
    // The X11 resolver alone finds the session from the active window's process tree.
    const viaX11 = await runClippy(['focused', '--json', '--via', 'x11'], x.env(env));
    expect(viaX11.stderr).toBe('');
    expect(JSON.parse(viaX11.stdout)).toMatchObject({ name: 'src', via: 'x11' });

    await x.key('super+shift+c');
    await until(() => /ok captured \S+ from src/.test(hk.out()), 'the capture', PRESS_TIMEOUT_MS);
    // No desktop notification here: the message went to the focused terminal.
    expect(hk.out()).toMatch(/ok captured \S+ from src \(\d+ bytes\) \[\d+ ms, shown: terminal\]/);

    await x.focus(b.window);
    await x.key('super+shift+v');
    await until(() => /ok pasted \S+ .* into dst/.test(hk.out()), 'the paste', PRESS_TIMEOUT_MS);
    // The turn arrived: dst ran the pasted command, and its answer is dst's latest turn.
    expect(await latestTurnLines('dst', 'relayed-20')).toContain('relayed-20');
    expect(hk.out()).not.toMatch(/ error /);
  });

  it.skipIf(!installed('tmux'))(
    'follows the focused X window into the tmux client running in it, to its active pane',
    async (ctx) => {
      if (missing) return ctx.skip(missing);
      if (!x) return ctx.skip(`X11 cannot start here: ${xError}`);
      await newBash('left');
      await newBash('right');
      const tmuxDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-xtmux-'));
      const tenv = { ...env, TMUX_TMPDIR: tmuxDir };
      const tmux = (...args: string[]) => run('tmux', args, { env: tenv });
      const clippy = `${process.execPath} ${bins.clippy}`;
      let serverPid = 0;
      try {
        await tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'w', `${clippy} attach left`);
        await tmux('new-window', '-t', 'w', `${clippy} attach right`);
        serverPid = Number(
          (await tmux('display-message', '-p', '-t', 'w', '#{pid}')).stdout.trim(),
        );
        const win = await x.xterm(['tmux', 'attach', '-t', 'w'], tenv, 'tmux');
        await x.focus(win.window);
        for (const [index, name] of [
          ['0', 'left'],
          ['1', 'right'],
        ] as const) {
          await tmux('select-window', '-t', `w:${index}`);
          const r = await runClippy(['focused', '--json', '--via', 'x11'], x.env(tenv));
          expect(r.stderr).toBe('');
          expect(JSON.parse(r.stdout)).toMatchObject({ name, via: 'x11' });
        }
      } finally {
        if (serverPid > 0) process.kill(serverPid, 'SIGTERM');
        fs.rmSync(tmuxDir, { recursive: true, force: true });
      }
    },
  );

  it('says when a key press cannot work: nothing focused', async (ctx) => {
    if (missing) return ctx.skip(missing);
    if (!x) return ctx.skip(`X11 cannot start here: ${xError}`);
    const hk = startHotkeys();
    await until(
      () => hk.out().includes('clippy hotkeys on'),
      'the hotkey client grabs its keys',
      20_000,
    );
    await x.key('super+shift+v');
    await until(
      () => hk.out().includes('error paste failed: no focused session'),
      'the error',
      PRESS_TIMEOUT_MS,
    );
    expect(hk.out()).toMatch(/x11: no X window has the focus|x11: the focused X window/);
  });
});

describe('clippy hotkeys without X11', () => {
  it('refuses keys without a modifier, and says what to do without a display', async () => {
    const bad = await runClippy(['hotkeys', '--capture', 'c'], env);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/capture key: hotkey 'c' needs a modifier/);
    const wayland = await runClippy(['hotkeys'], { ...env, WAYLAND_DISPLAY: 'wayland-0' });
    expect(wayland.code).toBe(1);
    expect(wayland.stderr).toMatch(/no X display \(Wayland has no global key grabs\)/);
    expect(wayland.stderr).toMatch(/clippy hotkeys install --desktop/);
  });

  it('prints bindings for the desktop shortcut settings', async () => {
    const sway = await runClippy(['hotkeys', 'install', '--desktop', 'sway'], env);
    expect(sway.code).toBe(0);
    expect(sway.stdout).toMatch(/^bindsym Mod4\+Shift\+c exec .*capture --focused --notify$/m);
    expect(sway.stdout).toMatch(/^bindsym Mod4\+Shift\+v exec .*paste --focused --notify$/m);
    const all = await runClippy(['hotkeys', 'install'], env);
    for (const part of [
      'bind-key -n M-C',
      'gsettings set',
      'KDE Plasma',
      'bindsym',
      'ExecStart=',
    ]) {
      expect(all.stdout).toContain(part);
    }
    const bad = await runClippy(['hotkeys', 'install', '--write'], env);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/--write goes with --tmux/);
  });
});
