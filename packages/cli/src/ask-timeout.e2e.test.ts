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

// Issue 44 items 5 and 6: `--timeout` bounds the whole exchange, a busy target included, and
// says what it waited for; `-` reads the text from standard input; empty text is refused at once.
describe('ask --timeout bounds the whole exchange', () => {
  it('a target that stays busy: exit 124 naming the timeout and the busy target, and nothing is typed later', async () => {
    await spawnProgram(d, c, 'busy', 'bash', 'bash', ['--norc', '--noprofile', '-i']);
    const sent = await runClippy(['send', 'busy', 'sleep 600', '--enter'], d.env.env);
    expect(sent.code).toBe(0);
    await waitState(c, 'busy', 'busy');
    const r = await runClippy(['ask', 'busy', 'echo late', '--timeout', '1'], d.env.env);
    expect(r.stderr).toMatch(/no answer from busy within 1 s \(--timeout 1\): it stayed busy/);
    expect(r.stderr).toMatch(/the message was not sent/);
    expect(r.code).toBe(124);
    // Still busy when the ask gave up: it did not wait for the 15 s of a plain `send`.
    expect(await stateOf('busy')).toBe('busy');
    // Ctrl-C ends the sleep; the text of the ask that gave up is never typed in.
    expect((await runClippy(['send', 'busy', '--keys', 'C-c'], d.env.env)).code).toBe(0);
    await waitState(c, 'busy', 'idle');
    const next = await runClippy(['ask', 'busy', 'echo next', '--timeout', '20'], d.env.env);
    expect(next.stdout).toBe('next\n');
    const { turns } = await c.request('list_turns', { session: 'busy' });
    expect(turns.map((t) => t.prompt)).not.toContain('echo late');
  });

  it('a turn that does not complete in time: exit 124 naming the timeout given, not what was left of it', async () => {
    await spawnProgram(d, c, 'slow', 'bash', 'bash', ['--norc', '--noprofile', '-i']);
    const r = await runClippy(['ask', 'slow', 'sleep 600', '--timeout', '2'], d.env.env);
    expect(r.stderr).toMatch(
      /no answer from slow within 2 s \(--timeout 2\): the message was sent, and its turn had not completed/,
    );
    expect(r.code).toBe(124);
    await runClippy(['send', 'slow', '--keys', 'C-c'], d.env.env);
  });
});

describe('ask and send take their text from standard input, and refuse an empty one', () => {
  it('`ask S -` reads the message from stdin', async () => {
    await spawnProgram(d, c, 'in', 'bash', 'bash', ['--norc', '--noprofile', '-i']);
    const r = await runClippy(
      ['ask', 'in', '-', '--timeout', '20'],
      d.env.env,
      undefined,
      'echo from stdin\n',
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('from stdin\n');
  });

  it('empty text is a usage error at once (exit 64), for ask and for send --enter', async () => {
    await spawnProgram(d, c, 'empty', 'bash', 'bash', ['--norc', '--noprofile', '-i']);
    for (const [args, stdin] of [
      [['ask', 'empty', '', '--timeout', '30'], undefined],
      [['ask', 'empty', '   '], undefined],
      [['ask', 'empty', '-'], ''],
      [['send', 'empty', '', '--enter'], undefined],
      [['send', 'empty', '-', '--enter'], '\n'],
    ] as [string[], string | undefined][]) {
      const r = await runClippy(args, d.env.env, undefined, stdin);
      expect(r.stderr, args.join(' ')).toMatch(/nothing to submit: the text is empty/);
      expect(r.code, args.join(' ')).toBe(64);
    }
    // Nothing reached the shell: no turn.
    const { turns } = await c.request('list_turns', { session: 'empty' });
    expect(turns).toEqual([]);
  });

  it('the daemon refuses an empty text with Enter at once too (a client of the protocol)', async () => {
    await spawnProgram(d, c, 'empty2', 'bash', 'bash', ['--norc', '--noprofile', '-i']);
    await expect(c.request('send', { session: 'empty2', text: '', enter: true })).rejects.toThrow(
      /nothing to submit/,
    );
  });
});
