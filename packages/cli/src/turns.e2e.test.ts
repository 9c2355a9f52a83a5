import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import type { Push } from '@clippy/protocol';
import {
  answerText,
  promptTimes,
  spawnAgent,
  submissions,
  tuiAnswerText,
} from '@clippy/testkit/agents/harness';
import { agentCommand } from '@clippy/testkit/agents/index';
import { runClippy } from '@clippy/testkit/cli-pty';
import { TestDaemon } from '@clippy/testkit/daemon';
import { until } from '@clippy/testkit/until';

// Turn detection end to end: the real daemon, fake agents in real PTYs, the real CLI where the
// command is what is tested (one daemon for the file; every session has its own name).

let d: TestDaemon;
let c: ClippyClient;
const events: Push[] = [];

beforeAll(async () => {
  d = await TestDaemon.start();
  c = await d.connect();
  await c.request('subscribe', { events: ['turn_completed', 'session_ready'] });
  c.onAny((m) => events.push(m));
});
afterAll(async () => {
  await c?.close();
  await d?.stop();
});

const turnEvents = (name: string) =>
  events.filter((e): e is Push<'turn_completed'> => e.type === 'turn_completed' && e.name === name);

/** Sends a message (injection: waits for idle, Enter confirmed) and waits for the turn after `after`. */
async function ask(name: string, text: string, after: number) {
  const sent = await c.request('send', { session: name, text, enter: true });
  expect(sent.submitted).toBe(true);
  return (
    await c.request(
      'wait_turn',
      { session: name, after: `${name}:${after}`, timeout_ms: 20_000 },
      { timeoutMs: 0 },
    )
  ).turn;
}

describe('turn detection under the daemon', () => {
  it('line agent: every turn once, never before its prompt, exact text; turns/show/ls through the CLI', async () => {
    const log = await spawnAgent(d, c, 'aid', 'aider', 'aider');
    expect(events.filter((e) => e.type === 'session_ready' && e.name === 'aid')).toHaveLength(1);
    for (const [i, q] of ['first question', 'second one'].entries()) {
      const turn = await ask('aid', q, i);
      expect(turn).toMatchObject({
        seq: i + 1,
        prompt: q,
        text: answerText(q),
        interrupted: false,
        truncated: false,
      });
    }
    const r = await runClippy(['ask', 'aid', 'third', '--timeout', '10'], d.env.env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${answerText('third')}\n`);

    await until(() => turnEvents('aid').length >= 3, "aid's three turn events");
    const seen = turnEvents('aid');
    expect(seen.map((t) => t.turn.seq)).toEqual([1, 2, 3]);
    expect(seen.map((t) => t.turn.prompt)).toEqual(['first question', 'second one', 'third']);
    const prompts = promptTimes(log);
    seen.forEach((t, i) => expect(t.turn.timestamp).toBeGreaterThanOrEqual(prompts[i + 1]!));

    const list = await runClippy(['turns', 'aid', '--json'], d.env.env);
    expect((JSON.parse(list.stdout) as { seq: number }[]).map((m) => m.seq)).toEqual([3, 2, 1]);
    const show = await runClippy(['show', 'aid:2', '--meta'], d.env.env);
    expect(show.stdout).toMatch(/^turn_id: ".+:2"$/m);
    expect(show.stdout).toMatch(/^prompt: "second one"$/m);
    expect(show.stdout).toMatch(/^byte_length: \d+$/m);
    const { sessions } = await c.request('list_sessions', {});
    expect(sessions.find((s) => s.name === 'aid')).toMatchObject({
      state: 'idle',
      turn_count: 3,
      has_turn: true,
      preset: 'aider',
    });
  });

  it('TUI agent (claude preset): the spinner never ends a turn early; text without box and chrome', async () => {
    const log = await spawnAgent(d, c, 'cl', 'claude', 'claude', ['--delay', '500']);
    const turn = await ask('cl', 'hello claude', 0);
    expect(turn.text).toBe(tuiAnswerText('hello claude'));
    expect(turn.timestamp).toBeGreaterThanOrEqual(promptTimes(log)[1]!);
    expect(turnEvents('cl')).toHaveLength(1);
    // Pasted, as the TUI enabled paste mode (one line too), and submitted once.
    expect(submissions(log)).toEqual([
      {
        text: 'hello claude',
        bytes: Buffer.from('hello claude').toString('base64'),
        pasted: true,
      },
    ]);
  });

  it('slow agent: pauses longer than the quiet period complete no turn', async () => {
    await spawnAgent(d, c, 'slow', 'slow', 'aider', ['--pause', '600']);
    const turn = await ask('slow', 'go slowly', 0);
    expect(turn.text).toBe(
      `Piece 1 of 3 is done.\nPiece 2 of 3 is done.\nPiece 3 of 3 is done.\n${answerText('go slowly')}`,
    );
    expect(turnEvents('slow')).toHaveLength(1);
  });

  it('crashing agent: no turn; the wait reports the exit; show has nothing', async () => {
    await spawnAgent(d, c, 'boom', 'crash', 'aider');
    await expect(ask('boom', 'crash now', 0)).rejects.toMatchObject({ code: 'session_exited' });
    expect((await c.request('list_turns', { session: 'boom' })).turns).toEqual([]);
    expect(turnEvents('boom')).toHaveLength(0);
    const show = await runClippy(['show', 'boom'], d.env.env);
    expect(show.code).toBe(4);
    expect(show.stderr).toMatch(/no completed turn.*\(no_turn\)/);
  });

  it('5 MB turns: cut and flagged at the default 4 MiB cap; whole under a configured 8 MiB cap', async () => {
    await spawnAgent(d, c, 'big4', 'big', 'aider');
    const dir = join(d.env.root, 'config', 'clippy');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ maxTurnBytes: 8 * 1024 * 1024 }));
    try {
      await spawnAgent(d, c, 'big8', 'big', 'aider');
    } finally {
      rmSync(join(dir, 'config.json'));
    }
    const [cut, whole] = await Promise.all([
      ask('big4', 'stream it', 0),
      ask('big8', 'stream it', 0),
    ]);
    expect(cut).toMatchObject({ byte_length: 4 * 1024 * 1024, truncated: true });
    expect(whole.truncated).toBe(false);
    expect(whole.byte_length).toBeGreaterThan(5_000_000);
    expect(whole.text).toMatch(/^ANSWER: stream it\nbig 00000001 x{66}\n/);
    expect(whole.text.endsWith('\nThe fake agent read your message.\nEnd of answer.')).toBe(true);
  }, 60_000);

  it('wait --after TURN: a turn that completed before wait asked is not missed (race-free for scripts)', async () => {
    await spawnAgent(d, c, 'race', 'aider', 'aider');
    const env = d.env.env;
    // The script notes where the session is, sends, and only then waits: here the answer is
    // complete before `wait` connects (the widest case of a turn completing between a wait's
    // connect and its request). Without --after, wait would wait for the turn after it.
    const first = await ask('race', 'early answer', 0);
    const r = await runClippy(['wait', 'race', '--after', 'race:0', '--json', '-t', '20'], env);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({
      turn_id: first.turn_id,
      text: answerText('early answer'),
    });
    // Its number works too; the session's own ID as well.
    const byNumber = await runClippy(['wait', 'race', '--after', '0', '-t', '20'], env);
    expect(byNumber.stdout).toBe(`${answerText('early answer')}\n`);
    // After the latest turn, wait waits for the next one, which comes once asked for.
    const waiting = runClippy(['wait', 'race', '--after', first.turn_id, '-t', '20'], env, 30_000);
    await ask('race', 'later', 1);
    expect((await waiting).stdout).toBe(`${answerText('later')}\n`);

    const future = await runClippy(['wait', 'race', '--after', 'race:9', '-t', '1'], env);
    expect(future.stderr).toBe(
      "clippy: turn race:9 does not exist yet: race's latest is race:2 (turn_not_found)\n",
    );
    expect(future.code).toBe(4);
    const other = await runClippy(['wait', 'race', '--after', 'aid:1', '-t', '1'], env);
    expect(other.stderr).toMatch(
      /^clippy: turn aid:1 is not one of session 'race' \(\w+\) \(invalid_argument\)\n$/,
    );
    expect(other.code).toBe(1);
    const bad = await runClippy(['wait', 'race', '--after', 'last'], env);
    expect(bad.stderr).toBe(
      "clippy: --after takes a turn ID such as race:3 (race:0 for before its first turn), or its number (got 'last')\n",
    );
    expect(bad.code).toBe(64);
  });

  it('wait --timeout exits 124; a bad preset or pattern is refused at spawn and starts nothing', async () => {
    await spawnAgent(d, c, 'idle', 'aider', 'aider');
    const r = await runClippy(['wait', 'idle', '--timeout', '0.5'], d.env.env);
    expect(r.code).toBe(124);
    expect(r.stderr).toMatch(/\(timeout\)/);
    const { command, args } = agentCommand('aider');
    const bad = await runClippy(
      ['new', '-d', '--name', 'bad', '--preset', 'nosuch', '--', command, ...args],
      d.env.env,
    );
    // A usage error (docs/cli.md): the command line named a preset that does not exist.
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/unknown preset "nosuch".*\(unknown_preset\)/);
    await expect(
      c.request('spawn', { command, args, name: 'bad', pattern: 'a\nb' }),
    ).rejects.toMatchObject({
      code: 'invalid_pattern',
    });
    await expect(
      c.request('spawn', { command, args, name: 'bad', pattern: '([' }),
    ).rejects.toMatchObject({
      code: 'invalid_pattern',
      message: expect.stringMatching(/not a valid regular expression/),
    });
    const { sessions } = await c.request('list_sessions', {});
    expect(sessions.map((s) => s.name)).not.toContain('bad');
  });
});
