import { describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { spawnProgram, waitState } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import type { TestDaemon } from '@clippy/testkit/daemon';
import { daemonForFile } from '@clippy/testkit/daemon-per-file';

// `ask` never hangs forever (issue 12 item 5), through the real CLI against real python3 and
// node: a block left open at the continuation prompt gets its closing Enter, input that still
// wants more fails saying so, and `--timeout 0` means no limit.

let d: TestDaemon;
let c: ClippyClient;
daemonForFile((daemon, client) => ([d, c] = [daemon, client]));

async function stateOf(name: string): Promise<string> {
  const { sessions } = await c.request('list_sessions', {});
  return sessions.find((s) => s.name === name)!.state;
}

describe('ask never hangs forever', () => {
  it('python: a one-line for loop waiting at "... " gets the closing Enter and answers', async () => {
    await spawnProgram(d, c, 'py', 'python', 'python3', ['-i', '-q']);
    const r = await runClippy(
      ['ask', 'py', 'for i in range(3): print(i)', '--timeout', '20'],
      d.env.env,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('0\n1\n2\n');
    await waitState(c, 'py', 'idle');
  });

  it('python: input that still wants more after the closing Enter fails at once with exit 5', async () => {
    await spawnProgram(d, c, 'py2', 'python', 'python3', ['-i', '-q']);
    // No time limit at all: only the program saying it wants more can end this ask.
    const r = await runClippy(['ask', 'py2', 'print((1,', '--timeout', '0'], d.env.env);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/continuation prompt.*wants more input.*\(needs_input\)/);
    // ls says what the program does: it waits for input, not idle at its prompt.
    expect(await stateOf('py2')).toBe('blocked');
    // Closing the bracket completes the same turn, with the answer alone.
    const rest = await runClippy(['ask', 'py2', '))', '--timeout', '20'], d.env.env);
    expect(rest.code).toBe(0);
    // The answer alone: not the continued line's echo (`... ))`), whatever the machine's load.
    expect(rest.stdout).toBe('(1,)\n');
  });

  it('node: an open block gets its closing Enter the same way', async () => {
    await spawnProgram(d, c, 'nd', 'node', process.execPath, ['-i']);
    const r = await runClippy(
      ['ask', 'nd', '[1, 2, 3].map((x) => {', '--timeout', '20'],
      d.env.env,
    );
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/needs_input/);
    const rest = await runClippy(['ask', 'nd', 'return x * 2 })', '--timeout', '20'], d.env.env);
    expect(rest.code).toBe(0);
    expect(rest.stdout).toBe('[ 2, 4, 6 ]\n');
  });

  it('wait --timeout 0 waits without a limit (and a bad value is refused, naming it)', async () => {
    await spawnProgram(d, c, 'w', 'bash', 'bash', ['--norc', '--noprofile', '-i']);
    // `--after w:0` (the session's first turn, whenever it comes): without it the wait counts
    // only a turn completed after its request arrived, and a CLI starting on a loaded machine
    // could ask after the turn below was made (a connection count said nothing of the request).
    const waiting = runClippy(['wait', 'w', '--after', 'w:0', '--timeout', '0'], d.env.env);
    await c.request('send', { session: 'w', text: 'echo waited', enter: true });
    const r = await waiting;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('waited\n');
    const bad = await runClippy(['wait', 'w', '--timeout', '-1'], d.env.env);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/--timeout .*'-1'/);
  });
});
