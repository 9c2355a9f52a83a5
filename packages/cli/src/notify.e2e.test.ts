import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnAgent } from '@clippy/testkit/agents/harness';
import { CliPty, runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { FakeNotifySend } from '@clippy/testkit/fake-notify';
import { until } from '@clippy/testkit/until';

// `clippy notify`, unread answers in `clippy ls` and `clippy show`, and the bell in a real
// `clippy attach`: the real daemon and CLI, a fake agent in a real PTY, a fake notify-send.

const E2E_TIMEOUT_MS = 90_000;

let d: TestDaemon | null = null;
let fake: FakeNotifySend | null = null;
const ptys: CliPty[] = [];

afterEach(async () => {
  for (const p of ptys.splice(0)) await p.dispose();
  await d?.stop();
  d = null;
  fake?.dispose();
  fake = null;
});

async function start(): Promise<TestDaemon> {
  fake = new FakeNotifySend();
  d = await TestDaemon.start({ env: new DaemonEnv({ DISPLAY: ':99', PATH: fake.path() }) });
  return d;
}

/** Sends a prompt and waits for its turn's event. */
async function turn(daemon: TestDaemon, name: string, text: string): Promise<string> {
  const c = await daemon.connect();
  try {
    await c.request('subscribe', { events: ['turn_completed'] });
    const done = new Promise<string>((resolve) => {
      const off = c.on('turn_completed', (p) => {
        if (p.name !== name) return;
        off();
        resolve(p.turn.turn_id);
      });
    });
    await c.request('send', { session: name, text, enter: true });
    return await done;
  } finally {
    await c.close();
  }
}

const lsRow = async (env: NodeJS.ProcessEnv, name: string) =>
  (await runClippy(['ls'], env)).stdout.split('\n').find((l) => l.startsWith(`${name} `)) ?? '';

describe('clippy notify, unread answers and the bell', { timeout: E2E_TIMEOUT_MS }, () => {
  it('ls tells an unread answer from a session never asked; show reads it', async () => {
    const daemon = await start();
    const c = await daemon.connect();
    await spawnAgent(daemon, c, 'asked', 'aider', 'aider');
    await spawnAgent(daemon, c, 'quiet', 'aider', 'aider');
    await c.close();
    const env = daemon.env.env;
    const id = await turn(daemon, 'asked', 'what now');
    expect(await lsRow(env, 'asked')).toMatch(/ idle, 1 unread /);
    expect(await lsRow(env, 'quiet')).toMatch(/ idle /);
    expect(await lsRow(env, 'quiet')).not.toMatch(/unread/);
    const json = JSON.parse((await runClippy(['ls', '--json'], env)).stdout) as {
      sessions: { name: string; unread: number }[];
    };
    expect(json.sessions.map((s) => [s.name, s.unread])).toEqual([
      ['asked', 1],
      ['quiet', 0],
    ]);
    const shown = await runClippy(['show', id], env);
    expect(shown.stdout).toContain('ANSWER: what now');
    expect(await lsRow(env, 'asked')).not.toMatch(/unread/);
    // The desktop was told, once.
    const [rec] = await fake!.waitFor(1);
    expect(rec!.title).toBe('asked: turn finished');
  });

  it('notify shows the settings, writes config.json, sets one session for its life; bad input is refused', async () => {
    const daemon = await start();
    const c = await daemon.connect();
    await spawnAgent(daemon, c, 'a', 'aider', 'aider');
    await c.close();
    const env = daemon.env.env;
    const shown = await runClippy(['notify'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^turn +on +notify when a turn finishes$/m);
    expect(shown.stdout).toMatch(/^bell +off /m);
    expect(shown.stdout).toContain('desktop: yes; pages: 0 (0 may notify); editors: 0');
    const set = await runClippy(['notify', 'bell=on', 'turn=off'], env);
    expect(set.code, set.stderr).toBe(0);
    const file = join(env.XDG_CONFIG_HOME!, 'clippy', 'config.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ notify: { bell: true, turn: false } });
    const preset = await runClippy(['notify', 'turn=on', '--preset', 'aider'], env);
    expect(preset.code, preset.stderr).toBe(0);
    const own = await runClippy(['notify', 'desktop=off', '--session', 'a'], env);
    expect(own.code, own.stderr).toBe(0);
    const json = JSON.parse((await runClippy(['notify', '--json'], env)).stdout) as {
      global: Record<string, boolean>;
      presets: Record<string, Record<string, boolean>>;
      sessions: { name: string; own: object; effective: Record<string, boolean> }[];
    };
    expect(json.global).toMatchObject({ bell: true, turn: false, desktop: true });
    expect(json.presets).toEqual({ aider: { turn: true } });
    expect(json.sessions[0]).toMatchObject({
      name: 'a',
      own: { desktop: false },
      effective: { turn: true, desktop: false, bell: true },
    });
    // `default` drops a value: the level below decides again.
    await runClippy(['notify', 'turn=default'], env);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      notify: { bell: true, presets: { aider: { turn: true } } },
    });
    const bad = await runClippy(['notify', 'loud=on'], env);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain("unknown notify setting 'loud'");
    const badValue = await runClippy(['notify', 'bell=maybe'], env);
    expect(badValue.code).toBe(64);
    expect(badValue.stderr).toContain("bell: 'maybe' is not on, off or default");
    const noSession = await runClippy(['notify', 'bell=on', '--session', 'ghost'], env);
    expect(noSession.code).not.toBe(0);
    expect(noSession.stderr).toContain('ghost');
  });

  it('notify webhook=URL: written 0600, shown without its secret, --test sends to it, the last delivery and error shown', async () => {
    const daemon = await start();
    const env = daemon.env.env;
    const got: { path: string; body: string }[] = [];
    let status = 200;
    const server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        got.push({ path: req.url ?? '', body });
        res.statusCode = status;
        res.end(status === 200 ? 'ok' : 'topic not found');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const url = `${base}/my-secret-topic`;
      const set = await runClippy(['notify', `webhook=${url}`, 'webhookFormat=ntfy'], env);
      expect(set.code, set.stderr).toBe(0);
      const file = join(env.XDG_CONFIG_HOME!, 'clippy', 'config.json');
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
        notify: { webhook: url, webhookFormat: 'ntfy' },
      });
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const test = await runClippy(['notify', '--test'], env);
      expect(test.code, test.stderr).toBe(0);
      expect(test.stdout).toContain('test notification sent to: desktop, webhook');
      expect(test.stdout).toContain('webhook: HTTP 200');
      expect(got).toEqual([
        {
          path: '/my-secret-topic',
          body: 'This is a test notification from clippy: notifications reach you here.',
        },
      ]);
      status = 404;
      const failed = await runClippy(['notify', '--test'], env);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain('webhook: HTTP 404 Not Found: topic not found');
      const shown = await runClippy(['notify'], env);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain(`webhook: ${base}/… (ntfy)`);
      expect(shown.stdout).toMatch(
        /last delivered: .*, test to http:\/\/127\.0\.0\.1:\d+\/…: HTTP 200/u,
      );
      expect(shown.stdout).toMatch(
        /last error: .*, test to .*: HTTP 404 Not Found: topic not found/u,
      );
      expect(shown.stdout).not.toContain('my-secret-topic');
      const config = await runClippy(['config'], env);
      expect(config.stdout).not.toContain('my-secret-topic');
      const bad = await runClippy(['notify', 'webhook=ftp://x.example/secret'], env);
      expect(bad.code).toBe(64);
      expect(bad.stderr).toContain('webhook: not an http:// or https:// URL');
      expect(bad.stderr).not.toContain('secret');
      const badFormat = await runClippy(['notify', 'webhookFormat=telegram'], env);
      expect(badFormat.code).toBe(64);
      expect(badFormat.stderr).toContain("'telegram' is not one of json, ntfy, slack");
      // default: off again.
      expect((await runClippy(['notify', 'webhook=default'], env)).code).toBe(0);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ notify: { webhookFormat: 'ntfy' } });
      expect((await runClippy(['notify'], env)).stdout).toContain('webhook: off');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('the bell rings in the terminal of a clippy attach when another session finishes', async () => {
    const daemon = await start();
    mkdirSync(join(daemon.env.env.XDG_CONFIG_HOME!, 'clippy'), { recursive: true });
    writeFileSync(
      join(daemon.env.env.XDG_CONFIG_HOME!, 'clippy', 'config.json'),
      JSON.stringify({ notify: { bell: true } }),
    );
    const c = await daemon.connect();
    await spawnAgent(daemon, c, 'work', 'aider', 'aider');
    await spawnAgent(daemon, c, 'here', 'aider', 'aider');
    await c.close();
    const p = CliPty.clippy(['attach', 'here'], { env: daemon.env.env, cols: 100, rows: 30 });
    ptys.push(p);
    await p.waitFor('>');
    const before = p.output.length;
    await turn(daemon, 'work', 'ring me');
    // BEL is no character on the screen: read the terminal's raw output.
    await until(() => p.output.slice(before).includes('\x07'), 'the bell', 20_000);
    expect(p.output.slice(before).split('\x07')).toHaveLength(2);
  });
});
