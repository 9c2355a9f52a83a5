import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { askTurn } from '@clippy/testkit/agents/harness';
import { newBashSession } from '@clippy/testkit/detached-session';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv, type TestDaemon } from '@clippy/testkit/daemon';
import { emptyDaemonPerTest } from '@clippy/testkit/daemon-per-file';
import { DESKTOP_VARS, envWithout } from '@clippy/testkit/env';
import { isAlive } from '@clippy/testkit/env-processes';
import { bins } from '@clippy/testkit/paths';
import { eventually, until } from '@clippy/testkit/until';
import { XServer, x11Missing } from '@clippy/testkit/x-server';
import { programMissing } from '@clippy/testkit/requirements';

/** Per test: a few sessions, two terminal windows, the hotkey client (the X server is the file's). */
const E2E_TIMEOUT_MS = 120_000;
/** How long a closed window's xterm (and its clippy attach) may take to end after SIGTERM. */
const WINDOW_STOP_TIMEOUT_MS = 5_000;
/** Pause between two looks at the session's latest turn (each a request to the daemon). */
const TURN_POLL_MS = 50;
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

/** Processes a test started on the file's X server (terminal windows, the hotkey client). */
const started: number[] = [];

/** The hotkey client, its output as it comes; stopped after the test. */
function startHotkeys(): { proc: ChildProcess; out: () => string } {
  const proc = spawn(process.execPath, [bins.clippy, 'hotkeys'], {
    env: x!.env(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  x!.track(proc);
  started.push(proc.pid!);
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { proc, out: () => out };
}

/** An xterm window running `argv` on the file's X server; closed after the test. */
async function xterm(argv: string[], xenv: NodeJS.ProcessEnv, title: string) {
  const w = await x!.xterm(argv, xenv, title);
  started.push(w.pid);
  return w;
}

/**
 * The lines of a session's latest turn once one holds `line` (or the last seen after the
 * wait), as the user reads them with `clippy show`: the wait polls the daemon through a
 * client, then the real CLI prints the turn once.
 */
async function latestTurnLines(session: string, line: string): Promise<string[]> {
  const c = await daemon.connect();
  try {
    await eventually(
      async () => {
        const { turns } = await c.request('list_turns', { session, limit: 1 });
        if (turns.length === 0) return false;
        const { turn } = await c.request('get_turn', { session });
        return turn.text.split('\n').includes(line);
      },
      `a turn of ${session} holding ${line}`,
      PRESS_TIMEOUT_MS,
      TURN_POLL_MS,
    ).catch(() => {}); // what follows says what was there instead
  } finally {
    await c.close();
  }
  return (await runClippy(['show', session], env)).stdout.split('\n');
}

/** What `clippy new -d --name NAME -- bash --norc --noprofile` makes (not the subject here). */
const newBash = (name: string) => newBashSession(daemon, name, env);

describe('clippy hotkeys under X11', { timeout: E2E_TIMEOUT_MS }, () => {
  // One X server for the file; one daemon, emptied after each test (its sessions killed and
  // removed: no session, and so no focus report, outlives its test).
  beforeAll(async () => {
    if (missing) return; // the tests skip, saying why (unavailable)
    try {
      x = await XServer.start();
    } catch (err) {
      xError = (err as Error).message;
    }
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await x?.dispose();
  }, E2E_TIMEOUT_MS);
  emptyDaemonPerTest((d) => {
    daemon = d;
    // No tmux, no desktop notifications: feedback goes to the focused terminal.
    env = { ...envWithout(d.env.env, DESKTOP_VARS), PS1: PROMPT, TERM: 'xterm-256color' };
  });
  // Before the daemon is emptied (registered after it: vitest runs it first): the test's
  // windows and hotkey client end, by PID, so no key grab or window outlives its test.
  afterEach(async () => {
    for (const pid of started.splice(0)) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        continue; // gone already
      }
      await until(() => !isAlive(pid), `${pid} gone`, WINDOW_STOP_TIMEOUT_MS).catch(() => {
        process.kill(pid, 'SIGKILL'); // past its chance to stop cleanly
      });
    }
  }, E2E_TIMEOUT_MS);

  it('captures from the focused window with Super+Shift+C and pastes into another with Super+Shift+V', async (ctx) => {
    if (missing) return ctx.skip(missing);
    if (!x) return ctx.skip(`X11 cannot start here: ${xError}`);
    await newBash('src');
    await newBash('dst');
    // src's latest turn, what the capture takes: a command line for dst to run.
    const c = await daemon.connect();
    try {
      const id = await askTurn(c, 'src', 'echo echo relayed-$((4*5))');
      expect((await c.request('get_turn', { turn_id: id })).turn.text).toContain('echo relayed-20');
    } finally {
      await c.close();
    }
    const a = await xterm([process.execPath, bins.clippy, 'attach', 'src'], env, 'src');
    const b = await xterm([process.execPath, bins.clippy, 'attach', 'dst'], env, 'dst');
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
    expect(hk.out()).toMatch(
      /ok captured \S+ from src \(\d+ bytes of text, \d+ raw\) \[\d+ ms, shown: terminal\]/,
    );

    await x.focus(b.window);
    await x.key('super+shift+v');
    await until(() => /ok pasted \S+ .* into dst/.test(hk.out()), 'the paste', PRESS_TIMEOUT_MS);
    // The turn arrived: dst ran the pasted command, and its answer is dst's latest turn.
    expect(await latestTurnLines('dst', 'relayed-20')).toContain('relayed-20');
    expect(hk.out()).not.toMatch(/ error /);
  });

  it.skipIf(programMissing('tmux') !== null)(
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
        const win = await xterm(['tmux', 'attach', '-t', 'w'], tenv, 'tmux');
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
  // No daemon and no X server: these commands answer without either (a private environment
  // all the same, removed after).
  let plain: DaemonEnv;
  beforeAll(() => {
    plain = new DaemonEnv();
    env = { ...envWithout(plain.env, DESKTOP_VARS), TERM: 'xterm-256color' };
  });
  afterAll(async () => {
    await plain.dispose();
  });

  it('refuses keys without a modifier, and says what to do without a display', async () => {
    // Each a CLI process, side by side: neither changes anything.
    const [bad, wayland] = await Promise.all([
      runClippy(['hotkeys', '--capture', 'c'], env),
      runClippy(['hotkeys'], { ...env, WAYLAND_DISPLAY: 'wayland-0' }),
    ]);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/capture key: hotkey 'c' needs a modifier/);
    expect(wayland.code).toBe(1);
    expect(wayland.stderr).toMatch(/no X display \(Wayland has no global key grabs\)/);
    expect(wayland.stderr).toMatch(/clippy hotkeys install --desktop/);
  });

  it('prints bindings for the desktop shortcut settings', async () => {
    // Each a CLI process, side by side: none writes anything.
    const [sway, all, bad] = await Promise.all([
      runClippy(['hotkeys', 'install', '--desktop', 'sway'], env),
      runClippy(['hotkeys', 'install'], env),
      runClippy(['hotkeys', 'install', '--write'], env),
    ]);
    expect(sway.code).toBe(0);
    expect(sway.stdout).toMatch(/^bindsym Mod4\+Shift\+c exec .*capture --focused --notify$/m);
    expect(sway.stdout).toMatch(/^bindsym Mod4\+Shift\+v exec .*paste --focused --notify$/m);
    for (const part of [
      'bind-key -n M-C',
      'gsettings set',
      'KDE Plasma',
      'bindsym',
      'ExecStart=',
    ]) {
      expect(all.stdout).toContain(part);
    }
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/--write goes with --tmux/);
  });
});
