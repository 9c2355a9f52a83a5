import { describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { waitState } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import type { TestDaemon } from '@clippy/testkit/daemon';
import { daemonForFile } from '@clippy/testkit/daemon-per-file';
import { platformMissing } from '@clippy/testkit/requirements';

// Talking to a program that asks (issue 12): a program reading input without a prompt is
// `blocked` (it waits for you), and `send`, `paste` and `relay` answer a blocked session at
// once, without --force. Linux only: the kernel tells whether the program waits in a terminal
// read.

const LINUX =
  platformMissing(
    process.platform === 'linux' && ['x64', 'arm64'].includes(process.arch),
    'the asking program (x64 or arm64)',
  ) === null;

let d: TestDaemon;
let c: ClippyClient;
daemonForFile((daemon, client) => ([d, c] = [daemon, client]));

async function stateOf(name: string): Promise<string | undefined> {
  const { sessions } = await c.request('list_sessions', {});
  return sessions.find((s) => s.name === name)?.state;
}

describe.skipIf(!LINUX)('a program that asks', () => {
  it('input() without a prompt is blocked, and send answers it without --force', async () => {
    const made = await runClippy(
      ['new', '-d', '--name', 'py', '--preset', 'python', '--', 'python3', '-i', '-q'],
      d.env.env,
    );
    expect(made.code).toBe(0);
    await waitState(c, 'py', 'idle');

    // Busy but not reading: stays busy (nothing may be typed into it unasked).
    await c.request('send', { session: 'py', text: 'import time; time.sleep(1.5)', enter: true });
    // Fixed: that it stays busy (never blocked) can only be watched for a while; 1 s of the
    // 1.5 s python sleeps is when a blocked state would have shown.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await stateOf('py')).toBe('busy');
    await waitState(c, 'py', 'idle');

    await c.request('send', { session: 'py', text: 'x = input()', enter: true });
    await waitState(c, 'py', 'blocked');
    const ls = await runClippy(['ls', '--json'], d.env.env);
    const listed = (
      JSON.parse(ls.stdout) as { sessions: { name: string; state: string }[] }
    ).sessions.find((s) => s.name === 'py');
    expect(listed?.state).toBe('blocked');

    const answer = await runClippy(['send', 'py', 'hello there', '--enter'], d.env.env);
    expect(answer.stderr).toBe('');
    expect(answer.code).toBe(0);
    await waitState(c, 'py', 'idle');
    const ask = await runClippy(['ask', 'py', 'print(x.upper())'], d.env.env);
    expect(ask.stdout.trim()).toBe('HELLO THERE');
  });

  it('a send waiting on a busy program goes through the moment the program reads input', async () => {
    const made = await runClippy(
      [
        'new',
        '-d',
        '--name',
        'cat',
        '--preset',
        'bash',
        '--',
        'bash',
        '--norc',
        '--noprofile',
        '-i',
      ],
      { ...d.env.env, PS1: '$ ' },
    );
    expect(made.code).toBe(0);
    await waitState(c, 'cat', 'idle');
    expect((await runClippy(['send', 'cat', 'cat', '--enter'], d.env.env)).code).toBe(0);
    // Sent while `cat` is still busy starting: it waits, and turning `blocked` (cat reads its
    // terminal) must wake it at once. Bounded below INJECT_IDLE_WAIT_MS (15 s), where a wait
    // that is never woken gives up with target_busy.
    const answer = await runClippy(
      ['send', 'cat', 'hello from send', '--enter'],
      d.env.env,
      10_000,
    );
    expect(answer.stderr).toBe('');
    expect(answer.code).toBe(0);
    await c.request('send', { session: 'cat', keys: ['C-d'] });
    const turn = await c.request(
      'wait_turn',
      { session: 'cat', after: 'cat:0', timeout_ms: 10_000 },
      { timeoutMs: 0 },
    );
    expect(turn.turn.text).toContain('hello from send');
  });

  it('bash `read` is blocked too, and paste answers it', async () => {
    const made = await runClippy(
      [
        'new',
        '-d',
        '--name',
        'sh',
        '--preset',
        'bash',
        '--',
        'bash',
        '--norc',
        '--noprofile',
        '-i',
      ],
      { ...d.env.env, PS1: '$ ' },
    );
    expect(made.code).toBe(0);
    await waitState(c, 'sh', 'idle');
    await c.request('send', { session: 'sh', text: 'echo from-the-buffer', enter: true });
    // `after` the session's none: the turn may complete before this request arrives.
    await c.request(
      'wait_turn',
      { session: 'sh', after: 'sh:0', timeout_ms: 10_000 },
      { timeoutMs: 0 },
    );
    expect((await runClippy(['capture', 'sh'], d.env.env)).code).toBe(0);
    await c.request('send', { session: 'sh', text: 'read -r line', enter: true });
    await waitState(c, 'sh', 'blocked');
    const paste = await runClippy(['paste', 'sh'], d.env.env);
    expect(paste.stderr).toBe('');
    expect(paste.code).toBe(0);
    await waitState(c, 'sh', 'idle');
    const ask = await runClippy(['ask', 'sh', 'echo "got: $line"'], d.env.env);
    expect(ask.stdout.trim()).toBe('got: from-the-buffer');
  });

  it('relay follows the same rule as paste: a blocked program takes the relayed turn at once', async () => {
    const bash = ['new', '-d', '--preset', 'bash', '--', 'bash', '--norc', '--noprofile', '-i'];
    for (const name of ['from', 'to']) {
      const made = await runClippy([...bash.slice(0, 2), '--name', name, ...bash.slice(2)], {
        ...d.env.env,
        PS1: '$ ',
      });
      expect(made.code).toBe(0);
      await waitState(c, name, 'idle');
    }
    await c.request('send', { session: 'from', text: 'echo relayed-turn', enter: true });
    // `after` the session's none: the turn may complete before this request arrives.
    await c.request(
      'wait_turn',
      { session: 'from', after: 'from:0', timeout_ms: 10_000 },
      { timeoutMs: 0 },
    );
    await c.request('send', { session: 'to', text: 'read -r line', enter: true });
    await waitState(c, 'to', 'blocked');
    // A relay that waited for idle would give up after 15 s with target_busy (exit 3).
    const relay = await runClippy(['relay', 'from', 'to'], d.env.env);
    expect(relay.stderr).toBe('');
    expect(relay.code).toBe(0);
    await waitState(c, 'to', 'idle');
    const ask = await runClippy(['ask', 'to', 'echo "got: $line"'], d.env.env);
    expect(ask.stdout.trim()).toBe('got: relayed-turn');
  });
});
