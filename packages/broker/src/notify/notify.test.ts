import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentCommand, type AgentName } from '@clippy/testkit/agents/index';
import { FakeNotifySend } from '@clippy/testkit/fake-notify';
import { until as waitUntil } from '@clippy/testkit/until';
import { startBroker, type Broker } from '../server.js';
import { silentLogger } from '../log.js';
import { childEnv, tempRuntime } from '../test-support/fixtures.js';
import { RawClient, type Message } from '../test-support/raw-client.js';

// Notifications and unread turns against an in-process broker: fake agents in real PTYs, a fake
// `notify-send` first on the daemon's PATH (it records each call), pages and editors as socket
// clients that say what they show (`notify_client`).

/** A fake agent's turn, a dialog, a blocked read: well within this on a loaded machine. */
const EVENT_TIMEOUT_MS = 20_000;

let broker: Broker | null = null;
let fake: FakeNotifySend | null = null;
let cleanup: (() => void) | null = null;
const clients: RawClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await broker?.close();
  broker = null;
  cleanup?.();
  cleanup = null;
  fake?.dispose();
  fake = null;
});

interface Started {
  c: RawClient;
  dir: string;
  configFile: string;
}

/** A broker whose environment has a desktop (DISPLAY) and the fake notify-send; `config`: config.json. */
async function start(config?: object, desktop = true): Promise<Started> {
  const rt = tempRuntime();
  cleanup = rt.cleanup;
  fake = new FakeNotifySend();
  const configHome = join(rt.dir, 'config');
  const configFile = join(configHome, 'clippy', 'config.json');
  mkdirSync(join(configHome, 'clippy'), { recursive: true });
  if (config) writeFileSync(configFile, JSON.stringify(config));
  broker = await startBroker({
    env: {
      ...rt.env,
      XDG_CONFIG_HOME: configHome,
      PATH: fake.path(),
      ...(desktop ? { DISPLAY: ':99' } : {}),
    },
    logger: silentLogger(),
  });
  const c = await client();
  await c.ok('subscribe', {});
  return { c, dir: rt.dir, configFile };
}

async function client(): Promise<RawClient> {
  const c = await RawClient.open(broker!.socketPath);
  clients.push(c);
  return c;
}

async function agent(
  c: RawClient,
  dir: string,
  name: string,
  kind: AgentName,
  args: string[] = [],
) {
  const { command, args: full } = agentCommand(kind, args);
  const from = c.messages.length;
  await c.ok('spawn', { command, args: full, name, preset: kind, env: childEnv(), cwd: dir });
  await c.waitFor((m) => m.type === 'session_ready' && m.name === name, EVENT_TIMEOUT_MS, from);
}

/** Sends a prompt and waits for the turn it makes. */
async function turn(c: RawClient, name: string, text: string): Promise<Message> {
  const from = c.messages.length;
  await c.ok('send', { session: name, text, enter: true });
  return c.waitFor((m) => m.type === 'turn_completed' && m.name === name, EVENT_TIMEOUT_MS, from);
}

const sessionInfo = async (c: RawClient, name: string) =>
  (
    (await c.ok('list_sessions')).sessions as { name: string; unread?: number; state: string }[]
  ).find((s) => s.name === name)!;

/** A notification's turn by its number (IDs carry the session's ID, not its name). */
const seqOf = (m: Message) => Number(String(m.turn_id).split(':')[1]);

const notifications = (c: RawClient) => c.messages.filter((m) => m.type === 'notification');

describe('desktop notifications (notify-send)', { timeout: 60_000 }, () => {
  it('once per finished turn and per question, with the session, the answer and the question', async () => {
    const { c, dir } = await start();
    await agent(c, dir, 'a', 'aider', ['--ask']);
    // --ask: the agent asks before each answer; answered, the turn finishes.
    for (const [i, prompt] of ['fix it', 'again'].entries()) {
      const from = c.messages.length;
      await c.ok('send', { session: 'a', text: prompt, enter: true });
      await c.waitFor(
        (m) => m.type === 'state_changed' && m.state === 'blocked',
        EVENT_TIMEOUT_MS,
        from,
      );
      // The question's notification first: each is a process of its own, and under load a later
      // one can finish first (the log keeps the order they ended in, not the daemon's).
      await fake!.waitFor(2 * i + 1);
      await c.ok('send', { session: 'a', keys: ['y', 'Enter'] });
      await c.waitFor((m) => m.type === 'turn_completed', EVENT_TIMEOUT_MS, from);
    }
    const records = await fake!.waitFor(4);
    expect(records.map((r) => r.title)).toEqual([
      'a needs you',
      'a: turn finished',
      'a needs you',
      'a: turn finished',
    ]);
    expect(records[0]!.body).toBe('Run shell command?');
    expect(records[1]!.body).toContain('fix it');
    expect(records[3]!.body).toContain('again');
    expect(records[1]!.args[0]).toBe('--app-name=clippy');
    // The question drawn again while it waits (a redraw, a flap of the state) is no new event.
    const states = c.messages.filter((m) => m.type === 'state_changed' && m.state === 'blocked');
    expect(states).toHaveLength(2);
  });

  it('nothing without a desktop session in the daemon’s environment', async () => {
    const { c, dir } = await start(undefined, false);
    const page = await client();
    await page.ok('notify_client', { kind: 'editor', viewing: null, visible: false });
    await agent(c, dir, 'a', 'aider');
    await turn(c, 'a', 'hello');
    // The editor was told (the event was notified), the desktop could not be.
    await page.waitFor((m) => m.type === 'notification');
    expect(fake!.records()).toEqual([]);
  });

  it('quiet for the session whose attached terminal has focus; told again once it lost it', async () => {
    const { c, dir } = await start();
    await agent(c, dir, 'a', 'aider');
    const term = await client();
    await term.ok('attach', { session: 'a', mode: 'interactive', cols: 80, rows: 24 });
    term.sendRaw({ type: 'focus', id: 0, session: 'a', focused: true });
    await term.ok('focused');
    await turn(c, 'a', 'watched');
    term.sendRaw({ type: 'focus', id: 0, session: 'a', focused: false });
    await term.ok('focused');
    await turn(c, 'a', 'unwatched');
    const records = await fake!.waitFor(1);
    // Only the turn made while nobody looked.
    expect(records).toHaveLength(1);
    expect(records[0]!.body).toContain('unwatched');
  });

  it('honours config.json: the event off globally, a preset’s own, a session’s own', async () => {
    const { c, dir, configFile } = await start({
      notify: { turn: false, presets: { aider: { turn: true, desktop: false } } },
    });
    await agent(c, dir, 'line', 'aider');
    await agent(c, dir, 'tui', 'claude');
    const editor = await client();
    await editor.ok('notify_client', { kind: 'editor', viewing: null, visible: true });
    // aider's sessions: turns on (the preset), but not on the desktop.
    await turn(c, 'line', 'one');
    await editor.waitFor((m) => m.type === 'notification' && m.name === 'line');
    // claude's: turns off (global).
    await turn(c, 'tui', 'two');
    // A session's own setting, for its life: claude's session turns on again.
    const set = await c.ok('notify_settings', { session: 'tui', set: { turn: true } });
    const tui = (set.sessions as { name: string; effective: { turn: boolean } }[]).find(
      (s) => s.name === 'tui',
    );
    expect(tui?.effective.turn).toBe(true);
    await turn(c, 'tui', 'three');
    const [shown] = await fake!.waitFor(1);
    expect(shown!.body).toContain('three');
    expect(fake!.records()).toHaveLength(1);
    expect(notifications(editor).map((m) => m.name)).toEqual(['line', 'tui']);
    // A change to the file is in force at the next event, no restart: desktop off everywhere.
    writeFileSync(configFile, JSON.stringify({ notify: { desktop: false } }));
    await turn(c, 'tui', 'four');
    await editor.waitFor((m) => notifications(editor).length === 3 && m.type === 'notification');
    expect(fake!.records()).toHaveLength(1);
  });
});

describe('pages, editors and the bell', { timeout: 60_000 }, () => {
  it('one notification per event however many pages and editors; a page that may notify replaces notify-send', async () => {
    const { c, dir } = await start();
    await agent(c, dir, 'a', 'aider');
    const pages = [await client(), await client()];
    const editors = [await client(), await client()];
    for (const p of pages)
      await p.ok('notify_client', { kind: 'page', viewing: null, visible: false });
    // The second editor window has focus: it is the one told.
    await editors[0]!.ok('notify_client', { kind: 'editor', viewing: null, visible: false });
    await editors[1]!.ok('notify_client', { kind: 'editor', viewing: null, visible: true });
    await turn(c, 'a', 'first');
    await turn(c, 'a', 'second');
    await until(() => editors[1]!.messages.filter((m) => m.type === 'notification').length === 2);
    expect(notifications(editors[0]!)).toHaveLength(0);
    const toPages = [...notifications(pages[0]!), ...notifications(pages[1]!)];
    expect(toPages.map((m) => seqOf(m))).toEqual([1, 2]);
    expect(toPages[0]).toMatchObject({ event: 'turn', name: 'a', sound: false });
    // The page showed it on the desktop: notify-send was not run as well.
    expect(fake!.records()).toEqual([]);
    // A page the browser does not let notify leaves the desktop to notify-send.
    for (const p of pages)
      await p.ok('notify_client', {
        kind: 'page',
        viewing: null,
        visible: false,
        can_notify: false,
      });
    await turn(c, 'a', 'third');
    const [desk] = await fake!.waitFor(1);
    expect(desk!.body).toContain('third');
  });

  it('quiet for the session a visible page shows; its turns are read there', async () => {
    const { c, dir } = await start();
    await agent(c, dir, 'a', 'aider');
    const page = await client();
    await page.ok('notify_client', { kind: 'page', viewing: 'a', visible: true });
    await turn(c, 'a', 'seen');
    expect((await sessionInfo(c, 'a')).unread).toBe(0);
    // Hidden tab: told, and unread.
    await page.ok('notify_client', { kind: 'page', viewing: 'a', visible: false });
    await turn(c, 'a', 'unseen');
    await page.waitFor((m) => m.type === 'notification');
    expect(notifications(page).map((m) => seqOf(m))).toEqual([2]);
    expect((await sessionInfo(c, 'a')).unread).toBe(1);
    // Coming back to the tab reads it.
    await page.ok('notify_client', { kind: 'page', viewing: 'a', visible: true });
    expect((await sessionInfo(c, 'a')).unread).toBe(0);
    // A session that is not there is said so.
    const bad = await page.request('notify_client', {
      kind: 'page',
      viewing: 'nope',
      visible: true,
    });
    expect(bad.error).toBe('session_not_found');
  });

  it('the bell rings once, in the terminal attached to another session', async () => {
    const { c, dir } = await start({ notify: { bell: true, desktop: false } });
    await agent(c, dir, 'a', 'aider');
    await agent(c, dir, 'b', 'aider');
    const terms = [await client(), await client()];
    for (const t of terms) {
      t.autoAck = true;
      await t.ok('attach', { session: 'b', mode: 'interactive', cols: 80, rows: 24 });
    }
    const from = terms.map((t) => t.messages.length);
    await turn(c, 'a', 'ring');
    const bells = () =>
      terms.map(
        (t, i) =>
          t.messages
            .slice(from[i])
            .filter((m) => m.type === 'output' && Buffer.from(m.data as Uint8Array).includes(7))
            .length,
      );
    await until(() => bells().reduce((x, y) => x + y) > 0);
    // One terminal, once: the last attached.
    expect(bells()).toEqual([0, 1]);
  });
});

describe('an answer a client waits for', { timeout: 60_000 }, () => {
  it('is shown by that client (ask, wait): not notified, not unread', async () => {
    const { c, dir } = await start();
    await agent(c, dir, 'a', 'aider');
    const waiting = c.request('wait_turn', { session: 'a', after: 'a:0', timeout_ms: 20_000 });
    await c.ok('send', { session: 'a', text: 'asked', enter: true });
    expect((await waiting).status).toBe('ok');
    await turn(c, 'a', 'not asked');
    const [only] = await fake!.waitFor(1);
    expect(only!.body).toContain('not asked');
    expect(fake!.records()).toHaveLength(1);
    expect((await sessionInfo(c, 'a')).unread).toBe(1);
  });

  it('is shown by that client even when it completed before the wait came (ask on a busy machine)', async () => {
    const { c, dir } = await start();
    await agent(c, dir, 'a', 'aider');
    // `clippy ask` types the message, then waits: a quick answer can be stored in between.
    await turn(c, 'a', 'answered before the wait');
    expect((await sessionInfo(c, 'a')).unread).toBe(1);
    const waited = await c.ok('wait_turn', { session: 'a', after: 'a:0', timeout_ms: 5_000 });
    expect((waited.turn as { seq: number }).seq).toBe(1);
    expect((await sessionInfo(c, 'a')).unread).toBe(0);
  });
});

describe('unread turns', { timeout: 60_000 }, () => {
  it('counted while nobody looks; cleared by get_turn with read, by attach; said in unread_changed', async () => {
    const { c, dir } = await start(undefined, false);
    await agent(c, dir, 'a', 'aider');
    expect((await sessionInfo(c, 'a')).unread).toBe(0);
    await turn(c, 'a', 'one');
    await turn(c, 'a', 'two');
    expect((await sessionInfo(c, 'a')).unread).toBe(2);
    const changes = () =>
      c.messages.filter((m) => m.type === 'unread_changed').map((m) => m.unread as number);
    expect(changes()).toEqual([1, 2]);
    // Reading turn 1 leaves turn 2 unread; a read without `read` changes nothing.
    await c.ok('get_turn', { turn_id: 'a:1', read: true });
    await c.ok('get_turn', { session: 'a' });
    expect((await sessionInfo(c, 'a')).unread).toBe(1);
    await c.ok('get_turn', { session: 'a', read: true });
    expect((await sessionInfo(c, 'a')).unread).toBe(0);
    await turn(c, 'a', 'three');
    expect((await sessionInfo(c, 'a')).unread).toBe(1);
    const viewer = await client();
    await viewer.ok('attach', { session: 'a', mode: 'observer' });
    expect((await sessionInfo(c, 'a')).unread).toBe(0);
    // While attached, a new answer is on a screen: read.
    await turn(c, 'a', 'four');
    expect((await sessionInfo(c, 'a')).unread).toBe(0);
    expect(changes()).toEqual([1, 2, 1, 0, 1, 0, 0]);
  });
});

describe('a terminal too narrow to read', { timeout: 60_000 }, () => {
  it('is never blocked: a program reading input at 2 columns is busy, and blocked once wide again', async () => {
    const { c, dir } = await start(undefined, false);
    const from = c.messages.length;
    await c.ok('spawn', {
      command: 'bash',
      args: ['--norc', '--noprofile'],
      name: 'n',
      env: childEnv({ PS1: 'PROMPT$ ' }),
      cwd: dir,
    });
    await c.waitFor((m) => m.type === 'session_ready' && m.name === 'n', EVENT_TIMEOUT_MS, from);
    const term = await client();
    term.autoAck = true;
    await term.ok('attach', { session: 'n', mode: 'interactive', cols: 2, rows: 24 });
    await c.ok('send', { session: 'n', text: 'read x', enter: true });
    const session = broker!.table.resolve('n')! as unknown as { reported: string; state: string };
    // The watch saw `read` wait on the terminal and said blocked: the session does not show it.
    await until(() => session.reported === 'blocked', 10_000);
    expect((await sessionInfo(c, 'n')).state).toBe('busy');
    expect(c.messages.some((m) => m.type === 'state_changed' && m.state === 'blocked')).toBe(false);
    const wide = c.messages.length;
    await term.ok('resize', { session: 'n', cols: 80, rows: 24 });
    await c.waitFor((m) => m.type === 'state_changed' && m.state === 'blocked', 10_000, wide);
  });
});

/** testkit's until, with this file's longer default (daemons and agents start under load). */
const until = (cond: () => boolean, timeoutMs = 10_000) => waitUntil(cond, 'condition', timeoutMs);
