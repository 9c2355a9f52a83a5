import { afterEach, describe, expect, it } from 'vitest';
import { CliPty, runClippy } from '@clippy/testkit/cli-pty';
import type { TestDaemon } from '@clippy/testkit/daemon';
import { emptyDaemonPerTest } from '@clippy/testkit/daemon-per-file';
import { DESKTOP_VARS, envWithout } from '@clippy/testkit/env';
import { eventually, until } from '@clippy/testkit/until';

/** Per test: a daemon, two sessions, two attached terminals, a few dozen CLI runs. */
const E2E_TIMEOUT_MS = 90_000;
/** A focus report travels terminal → attach client → daemon as a notification: poll for it. */
const FOCUS_SETTLE_MS = 10_000;
/** Pause between two looks at the daemon's focused session while a report travels. */
const FOCUS_POLL_MS = 20;

// End-to-end: the real clippyd, the real `clippy` in real PTYs (needs `npm run build`). The
// focus-report resolver: terminals send `ESC [ I` / `ESC [ O`, as real ones do when the attach
// client turned focus reports on.

const PROMPT = 'PROMPT$ ';
const FOCUS_IN = '\x1b[I';
const FOCUS_OUT = '\x1b[O';
let daemon: TestDaemon;
let env: NodeJS.ProcessEnv;
const ptys: CliPty[] = [];

function attach(session: string): CliPty {
  const p = CliPty.clippy(['attach', session], { env, cols: 100, rows: 30 });
  ptys.push(p);
  return p;
}

/** A bash session with the test's prompt, started through a client (`new` is not the subject). */
async function newBash(name: string): Promise<void> {
  const c = await daemon.connect();
  try {
    await c.request('spawn', {
      command: 'bash',
      args: ['--norc', '--noprofile'],
      name,
      cwd: process.cwd(),
      env: env as Record<string, string>,
    });
  } finally {
    await c.close();
  }
}

/** What `clippy focused --json` says now: the session's name, or null with its error. */
async function focused(): Promise<{ name: string | null; via?: string; stderr: string }> {
  const r = await runClippy(['focused', '--json'], env);
  if (r.code === 0) {
    const j = JSON.parse(r.stdout) as { name: string; via: string };
    return { name: j.name, via: j.via, stderr: r.stderr };
  }
  return { name: null, stderr: r.stderr };
}

/**
 * Waits until the daemon names `name` as focused (polled through a client: a CLI process per
 * look costs about a second of CPU on a loaded machine), then checks that `clippy focused`,
 * what the user runs, says so too.
 */
async function focusedBecomes(name: string | null): Promise<void> {
  const c = await daemon.connect();
  try {
    let last: string | null = null;
    await eventually(
      async () => {
        last = (await c.request('focused', {})).name;
        return last === name;
      },
      () => `the daemon naming ${name} (it kept naming ${last})`,
      FOCUS_SETTLE_MS,
      FOCUS_POLL_MS,
    );
  } finally {
    await c.close();
  }
  expect((await focused()).name).toBe(name);
}

// One daemon for the file, emptied after each test (no session, no attached terminal).
emptyDaemonPerTest((d) => {
  daemon = d;
  // Only the focus reports may answer here: no tmux, no X display, no desktop notifications.
  env = { ...envWithout(daemon.env.env, DESKTOP_VARS), PS1: PROMPT, TERM: 'xterm-256color' };
});

afterEach(async () => {
  for (const p of ptys.splice(0)) await p.dispose();
}, E2E_TIMEOUT_MS);

describe('the focused session from terminal focus reports', { timeout: E2E_TIMEOUT_MS }, () => {
  it('follows focus in and out between two attached terminals, and a detach clears it', async () => {
    await newBash('left');
    await newBash('right');
    const a = attach('left');
    const b = attach('right');
    await a.waitFor(PROMPT);
    await b.waitFor(PROMPT);
    // The attach client asked both terminals for focus reports.
    expect(a.output).toContain('\x1b[?1004h');
    expect(b.output).toContain('\x1b[?1004h');

    const none = await focused();
    expect(none.name).toBeNull();
    expect(none.stderr).toMatch(/no focused session \(focus-report: no attached terminal/);
    expect(none.stderr).toMatch(/tmux: not inside tmux/);
    expect(none.stderr).toMatch(/x11: no X display/);

    a.write(FOCUS_IN);
    await focusedBecomes('left');
    expect((await focused()).via).toBe('focus-report');
    b.write(FOCUS_IN); // the user clicked the other window: the latest report wins
    await focusedBecomes('right');
    b.write(FOCUS_OUT); // …and then a window that is no clippy session
    await focusedBecomes(null);
    a.write(FOCUS_IN);
    await focusedBecomes('left');
    a.write('\x1d'); // detach: a terminal that shows no session cannot be the focused one
    await a.waitFor('[detached from left]');
    expect(await a.waitExit()).toBe(0);
    // The restore turned focus reports off again in the user's terminal.
    expect(a.output.slice(a.output.lastIndexOf('\x1b[?1004h'))).toContain('\x1b[?1004l');
    await focusedBecomes(null);
  });

  it('keeps focus reports out of the program, which sees only what was typed', async () => {
    await newBash('cat');
    const a = attach('cat');
    await a.waitFor(PROMPT);
    a.write('cat -v\r');
    await until(() => a.screen().some((l) => l === 'cat -v' || l.endsWith('$ cat -v')), 'cat runs');
    a.write(`${FOCUS_IN}typed${FOCUS_OUT}-here${FOCUS_IN}\r`);
    await a.waitFor('typed-here');
    await until(() => a.screen().filter((l) => l === 'typed-here').length === 2, 'cat echoes');
    expect(a.screenText()).not.toContain('^[');
    await focusedBecomes('cat');
  });

  it('captures, pastes and relays with --focused, and --notify shows the outcome in the focused terminal', async () => {
    await newBash('src');
    await newBash('dst');
    const a = attach('src');
    const b = attach('dst');
    await a.waitFor(PROMPT);
    await b.waitFor(PROMPT);
    a.write('echo echo relayed-$((4*5))\r');
    await a.waitFor('echo relayed-20');
    await until(
      () => a.screen().filter((l) => l === PROMPT.trimEnd() || l === PROMPT).length > 0,
      'prompt after the answer',
    );

    a.write(FOCUS_IN);
    await focusedBecomes('src');
    const cap = await runClippy(['capture', '--focused', '--notify'], env, 30_000);
    expect(cap.stderr).toBe('');
    expect(cap.code).toBe(0);
    expect(cap.stdout).toMatch(/^captured \S+:\d+ \(\d+ bytes of text, \d+ raw\)\n$/);
    // No desktop here: the message shows on the bottom line of the focused terminal.
    await until(
      () => a.screen()[29]!.includes('clippy: captured '),
      'the notice on the bottom line',
    );

    b.write(FOCUS_IN);
    await focusedBecomes('dst');
    const paste = await runClippy(['paste', '--focused'], env, 30_000);
    expect(paste.stderr).toBe('');
    expect(paste.code).toBe(0);
    expect(paste.stdout).toMatch(/^pasted \S+:\d+ \(\d+ bytes\) into dst\n$/);
    await until(() => b.screen().includes('relayed-20'), 'the pasted command ran in dst');

    a.write(FOCUS_IN);
    await focusedBecomes('src');
    const relay = await runClippy(['relay', '--focused-to', 'dst'], env, 30_000);
    expect(relay.code).toBe(0);
    expect(relay.stdout).toMatch(/^relayed \S+:\d+ \(\d+ bytes\) into dst\n$/);
    await until(
      () => b.screen().filter((l) => l === 'relayed-20').length === 2,
      'the relayed command ran in dst again',
    );
  });

  it('says what is wrong with the command line, and that nothing is focused', async () => {
    const both = await runClippy(['capture', 'x', '--focused'], env);
    expect(both.code).toBe(64);
    expect(both.stderr).toMatch(/not both/);
    const neither = await runClippy(['paste'], env);
    expect(neither.code).toBe(64);
    expect(neither.stderr).toMatch(/--focused/);
    const nothing = await runClippy(['capture', '--focused'], env);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toMatch(/^clippy: no focused session/);
  });
});
