import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import type { Push } from '@clippy/protocol';
import {
  answerText,
  runRaw,
  spawnAgent,
  submissions,
  tuiAnswerText,
} from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import type { TestDaemon } from '@clippy/testkit/daemon';
import { daemonForFile } from '@clippy/testkit/daemon-per-file';
import { eventually, until } from '@clippy/testkit/until';

// Relay end to end with the real CLI: capture from one fake agent, paste into another, and
// check what the receiving agent got (its own log of every submission).

let d: TestDaemon;
let c: ClippyClient;
daemonForFile((daemon, client) => ([d, c] = [daemon, client]));

async function answer(name: string, text: string): Promise<void> {
  await c.request('send', { session: name, text, enter: true });
  await c.request(
    'wait_turn',
    { session: name, after: `${name}:0`, timeout_ms: 10_000 },
    { timeoutMs: 0 },
  );
}

/**
 * What the receiving agent logged once it read something: a relay ends when the destination's
 * terminal confirmed the Enter (a line program's echo comes from the kernel, before the program
 * reads the line), so the agent's own log may come a moment after `clippy relay` exits.
 */
function submitted(log: string) {
  return eventually(() => {
    const got = submissions(log);
    return got.length > 0 && got;
  }, `a submission in ${log}`);
}

describe('relay between agents', () => {
  it('capture + paste: the receiver gets exactly the text, multi-line as one submission; deliver to a file', async () => {
    await spawnAgent(d, c, 'src', 'claude', 'claude');
    const dst = await spawnAgent(d, c, 'dst', 'claude', 'claude');
    await answer('src', 'relay me');
    const cap = await runClippy(['capture', 'src'], d.env.env);
    // The bytes a person sees (the text, which paste sends) and the raw ones, each labelled.
    const { turn } = await c.request('get_turn', { session: 'src' });
    const text = Buffer.byteLength(tuiAnswerText('relay me'));
    expect(cap.stdout).toBe(
      `captured ${turn.turn_id} (${text} bytes of text, ${turn.content.length} raw)\n`,
    );
    const paste = await runClippy(['paste', 'dst'], d.env.env);
    expect(paste.stderr).toBe('');
    expect(paste.code).toBe(0);
    expect(paste.stdout).toContain(`(${text} bytes`);
    const got = await submitted(dst);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ text: tuiAnswerText('relay me'), pasted: true });
    // The buffer survives the paste: delivering it to a file gives the same text.
    const file = join(d.env.root, 'out.txt');
    const del = await runClippy(['deliver', '--sink', 'file', '--path', file], d.env.env);
    expect(del.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(tuiAnswerText('relay me'));
  });

  it('relay --raw: the receiver gets exactly the bytes (show --raw prints the same bytes)', async () => {
    await spawnAgent(d, c, 'rsrc', 'aider', 'aider');
    const dst = await spawnAgent(d, c, 'rdst', 'claude', 'claude');
    await answer('rsrc', 'raw bytes please');
    const r = await runClippy(['relay', 'rsrc', 'rdst', '--raw'], d.env.env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const { turn } = await c.request('get_turn', { session: 'rsrc' });
    const got = await submitted(dst);
    expect(got).toHaveLength(1);
    expect(Buffer.from(got[0]!.bytes, 'base64').equals(Buffer.from(turn.content))).toBe(true);
    const shown = await runRaw(['show', 'rsrc', '--raw'], d.env.env);
    expect(shown.stdout.equals(Buffer.from(turn.content))).toBe(true);
  });

  it("relay into a line agent without bracketed paste: a multi-line turn is one submission (aider's {clippy … clippy} block)", async () => {
    await spawnAgent(d, c, 'msrc', 'aider', 'aider');
    const dst = await spawnAgent(d, c, 'mdst', 'aider', 'aider');
    await answer('msrc', 'three lines back');
    const r = await runClippy(['relay', 'msrc', 'mdst'], d.env.env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The agent read one message: the turn's lines (typed, every newline an Enter) inside the block.
    const got = await submitted(dst);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ text: `${answerText('three lines back')}\n`, pasted: false });
    // And answered it once: one turn, whose answer starts with the relayed turn's first line.
    const { turn } = await c.request(
      'wait_turn',
      { session: 'mdst', after: 'mdst:0', timeout_ms: 10_000 },
      { timeoutMs: 0 },
    );
    expect(turn.text).toContain(
      'ANSWER: ANSWER: three lines back\nThe fake agent read your message.',
    );
    // Its prompt is the relayed text, without the block's {clippy / clippy} lines.
    expect(turn.prompt).toBe(answerText('three lines back'));
    const { sessions } = await c.request('list_sessions', {});
    expect(sessions.find((s) => s.name === 'mdst')).toMatchObject({ turn_count: 1 });
  });

  it('a preset of presets.json joins the lines instead (multiline "join")', async () => {
    const dir = join(d.env.env.XDG_CONFIG_HOME!, 'clippy');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'presets.json'),
      JSON.stringify({ 'aider-joined': { extends: 'aider', multiline: 'join' } }),
    );
    try {
      await spawnAgent(d, c, 'jsrc', 'aider', 'aider');
      const dst = await spawnAgent(d, c, 'jdst', 'aider', 'aider-joined');
      await answer('jsrc', 'join us');
      const r = await runClippy(['relay', 'jsrc', 'jdst'], d.env.env);
      expect(r.code).toBe(0);
      expect(await submitted(dst)).toEqual([
        expect.objectContaining({ text: answerText('join us').replaceAll('\n', ' ') }),
      ]);
    } finally {
      rmSync(join(dir, 'presets.json'), { force: true });
    }
  });

  it('a wrapper registers, publishes a turn, gets an inject on relay; its turns outlive its connection', async () => {
    await spawnAgent(d, c, 'fb', 'aider', 'aider');
    const w = await d.connect({ role: 'wrapper' });
    const reg = await w.request('register', {
      session: 'nav',
      pid: process.pid,
      pattern: 'generic',
      kind: 'navigator',
    });
    const injects: Push<'inject'>[] = [];
    w.on('inject', (m) => injects.push(m));
    const published = await w.request('turn_completed', {
      session: 'nav',
      content: Buffer.from('\x1b[1mreport\x1b[0m'),
      text: 'report',
      interrupted: false,
      timestamp: Date.now(),
      prompt: 'map the repo',
    });
    expect(published.turn_id).toBe(`${reg.session}:1`);

    await answer('fb', 'feedback');
    const relay = await runClippy(['relay', 'fb', 'nav'], d.env.env);
    expect(relay.stderr).toBe('');
    expect(relay.code).toBe(0);
    await until(() => injects.length > 0, 'the inject on the navigator connection');
    expect(injects).toHaveLength(1);
    expect(injects[0]).toMatchObject({
      session: reg.session,
      text: answerText('feedback'),
      enter: true,
    });

    await w.close();
    const nav = await eventually(async () => {
      const { sessions } = await c.request('list_sessions', {});
      const s = sessions.find((x) => x.name === 'nav');
      return s?.state === 'exited' && s;
    }, 'nav exited once its connection closed');
    expect(nav).toMatchObject({
      state: 'exited',
      turn_count: 1,
    });
    const { turn } = await c.request('get_turn', { turn_id: 'nav:1' });
    expect(turn).toMatchObject({ text: 'report', prompt: 'map the repo', byte_length: 14 });
  });
});
