import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TURN_PREVIEW_CHARS, turnPreview } from '@clippy/protocol';
import { childEnv, startTestBroker, type TestBroker } from '../test-support/fixtures.js';
import type { RawClient } from '../test-support/raw-client.js';

// The turn requests against an in-process broker over its real socket, with real processes.

let tb: TestBroker | null = null;
afterEach(async () => {
  await tb?.stop();
  tb = null;
});

/** A tiny line agent: prompt `ready> `, answers `got <line>`, until its input ends. */
const SH_AGENT = 'printf "ready> "; while read -r x; do echo "got $x"; printf "ready> "; done';

async function setup(): Promise<{ c: RawClient; tb: TestBroker }> {
  tb = await startTestBroker();
  const c = await tb.client();
  return { c, tb };
}

async function shAgent(c: RawClient, name: string): Promise<void> {
  await c.ok('subscribe', { events: ['session_ready'], sessions: [name] });
  await c.ok('spawn', {
    command: '/bin/sh',
    args: ['-c', SH_AGENT],
    name,
    pattern: 'ready> $',
    env: childEnv(),
  });
  await c.waitFor((m) => m.type === 'session_ready' && m.name === name);
}

async function ask(c: RawClient, name: string, text: string): Promise<Record<string, unknown>> {
  const before = (await c.ok('list_turns', { session: name })).turns as { seq: number }[];
  await c.ok('send', { session: name, text, enter: true });
  const r = await c.ok('wait_turn', {
    session: name,
    after: `${name}:${before[0]?.seq ?? 0}`,
    timeout_ms: 5_000,
  });
  return r.turn as Record<string, unknown>;
}

describe('turn requests', () => {
  it('a custom pattern detects turns; get_turn / list_turns / capture_by_id by name or ID', async () => {
    const { c } = await setup();
    await shAgent(c, 'sh');
    const first = await ask(c, 'sh', 'one');
    expect(first).toMatchObject({
      seq: 1,
      text: 'got one',
      prompt: 'one',
      interrupted: false,
      truncated: false,
    });
    await ask(c, 'sh', 'two');
    const byName = await c.ok('get_turn', { turn_id: 'sh:1' });
    expect((byName.turn as { turn_id: string }).turn_id).toBe(first.turn_id);
    const latest = await c.ok('get_turn', { session: 'sh' });
    expect((latest.turn as { text: string }).text).toBe('got two');
    const list = await c.ok('list_turns', { session: 'sh', limit: 1 });
    expect(
      (list.turns as { seq: number; content?: unknown }[]).map((t) => [t.seq, t.content]),
    ).toEqual([[2, undefined]]);
    const cap = await c.ok('capture_by_id', { turn_id: first.turn_id as string });
    expect(cap).toMatchObject({
      turn_id: first.turn_id,
      size: (first.content as Uint8Array).length,
    });
    const sessions = (await c.ok('list_sessions')).sessions as {
      name: string;
      turn_count: number;
      preset: string;
    }[];
    expect(sessions[0]).toMatchObject({ name: 'sh', turn_count: 2, preset: 'custom' });
  });

  it('turn metadata carries the start of the text as preview: turn_completed and list_turns', async () => {
    const { c } = await setup();
    await shAgent(c, 'sh');
    await c.ok('subscribe', { events: ['turn_completed'], sessions: ['sh'] });
    const long = 'w'.repeat(TURN_PREVIEW_CHARS + 200);
    const turn = await ask(c, 'sh', long);
    expect((turn.text as string).length).toBeGreaterThan(TURN_PREVIEW_CHARS);
    const push = await c.waitFor((m) => m.type === 'turn_completed' && m.name === 'sh');
    const pushed = (push.turn as { preview?: string }).preview;
    expect(pushed).toBe(turnPreview(turn.text as string));
    expect(pushed).toMatch(/^got w+$/);
    expect(pushed).toHaveLength(TURN_PREVIEW_CHARS);
    const listed = (await c.ok('list_turns', { session: 'sh', limit: 1 })).turns as {
      preview?: string;
    }[];
    expect(listed[0]!.preview).toBe(pushed);
  });

  it('answers bad references and bad deliveries with their codes', async () => {
    const { c } = await setup();
    await shAgent(c, 'sh');
    const err = async (type: string, fields: Record<string, unknown>) =>
      (await c.request(type, fields)).error;
    expect(await err('capture', { session: 'sh' })).toBe('no_turn');
    expect(await err('capture', { session: 'nosuch' })).toBe('session_not_found');
    expect(await err('capture_by_id', { turn_id: 'sh:9' })).toBe('turn_not_found');
    // Not a turn ID at all: the schema refuses it, naming the field.
    expect(await err('capture_by_id', { turn_id: 'nope' })).toBe('invalid_message');
    expect(await err('get_turn', {})).toBe('missing_field');
    expect(await err('paste', { session: 'sh' })).toBe('buffer_empty');
    expect(await err('deliver', { sink: 'file', path: '/tmp/x' })).toBe('buffer_empty');
    expect(await err('wait_turn', { session: 'sh', timeout_ms: 50 })).toBe('timeout');
    expect(await err('spawn', { command: '/bin/sh', name: 'x', preset: 'nosuch' })).toBe(
      'unknown_preset',
    );
    expect(await err('spawn', { command: '/bin/sh', name: 'x', pattern: '(' })).toBe(
      'invalid_pattern',
    );
    await ask(c, 'sh', 'one');
    await c.ok('capture', { session: 'sh' });
    expect(await err('deliver', { sink: 'printer' })).toBe('unknown_sink');
    expect(await err('deliver', { sink: 'file' })).toBe('missing_field');
    expect(await err('deliver', { sink: 'inject' })).toBe('missing_field');
    expect(await err('deliver', { sink: 'file', path: 'relative.txt' })).toBe('invalid_argument');
    expect(await err('deliver', { sink: 'file', path: '/nonexistent-dir/x.txt' })).toBe(
      'file_write_failed',
    );
  });

  it('deliver: file gets the text (or the raw bytes), clipboard goes through the first tool that works', async () => {
    const { c, tb } = await setup();
    await shAgent(c, 'sh');
    const turn = await ask(c, 'sh', 'deliver me');
    await c.ok('capture', { session: 'sh' });
    const file = join(tb.dir, 'turn.txt');
    await c.ok('deliver', { sink: 'file', path: file });
    expect(readFileSync(file, 'utf8')).toBe('got deliver me');
    await c.ok('deliver', { sink: 'file', path: file, raw: true });
    expect(readFileSync(file).equals(Buffer.from(turn.content as Uint8Array))).toBe(true);

    // A stand-in xclip on PATH with an X display: the broker's clipboard sink runs it.
    const bin = join(tb.dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'xclip'), `#!/bin/sh\n/bin/cat > "${join(tb.dir, 'clip.out')}"\n`);
    chmodSync(join(bin, 'xclip'), 0o755);
    const saved = {
      PATH: process.env.PATH,
      DISPLAY: process.env.DISPLAY,
      WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY,
    };
    process.env.PATH = bin;
    process.env.DISPLAY = ':42';
    delete process.env.WAYLAND_DISPLAY;
    try {
      const ok = await c.request('deliver', { sink: 'clipboard' });
      expect(ok.status).toBe('ok');
      expect(readFileSync(join(tb.dir, 'clip.out'), 'utf8')).toBe('got deliver me');
      process.env.PATH = join(tb.dir, 'empty');
      const failed = await c.request('deliver', { sink: 'clipboard' });
      expect(failed).toMatchObject({ status: 'error', error: 'clipboard_failed' });
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('an Enter the target never reacts to is not_submitted for paste (submitted: false for send)', async () => {
    const { c } = await setup();
    // Echo off and never reading: the text and both Enters vanish without a trace on screen.
    await c.ok('subscribe', { events: ['session_ready'], sessions: ['deaf'] });
    await c.ok('spawn', {
      command: '/bin/sh',
      args: ['-c', 'stty -echo; printf "ready> "; exec sleep 60'],
      name: 'deaf',
      pattern: 'ready> $',
      env: childEnv(),
    });
    await c.waitFor((m) => m.type === 'session_ready' && m.name === 'deaf');
    const sent = await c.ok('send', { session: 'deaf', text: 'hello', enter: true });
    expect(sent.submitted).toBe(false);
    await c.ok('put_buffer', { text: 'from the buffer', label: 'note' });
    // The unanswered submit left the session busy for the detector: force the paste.
    const pasted = await c.request('paste', { session: 'deaf', force: true });
    expect(pasted).toMatchObject({ status: 'error', error: 'not_submitted' });
  });

  it('clipboard falls back to OSC 52 through an attached client', async () => {
    const { c, tb } = await setup();
    await shAgent(c, 'sh');
    const viewer = await tb.client();
    await viewer.ok('attach', { session: 'sh', mode: 'observer' });
    await c.ok('put_buffer', { text: 'to the clipboard', label: 'note' });
    const saved = {
      PATH: process.env.PATH,
      DISPLAY: process.env.DISPLAY,
      WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY,
    };
    process.env.PATH = join(tb.dir, 'empty');
    delete process.env.DISPLAY;
    delete process.env.WAYLAND_DISPLAY;
    try {
      await c.ok('deliver', { sink: 'clipboard' });
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    const osc = `\x1b]52;c;${Buffer.from('to the clipboard').toString('base64')}\x07`;
    const push = await viewer.waitFor(
      (m) => m.type === 'output' && Buffer.from(m.data as Uint8Array).toString() === osc,
    );
    expect(push.session).toBeTruthy();
  });

  it('send into a wrapper session is an inject push to the connection that registered it', async () => {
    const { c, tb } = await setup();
    const { RawClient } = await import('../test-support/raw-client.js');
    const w = await RawClient.open(tb.socket, 'wrapper');
    tb.clients.push(w);
    await w.ok('register', { session: 'wrap', pid: process.pid, pattern: 'generic' });
    const sent = await c.ok('send', { session: 'wrap', text: 'hello wrapper', enter: true });
    expect(sent.submitted).toBe(true);
    const push = await w.waitFor((m) => m.type === 'inject');
    expect(push).toMatchObject({ text: 'hello wrapper', enter: true });
    expect(Buffer.from(push.content as Uint8Array).toString()).toBe('hello wrapper');
    expect(
      (
        await c.request('turn_completed', {
          session: 'wrap',
          content: Buffer.from('x'),
          interrupted: false,
          timestamp: 1,
        })
      ).error,
    ).toBe('not_wrapper');
  });
});
