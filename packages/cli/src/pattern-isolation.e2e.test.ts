import { afterEach, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { runClippy } from '@clippy/testkit/cli-pty';
import { TestDaemon } from '@clippy/testkit/daemon';
import { eventually } from '@clippy/testkit/until';

// A user's prompt pattern runs on other people's output: one session's pattern must never stop
// turn detection for the others (they share the pipeline worker). The real daemon (built, so
// detection runs in its worker), real bash sessions, the real CLI.

/** Nested quantifiers: a backtracking engine takes 2^n steps on n word characters and a `!`. */
const EVIL_PATTERN = String.raw`^(\w+\s?)+> $`;
/** Word characters in the killer line: far past anything a backtracking engine finishes. */
const KILLER_WORD_CHARS = 64;
/** Seconds a turn may take here: bash answers in milliseconds, so this only bounds a failure. */
const TURN_TIMEOUT_S = 10;

/** Pause between two looks at a session's state. */
const STATE_POLL_MS = 20;

let daemon: TestDaemon | null = null;
let client: ClippyClient | null = null;

afterEach(async () => {
  await client?.close();
  client = null;
  await daemon?.stop();
  daemon = null;
});

function bash(env: NodeJS.ProcessEnv, name: string, opts: string[], ps1: string) {
  return runClippy(
    ['new', '-d', '--name', name, ...opts, '--', 'bash', '--norc', '--noprofile', '-i'],
    {
      ...env,
      PS1: ps1,
    },
  );
}

describe('prompt patterns are isolated from each other', () => {
  it('a pattern with nested quantifiers neither hangs its own session nor stops any other', async () => {
    daemon = await TestDaemon.start();
    const env = daemon.env.env;
    client = await daemon.connect();
    const c = client;
    /** The session's state once idle, or the last one seen when it does not get there. */
    const idle = async (name: string) => {
      let state: string | undefined;
      await eventually(
        async () => {
          const { sessions } = await c.request('list_sessions', {});
          state = sessions.find((s) => s.name === name)?.state;
          return state === 'idle';
        },
        `${name} idle`,
        TURN_TIMEOUT_S * 1000,
        STATE_POLL_MS,
      ).catch(() => {});
      return state;
    };
    const ask = async (name: string, text: string) => {
      const r = await runClippy(['ask', name, text, '--timeout', String(TURN_TIMEOUT_S)], env);
      return { code: r.code, stdout: r.stdout, stderr: r.stderr };
    };

    expect((await bash(env, 'evil', ['--pattern', EVIL_PATTERN], 'evil> ')).code).toBe(0);
    expect((await bash(env, 'good', ['--preset', 'bash'], 'PROMPT$ ')).code).toBe(0);
    expect(await idle('evil')).toBe('idle');
    expect(await idle('good')).toBe('idle');

    // The killer line is the evil session's answer: its pattern is tried on it. Every session
    // is tried before anything is asserted, so a failure shows which of them stopped.
    const evil = await ask('evil', `printf 'w%.0s' {1..${KILLER_WORD_CHARS}}; echo '!'`);
    const good = await ask('good', 'echo ok-$((40+2))');
    const late = (await bash(env, 'late', ['--preset', 'bash'], 'PROMPT$ ')).code;
    const lateState = await idle('late');
    expect({ evil, good, late, lateState }).toEqual({
      evil: { code: 0, stdout: `${'w'.repeat(KILLER_WORD_CHARS)}!\n`, stderr: '' },
      good: { code: 0, stdout: 'ok-42\n', stderr: '' },
      late: 0,
      lateState: 'idle',
    });
  }, 90_000);
});
