import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { askTurn } from '@clippy/testkit/agents/harness';
import { newBashSession } from '@clippy/testkit/detached-session';
import { CliPty, runClippy } from '@clippy/testkit/cli-pty';
import type { TestDaemon } from '@clippy/testkit/daemon';
import { emptyDaemonPerTest } from '@clippy/testkit/daemon-per-file';
import { DESKTOP_VARS, envWithout } from '@clippy/testkit/env';
import { bins } from '@clippy/testkit/paths';
import { eventually, until } from '@clippy/testkit/until';
import { programMissing } from '@clippy/testkit/requirements';

const run = promisify(execFile);

/** Per test: a tmux server with two windows, a tmux client in a PTY (the daemon is the file's). */
const E2E_TIMEOUT_MS = 90_000;
/** Waits for a file written by a tmux `run-shell` job. */
const JOB_TIMEOUT_MS = 15_000;

// End-to-end: a real tmux server (apt `tmux`, installed by .ci/run) whose two windows each run
// the real `clippy attach` against the real clippyd; a real tmux client shows them in a PTY.

const PROMPT = 'PROMPT$ ';
const hasTmux = programMissing('tmux') === null;
let daemon: TestDaemon;
let env: NodeJS.ProcessEnv;
let tmpdir: string;
let serverPid = 0;
const ptys: CliPty[] = [];
const clippy = `${process.execPath} ${bins.clippy}`;

const tmux = (...args: string[]) => run('tmux', args, { env });

/** What `clippy new -d --name NAME -- bash --norc --noprofile` makes (not the subject here). */
const newBash = (name: string) => newBashSession(daemon, name, env);

/** Runs a shell line as a tmux key binding would (`run-shell`) and returns what it printed. */
async function fromTmuxBinding(line: string): Promise<string> {
  const out = path.join(tmpdir, `job-${Date.now()}-${Math.random()}.out`);
  await tmux('run-shell', `${line} > ${out} 2>&1; echo "exit=$?" >> ${out}`);
  await until(
    () => fs.existsSync(out) && fs.readFileSync(out, 'utf8').includes('exit='),
    'job',
    JOB_TIMEOUT_MS,
  );
  return fs.readFileSync(out, 'utf8');
}

// One daemon for the file, emptied after each test (its sessions killed and removed, its
// clients gone): each test makes its own two sessions and tmux server.
emptyDaemonPerTest((d) => (daemon = d));

beforeEach(async () => {
  if (!hasTmux) return; // the tests skip, saying why (programMissing)
  tmpdir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-tmux-'));
  env = {
    ...envWithout(daemon.env.env, DESKTOP_VARS),
    PS1: PROMPT,
    TMUX_TMPDIR: tmpdir,
    TERM: 'xterm-256color',
  };
  await newBash('one');
  await newBash('two');
  await tmux(
    '-f',
    '/dev/null',
    'new-session',
    '-d',
    '-s',
    'w',
    '-x',
    '100',
    '-y',
    '30',
    `${clippy} attach one`,
  );
  await tmux('new-window', '-t', 'w', `${clippy} attach two`);
  serverPid = Number((await tmux('display-message', '-p', '-t', 'w', '#{pid}')).stdout.trim());
  const client = CliPty.shell('exec tmux attach -t w', { env, cols: 100, rows: 30 });
  ptys.push(client);
  await client.waitFor(PROMPT);
}, E2E_TIMEOUT_MS);

// Registered after the daemon's emptying, so it runs before it: the tmux server (and the
// clippy attach in its panes) ends first.
afterEach(async () => {
  if (!hasTmux) return; // the tests skip, saying why (programMissing)
  for (const p of ptys.splice(0)) await p.dispose();
  if (serverPid > 0) {
    try {
      process.kill(serverPid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  serverPid = 0;
  fs.rmSync(tmpdir, { recursive: true, force: true });
}, E2E_TIMEOUT_MS);

describe('the focused session from tmux', { timeout: E2E_TIMEOUT_MS }, () => {
  it.skipIf(!hasTmux)('names the session shown in the active pane of the tmux client', async () => {
    // Outside tmux ($TMUX unset) the tmux resolver has no answer: a tmux client elsewhere says
    // nothing about the window the user looks at. Asked side by side with the first binding
    // (each a CLI process; neither changes anything).
    await tmux('select-window', '-t', 'w:0');
    const [outside, first] = await Promise.all([
      runClippy(['focused', '--via', 'tmux'], env),
      fromTmuxBinding(`${clippy} focused --json --via tmux`),
    ]);
    expect(outside.code).toBe(1);
    expect(outside.stderr).toMatch(/tmux: not inside tmux/);

    let out = first;
    expect(out).toContain('exit=0');
    expect(JSON.parse(out.split('\n')[0]!)).toMatchObject({ name: 'one', via: 'tmux' });

    await tmux('select-window', '-t', 'w:1');
    out = await fromTmuxBinding(`${clippy} focused --via tmux`);
    expect(out).toBe('two\nexit=0\n');
    // Without --via the answer is the same, whichever resolver gives it.
    out = await fromTmuxBinding(`${clippy} focused`);
    expect(out).toBe('two\nexit=0\n');

    // A pane without clippy attach: a clear "no" rather than a guess.
    await tmux('new-window', '-t', 'w', 'bash --norc --noprofile');
    out = await fromTmuxBinding(`${clippy} focused --via tmux`);
    expect(out).toMatch(/no focused session \(tmux: no clippy attach runs in the active tmux pane/);
    expect(out).toContain('exit=1');
  });

  it.skipIf(!hasTmux)(
    'a key binding names the window tmux shows, not a focus report tmux stopped forwarding',
    async () => {
      // tmux's default: no focus reports reach its panes.
      expect((await tmux('show-options', '-gv', 'focus-events')).stdout.trim()).toBe('off');
      // With focus-events on, tmux forwards them: two's attach reports focus in.
      await tmux('set-option', '-g', 'focus-events', 'on');
      await tmux('select-window', '-t', 'w:0');
      await tmux('select-window', '-t', 'w:1');
      // Polled through a client (what the focus-report resolver asks the daemon); then what
      // the user runs says the same.
      const c = await daemon.connect();
      try {
        await eventually(
          async () => (await c.request('focused', {})).name === 'two',
          'two reported focus',
          JOB_TIMEOUT_MS,
        );
      } finally {
        await c.close();
      }
      const reported = await runClippy(['focused', '--via', 'focus-report'], env);
      expect(reported.stdout).toBe('two\n');
      // From a key binding, tmux answers first: it knows the pane it shows.
      let out = await fromTmuxBinding(`${clippy} focused --json`);
      expect(JSON.parse(out.split('\n')[0]!)).toMatchObject({ name: 'two', via: 'tmux' });

      // Back to tmux's default: the next window change reaches no pane, so two's report is stale.
      await tmux('set-option', '-g', 'focus-events', 'off');
      await tmux('select-window', '-t', 'w:0');
      out = await fromTmuxBinding(`${clippy} focused --json`);
      expect(out).toContain('exit=0');
      expect(JSON.parse(out.split('\n')[0]!)).toMatchObject({ name: 'one', via: 'tmux' });
      // The focus-report resolver says it cannot know, from a binding and from outside tmux.
      // From a binding and from outside, side by side (each a CLI process).
      const [fromBinding, outside] = await Promise.all([
        fromTmuxBinding(`${clippy} focused --via focus-report`),
        runClippy(['focused', '--via', 'focus-report'], env),
      ]);
      out = fromBinding;
      expect(out).toMatch(
        /focus-report: the report is from two's attach in a tmux pane, .*focus-events is off/,
      );
      expect(out).toContain('exit=1');
      expect(outside.code).toBe(1);
      expect(outside.stderr).toMatch(/focus-events is off/);
      // In a pane without clippy attach, the stale report does not answer for tmux either.
      await tmux('new-window', '-t', 'w', 'bash --norc --noprofile');
      out = await fromTmuxBinding(`${clippy} focused`);
      expect(out).toMatch(
        /no focused session \(tmux: no clippy attach runs in the active tmux pane/,
      );
      expect(out).toContain('exit=1');
    },
  );

  it.skipIf(!hasTmux)(
    'hotkeys install --tmux --write adds bindings once; Alt+Shift+C / Alt+Shift+V in tmux capture and paste',
    async () => {
      // one's latest turn, what the capture takes: a command line for two to run.
      const c = await daemon.connect();
      try {
        const id = await askTurn(c, 'one', 'echo echo relayed-$((4*5))');
        expect((await c.request('get_turn', { turn_id: id })).turn.text).toContain(
          'echo relayed-20',
        );
      } finally {
        await c.close();
      }
      const home = path.join(tmpdir, 'home');
      fs.mkdirSync(home);
      const installEnv = { ...env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
      const first = await runClippy(['hotkeys', 'install', '--tmux', '--write'], installEnv);
      expect(first.code).toBe(0);
      const conf = path.join(home, '.tmux.conf');
      expect(first.stdout).toContain(`added clippy's bindings to ${conf}`);
      const again = await runClippy(['hotkeys', 'install', '--tmux', '--write'], installEnv);
      expect(again.stdout).toContain('nothing changed');
      const text = fs.readFileSync(conf, 'utf8');
      expect(text.match(/bind-key/g)).toHaveLength(2);

      await tmux('source-file', conf);
      const client = ptys[0]!;
      await tmux('select-window', '-t', 'w:0');
      client.write('\x1bC'); // Alt+Shift+C, as a terminal sends it
      await until(
        () => client.screenText().includes('clippy: captured'),
        'tmux shows the capture',
        JOB_TIMEOUT_MS,
      );
      await tmux('select-window', '-t', 'w:1');
      client.write('\x1bV'); // Alt+Shift+V
      await until(
        () => client.screen().includes('relayed-20'),
        'the paste ran in two',
        JOB_TIMEOUT_MS,
      );
    },
  );
});
