import { describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { runClippy, type ClippyRun } from '@clippy/testkit/cli-pty';
import type { TestDaemon } from '@clippy/testkit/daemon';
import { emptyDaemonPerTest } from '@clippy/testkit/daemon-per-file';
import { eventually } from '@clippy/testkit/until';

// End-to-end: the real clippyd and the real `clippy` binary (needs `npm run build`). Each
// failure exits with the code docs/cli.md gives it and a message that names the problem.

/** Per test: a daemon, a session and a few CLI runs on a loaded 2-core CI box. */
const E2E_TIMEOUT_MS = 60_000;
/**
 * How long a test waits for `wait` to be connected before it kills the daemon under it: a
 * deadline only, as long as testkit's RUN_TIMEOUT_MS (node's start-up alone took 12.5 s at a
 * load average of 20; 15 s failed at 18).
 */
const CONNECTED_TIMEOUT_MS = 30_000;

let daemon: TestDaemon;
let env: NodeJS.ProcessEnv;

// One daemon for the file, emptied after each test (one test kills it: the next gets a new one).
emptyDaemonPerTest((d) => {
  daemon = d;
  env = daemon.env.env;
});

/**
 * Starts `sleep SECONDS` as session `name` through a client (what `clippy new -d --name NAME
 * -- sleep SECONDS` asks): set-up, not what the test checks (a CLI process costs about a
 * second of CPU on a loaded machine).
 */
async function sleeper(c: ClippyClient, name: string, seconds: number): Promise<void> {
  await c.request('spawn', {
    command: 'sleep',
    args: [String(seconds)],
    name,
    cwd: process.cwd(),
    env: env as Record<string, string>,
  });
}

/** The file's daemon's sessions' names, as `clippy ls --json` lists them (live ones). */
async function liveNames(c: ClippyClient): Promise<string[]> {
  const { sessions } = await c.request('list_sessions', {});
  return sessions.filter((s) => s.state !== 'exited').map((s) => s.name);
}

/** Runs `fn` with a client of the file's daemon, closed after (the daemon is emptied per test). */
async function withClient<T>(fn: (c: ClippyClient) => Promise<T>): Promise<T> {
  const c = await daemon.connect();
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}

describe('exit codes and messages', { timeout: E2E_TIMEOUT_MS }, () => {
  it('wait exits 69 and says the daemon went away when the daemon dies under it', async () => {
    const c = await daemon.connect();
    let waiting: Promise<ClippyRun> | undefined;
    try {
      await sleeper(c, 'w', 300);
      waiting = runClippy(['wait', 'w'], env, E2E_TIMEOUT_MS);
      // `wait` is connected when the daemon counts it beside this test's own client.
      await eventually(
        async () => (await c.request('daemon_status', {})).clients >= 2,
        'clippy wait connected',
        CONNECTED_TIMEOUT_MS,
      );
    } finally {
      await c.close().catch(() => {});
      // Killed in any case: what this test checks, and after a failure the end of `wait` and
      // of this client's daemon (the next test gets a new one, not one still in use).
      process.kill(daemon.pid, 'SIGKILL');
    }
    const w = await waiting!;
    expect(w.stderr).toMatch(/daemon/);
    expect(w.code).toBe(69);
  });

  it('new with an unknown --preset or a bad --pattern is a usage error (64) naming it', async () => {
    // Independent refusals (each is a node start-up): run at once.
    const [preset, unclosed, lookahead] = await Promise.all(
      [
        ['new', '-d', '--preset', 'nosuch', '--', 'sleep', '9'],
        ['new', '-d', '--pattern', '(', '--', 'sleep', '9'],
        ['new', '-d', '--pattern', '(?=a)', '--', 'sleep', '9'],
      ].map((args) => runClippy(args, env)),
    );
    expect(preset!.stderr).toMatch(/unknown preset "nosuch"; known presets: .*claude/);
    expect(preset!.code).toBe(64);
    expect(unclosed!.stderr).toMatch(/not a valid regular expression/);
    expect(unclosed!.code).toBe(64);
    expect(lookahead!.stderr).toMatch(/lookahead/);
    expect(lookahead!.code).toBe(64);
    // Nothing was started.
    expect(await withClient(liveNames)).toEqual([]);
  });

  it('send without text or keys says what is missing; with both, that it takes one', async () => {
    const cases: [string[], string][] = [
      [
        ['send', 'x'],
        'clippy: send needs something to type: TEXT (or - for stdin) or --keys KEY...\n',
      ],
      [
        ['send', 'x', '--enter'],
        'clippy: send needs something to type: TEXT (or - for stdin) or --keys KEY...; to press Enter alone: clippy send x --keys Enter\n',
      ],
      [['send', 'x', '--keys'], 'clippy: --keys needs at least one key (e.g. --keys Down Enter)\n'],
      [
        ['send', 'x', 'hi', '--keys', 'Enter'],
        'clippy: send takes TEXT (or - for stdin) or --keys KEY..., not both\n',
      ],
    ];
    // Independent refusals that change nothing: run at once (each is a node start-up).
    const runs = await Promise.all(cases.map(([args]) => runClippy(args, env)));
    cases.forEach(([args, stderr], i) => {
      expect({ args, stderr: runs[i]!.stderr, code: runs[i]!.code }).toEqual({
        args,
        stderr,
        code: 64,
      });
    });
  });

  it('--timeout that is not a number says what it got', async () => {
    // Independent refusals that change nothing: run at once (each is a node start-up).
    const [wait, ask, negative] = await Promise.all(
      [
        ['wait', 'x', '--timeout', 'abc'],
        ['ask', 'x', 'hi', '--timeout', 'abc'],
        ['wait', 'x', '--timeout', '-2'],
      ].map((args) => runClippy(args, env)),
    );
    for (const r of [wait!, ask!]) {
      expect(r.stderr).toBe(
        "clippy: --timeout must be a number of seconds, 0 for no limit (got 'abc')\n",
      );
      expect(r.code).toBe(64);
    }
    expect(negative!.stderr).toContain("(got '-2')");
    expect(negative!.code).toBe(64);
  });

  it('an unknown command is named even when nothing looks like it', async () => {
    const r = await runClippy(['frobnicate'], env);
    expect(r.stderr).toBe("clippy: unknown command 'frobnicate'\nRun 'clippy --help' for usage.\n");
    expect(r.code).toBe(64);
  });

  it('rm of a live session says to end it with clippy kill', async () => {
    await withClient((c) => sleeper(c, 'live', 300));
    const rm = await runClippy(['rm', 'live'], env);
    expect(rm.stderr).toBe(
      "clippy: session 'live' is still running: end it with `clippy kill live` (which also removes it)\n",
    );
    expect(rm.code).toBe(1);
    expect(await withClient(liveNames)).toEqual(['live']);
  });
});
