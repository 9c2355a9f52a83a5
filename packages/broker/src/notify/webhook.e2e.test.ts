import { mkdirSync, writeFileSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentCommand } from '@clippy/testkit/agents/index';
import { startBroker, type Broker } from '../server.js';
import { childEnv, tempRuntime } from '../test-support/fixtures.js';
import { captureLogger } from '../test-support/history.js';
import { RawClient, type Message } from '../test-support/raw-client.js';
import { WEBHOOK_JSON_TEXT_CHARS, WEBHOOK_SLACK_TEXT_CHARS, cutChars } from './webhook-format.js';
import { eventually } from '@clippy/testkit/until';

// Webhooks (docs/notify.md, "Webhooks") against an in-process broker: fake agents in real PTYs,
// and a local HTTP receiver that records every POST it gets, in each of the three formats.

/** A fake agent's turn or question: well within this on a loaded machine. */
const EVENT_TIMEOUT_MS = 20_000;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver: records each request; `answer` decides its reply (default 200). */
class Receiver {
  readonly got: Received[] = [];
  answer: (r: Received, res: ServerResponse) => void = (_r, res) => res.end('ok');

  private constructor(private readonly server: Server) {}

  static async start(): Promise<Receiver> {
    let self: Receiver | null = null;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r = {
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        self!.got.push(r);
        self!.answer(r, res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    self = new Receiver(server);
    return self;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** The requests to `path`, once there are `n` of them. */
  async waitFor(path: string, n: number, timeoutMs = EVENT_TIMEOUT_MS): Promise<Received[]> {
    const mine = () => this.got.filter((r) => r.path === path);
    return eventually(
      () => mine().length >= n && mine(),
      () => `${path}: ${n} requests (${mine().length} came)`,
      timeoutMs,
    );
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

let broker: Broker | null = null;
let receiver: Receiver | null = null;
let cleanup: (() => void) | null = null;
const clients: RawClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await broker?.close();
  broker = null;
  await receiver?.close();
  receiver = null;
  cleanup?.();
  cleanup = null;
});

/** A broker with `config` as config.json and no desktop; its log lines go to `lines`. */
async function start(config: object, lines: string[] = []) {
  const rt = tempRuntime();
  cleanup = rt.cleanup;
  const configHome = join(rt.dir, 'config');
  mkdirSync(join(configHome, 'clippy'), { recursive: true });
  writeFileSync(join(configHome, 'clippy', 'config.json'), JSON.stringify(config));
  broker = await startBroker({
    env: { ...rt.env, XDG_CONFIG_HOME: configHome },
    logger: captureLogger(lines),
  });
  const c = await RawClient.open(broker.socketPath);
  clients.push(c);
  await c.ok('subscribe', {});
  return { c, dir: rt.dir };
}

/** An aider-style fake agent that asks before each answer (`--ask`). */
async function asker(c: RawClient, dir: string, name: string): Promise<void> {
  const { command, args } = agentCommand('aider', ['--ask']);
  const from = c.messages.length;
  await c.ok('spawn', { command, args, name, preset: 'aider', env: childEnv(), cwd: dir });
  await c.waitFor((m) => m.type === 'session_ready' && m.name === name, EVENT_TIMEOUT_MS, from);
}

/** A prompt the agent asks about, answered Yes: the question (with its choices) and the turn. */
async function askAndAnswer(
  c: RawClient,
  name: string,
  prompt: string,
): Promise<{ blocked: Message; text: string; turnId: string }> {
  const from = c.messages.length;
  await c.ok('send', { session: name, text: prompt, enter: true });
  const blocked = await c.waitFor(
    (m) => m.type === 'state_changed' && m.name === name && m.state === 'blocked',
    EVENT_TIMEOUT_MS,
    from,
  );
  await c.ok('send', { session: name, keys: ['y', 'Enter'] });
  const done = await c.waitFor(
    (m) => m.type === 'turn_completed' && m.name === name,
    EVENT_TIMEOUT_MS,
    from,
  );
  const turnId = (done.turn as { turn_id: string }).turn_id;
  const got = await c.ok('get_turn', { turn_id: turnId });
  return { blocked, text: (got.turn as { text: string }).text, turnId };
}

describe('webhooks', { timeout: 90_000 }, () => {
  it('POSTs a turn and a question in each format: json, ntfy and slack, the answer and question exact', async () => {
    receiver = await Receiver.start();
    const { c, dir } = await start({
      notify: { desktop: false, webhook: receiver.url('/json') },
    });
    await asker(c, dir, 'j');
    await asker(c, dir, 'n');
    await asker(c, dir, 's');
    // Per session, over config.json's: another URL and format.
    await c.ok('notify_settings', {
      session: 'n',
      set: { webhook: receiver.url('/ntfy/secret-topic'), webhookFormat: 'ntfy' },
    });
    await c.ok('notify_settings', {
      session: 's',
      set: { webhook: receiver.url('/slack/T0/B0/secret'), webhookFormat: 'slack' },
    });
    const web = await c.ok('web_start', {});
    const link = (name: string) => `http://127.0.0.1:${web.port as number}/#s=${name}`;

    // json
    const j = await askAndAnswer(c, 'j', 'fix the json');
    const menu = j.blocked.menu as { question: string; options: { label: string }[] };
    const labels = menu.options.map((o) => o.label);
    expect(menu.question).toBe('Run shell command?');
    const [q, t] = await receiver.waitFor('/json', 2);
    expect(q!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(q!.body)).toEqual({
      event: 'blocked',
      session: j.blocked.session,
      name: 'j',
      host: hostname(),
      text: 'Run shell command?',
      question: 'Run shell command?',
      choices: labels,
      url: link('j'),
    });
    expect(j.text).toContain('ANSWER: fix the json');
    expect(JSON.parse(t!.body)).toEqual({
      event: 'turn',
      session: j.blocked.session,
      name: 'j',
      host: hostname(),
      text: j.text,
      turn_id: j.turnId,
      url: link('j'),
    });

    // ntfy: the text as the body; title, priority and the link in headers.
    const n = await askAndAnswer(c, 'n', 'fix the ntfy');
    const [nq, nt] = await receiver.waitFor('/ntfy/secret-topic', 2);
    expect(nq!.body).toBe(
      `Run shell command?\n\n${labels.map((l, i) => `${i + 1}. ${l}`).join('\n')}`,
    );
    expect(nq!.headers).toMatchObject({
      title: 'n needs you',
      priority: 'high',
      click: link('n'),
    });
    expect(nt!.body).toBe(n.text);
    expect(nt!.headers).toMatchObject({
      title: 'n: turn finished',
      priority: 'default',
      click: link('n'),
    });

    // slack (and Discord's compatible webhooks): {"text": …}
    const s = await askAndAnswer(c, 's', 'fix the slack');
    const [sq, st] = await receiver.waitFor('/slack/T0/B0/secret', 2);
    expect(JSON.parse(sq!.body)).toEqual({
      text: `*s needs you*\nRun shell command?\n\n${labels.map((l, i) => `${i + 1}. ${l}`).join('\n')}\n<${link('s')}|open s>`,
    });
    expect(JSON.parse(st!.body)).toEqual({
      text: `*s: turn finished*\n${s.text}\n<${link('s')}|open s>`,
    });
    // Nothing went to the others' URLs.
    expect(receiver.got.map((r) => r.path)).toEqual([
      '/json',
      '/json',
      '/ntfy/secret-topic',
      '/ntfy/secret-topic',
      '/slack/T0/B0/secret',
      '/slack/T0/B0/secret',
    ]);
    // What the settings say: the URL as its scheme and host only, the last delivery.
    const settings = await c.ok('notify_settings', {});
    const own = (settings.sessions as { name: string; own: { webhook?: string } }[]).find(
      (x) => x.name === 'n',
    )!.own;
    expect(own.webhook).toBe(`http://127.0.0.1:${new URL(receiver.url('/')).port}/…`);
    expect(settings.webhook).toMatchObject({
      last_delivery: { event: 'turn', session: 's', status: 200 },
      last_error: null,
      pending: 0,
    });
  });

  it('a failing endpoint is tried again with backoff, logged once and never slows a session; the URL is never logged whole', async () => {
    receiver = await Receiver.start();
    const lines: string[] = [];
    const { c, dir } = await start(
      { notify: { desktop: false, webhook: receiver.url('/hook/s3cret-token') } },
      lines,
    );
    // The first try of each event fails (a receiver restarting): the retry delivers it.
    const tries = new Map<string, number>();
    receiver.answer = (r, res) => {
      const n = (tries.get(r.body) ?? 0) + 1;
      tries.set(r.body, n);
      res.statusCode = n === 1 ? 503 : 200;
      res.end();
    };
    await asker(c, dir, 'a');
    await askAndAnswer(c, 'a', 'one');
    const got = await receiver.waitFor('/hook/s3cret-token', 4);
    expect(got.map((r) => JSON.parse(r.body).event)).toEqual([
      'blocked',
      'blocked',
      'turn',
      'turn',
    ]);
    // An endpoint that refuses for good (a wrong token): no retry, one log line however many
    // events, the error shown by `notify_settings`.
    receiver.answer = (_r, res) => {
      res.statusCode = 404;
      res.end('no such topic');
    };
    await askAndAnswer(c, 'a', 'two');
    await receiver.waitFor('/hook/s3cret-token', 6);
    await expect
      .poll(async () => (await c.ok('notify_settings', {})).webhook, { timeout: 10_000 })
      .toMatchObject({
        last_error: { event: 'turn', session: 'a', error: 'HTTP 404 Not Found: no such topic' },
        pending: 0,
      });
    // An endpoint that never answers: the session's turns come as before, the events wait.
    receiver.answer = () => {};
    const start1 = c.messages.length;
    await askAndAnswer(c, 'a', 'three');
    await askAndAnswer(c, 'a', 'four');
    expect(
      c.messages.slice(start1).filter((m) => m.type === 'turn_completed' && m.name === 'a'),
    ).toHaveLength(2);
    expect((await c.ok('notify_settings', {})).webhook).toMatchObject({ pending: 4 });
    const failed = lines.filter((l) => l.includes('webhook: delivery failed'));
    expect(failed).toHaveLength(1);
    for (const line of lines) expect(line).not.toContain('s3cret-token');
    expect(failed[0]).toContain(`http://127.0.0.1:${new URL(receiver.url('/')).port}/…`);
  });

  it('notify_test sends one test event to every place that is on, and says what the webhook answered', async () => {
    receiver = await Receiver.start();
    const { c } = await start({
      notify: { desktop: false, webhook: receiver.url('/t'), webhookFormat: 'ntfy' },
    });
    const editor = await RawClient.open(broker!.socketPath);
    clients.push(editor);
    await editor.ok('notify_client', { kind: 'editor', viewing: null, visible: true });
    const r = await c.ok('notify_test', {});
    expect(r).toMatchObject({ sinks: ['editor', 'webhook'], webhook: 'HTTP 200' });
    const [hit] = await receiver.waitFor('/t', 1);
    expect(hit!.headers.title).toBe('clippy: test notification');
    await editor.waitFor(
      (m) => m.type === 'notification' && m.title === 'clippy: test notification',
    );
    receiver.answer = (_r, res) => {
      res.statusCode = 401;
      res.end('unauthorized');
    };
    expect((await c.ok('notify_test', {})).webhook).toBe('HTTP 401 Unauthorized: unauthorized');
  });
});

describe('webhook texts', () => {
  it('a long answer is cut at the documented length, with a marker saying how much is missing', () => {
    const long = 'x'.repeat(WEBHOOK_JSON_TEXT_CHARS + 500);
    const cut = cutChars(long, WEBHOOK_JSON_TEXT_CHARS);
    expect(cut.length).toBeLessThanOrEqual(WEBHOOK_JSON_TEXT_CHARS);
    expect(cut).toMatch(/\n… \[cut: \d+ more characters\]$/u);
    const kept = cut.indexOf('\n…');
    expect(Number(/cut: (\d+)/u.exec(cut)![1]) + kept).toBe(long.length);
    // Never half an emoji.
    const emoji = cutChars('😀'.repeat(WEBHOOK_SLACK_TEXT_CHARS), WEBHOOK_SLACK_TEXT_CHARS);
    expect(emoji).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/u);
  });
});
