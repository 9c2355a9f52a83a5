import { describe, expect, it } from 'vitest';
import { runClippy } from '@clippy/testkit/cli-pty';
import type { TestDaemon } from '@clippy/testkit/daemon';
import { emptyDaemonPerTest } from '@clippy/testkit/daemon-per-file';

// End-to-end: the real clippyd and the real `clippy` binary (needs `npm run build`). Each
// failure exits with the code docs/cli.md gives it and a message that names the problem.

/** Per test: a daemon, a session and a few CLI runs on a loaded 2-core CI box. */
const E2E_TIMEOUT_MS = 60_000;
/** How long a test waits for `wait` to be connected before it kills the daemon under it. */
const CONNECTED_TIMEOUT_MS = 15_000;

let daemon: TestDaemon;
let env: NodeJS.ProcessEnv;

// One daemon for the file, emptied after each test (one test kills it: the next gets a new one).
emptyDaemonPerTest((d) => {
  daemon = d;
  env = daemon.env.env;
});

async function clientsConnected(): Promise<number> {
  const r = await runClippy(['daemon', 'status', '--json'], env);
  return (JSON.parse(r.stdout) as { clients?: number }).clients ?? 0;
}

describe('exit codes and messages', { timeout: E2E_TIMEOUT_MS }, () => {
  it('wait exits 69 and says the daemon went away when the daemon dies under it', async () => {
    const r = await runClippy(['new', '-d', '--name', 'w', '--', 'sleep', '300'], env);
    expect(r.code).toBe(0);
    const waiting = runClippy(['wait', 'w'], env, E2E_TIMEOUT_MS);
    // `wait` is connected when the daemon counts it beside the status call itself.
    const deadline = Date.now() + CONNECTED_TIMEOUT_MS;
    while ((await clientsConnected()) < 2) {
      if (Date.now() > deadline) throw new Error('clippy wait never connected');
    }
    process.kill(daemon.pid, 'SIGKILL');
    const w = await waiting;
    expect(w.stderr).toMatch(/daemon/);
    expect(w.code).toBe(69);
  });

  it('new with an unknown --preset or a bad --pattern is a usage error (64) naming it', async () => {
    const preset = await runClippy(['new', '-d', '--preset', 'nosuch', '--', 'sleep', '9'], env);
    expect(preset.stderr).toMatch(/unknown preset "nosuch"; known presets: .*claude/);
    expect(preset.code).toBe(64);
    const unclosed = await runClippy(['new', '-d', '--pattern', '(', '--', 'sleep', '9'], env);
    expect(unclosed.stderr).toMatch(/not a valid regular expression/);
    expect(unclosed.code).toBe(64);
    const lookahead = await runClippy(['new', '-d', '--pattern', '(?=a)', '--', 'sleep', '9'], env);
    expect(lookahead.stderr).toMatch(/lookahead/);
    expect(lookahead.code).toBe(64);
    // Nothing was started.
    const ls = await runClippy(['ls', '--json'], env);
    expect(JSON.parse(ls.stdout).sessions).toEqual([]);
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
    for (const [args, stderr] of cases) {
      const r = await runClippy(args, env);
      expect({ args, stderr: r.stderr, code: r.code }).toEqual({ args, stderr, code: 64 });
    }
  });

  it('--timeout that is not a number says what it got', async () => {
    for (const cmd of [
      ['wait', 'x', '--timeout', 'abc'],
      ['ask', 'x', 'hi', '--timeout', 'abc'],
    ]) {
      const r = await runClippy(cmd, env);
      expect(r.stderr).toBe(
        "clippy: --timeout must be a number of seconds, 0 for no limit (got 'abc')\n",
      );
      expect(r.code).toBe(64);
    }
    const negative = await runClippy(['wait', 'x', '--timeout', '-2'], env);
    expect(negative.stderr).toContain("(got '-2')");
    expect(negative.code).toBe(64);
  });

  it('an unknown command is named even when nothing looks like it', async () => {
    const r = await runClippy(['frobnicate'], env);
    expect(r.stderr).toBe("clippy: unknown command 'frobnicate'\nRun 'clippy --help' for usage.\n");
    expect(r.code).toBe(64);
  });

  it('rm of a live session says to end it with clippy kill', async () => {
    const r = await runClippy(['new', '-d', '--name', 'live', '--', 'sleep', '300'], env);
    expect(r.code).toBe(0);
    const rm = await runClippy(['rm', 'live'], env);
    expect(rm.stderr).toBe(
      "clippy: session 'live' is still running: end it with `clippy kill live` (which also removes it)\n",
    );
    expect(rm.code).toBe(1);
    const ls = await runClippy(['ls', '--json'], env);
    expect(JSON.parse(ls.stdout).sessions.map((s: { name: string }) => s.name)).toEqual(['live']);
  });
});
