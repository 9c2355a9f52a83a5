import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv, startTestBroker, type TestBroker } from '../test-support/fixtures.js';
import type { RawClient } from '../test-support/raw-client.js';

let tb: TestBroker;
let c: RawClient;

beforeEach(async () => {
  tb = await startTestBroker();
  c = await tb.client();
});
afterEach(async () => {
  await tb.stop();
});

async function spawn(command: string, args: string[], extra: Record<string, unknown> = {}) {
  const r = await c.ok('spawn', { command, args, env: childEnv(), cwd: tmpdir(), ...extra });
  return r as unknown as { session: string; name: string; pid: number };
}

async function waitExit(client: RawClient, session: string) {
  return client.waitFor((m) => m.type === 'exit' && m.session === session);
}

/** Waits for the session_exited event (needs a subscription; works whether attached or not). */
async function waitExitedEvent(client: RawClient, session: string) {
  return client.waitFor((m) => m.type === 'session_exited' && m.session === session);
}

describe('sessions over real PTYs', () => {
  it('runs bash: input reaches it and its output comes back', async () => {
    const s = await spawn('bash', ['--norc', '--noprofile', '-i']);
    await c.ok('attach', { session: s.session });
    await c.ok('input', { session: s.session, data: Buffer.from('echo $((6*7))x\r') });
    await c.until(() => c.output(s.session).toString().includes('42x'));
    await c.ok('input', { session: s.session, data: Buffer.from('exit 3\r') });
    const exit = await waitExit(c, s.session);
    expect(exit.exit_code).toBe(3);
    expect(exit.signal).toBeNull();
  });

  it('reports the exit code of sh -c and keeps the session listed until removed', async () => {
    // It prints once attached (a line sent after attach): a fixed sleep lost that race under load.
    const s = await spawn('sh', ['-c', 'read x; printf done; exit 7']);
    await c.ok('attach', { session: s.session });
    await c.ok('input', { session: s.session, data: Buffer.from('\r') });
    const exit = await waitExit(c, s.session);
    expect(exit.exit_code).toBe(7);
    // Output is drained before the exit push.
    const exitIndex = c.messages.indexOf(exit);
    const outputBefore = c.messages.slice(0, exitIndex).filter((m) => m.type === 'output');
    expect(
      Buffer.concat(outputBefore.map((m) => Buffer.from(m.data as Uint8Array))).toString(),
    ).toContain('done');
    const list = await c.ok('list_sessions');
    const info = (list.sessions as Record<string, unknown>[]).find((x) => x.session === s.session)!;
    expect(info.state).toBe('exited');
    expect(info.exit_code).toBe(7);
    await c.ok('remove', { session: s.name });
    const after = await c.ok('list_sessions');
    expect((after.sessions as unknown[]).length).toBe(0);
    const again = await c.request('remove', { session: s.session });
    expect(again.error).toBe('session_not_found');
  });

  it('reports a signal death by name and kill escalates to SIGKILL after the grace', async () => {
    await tb.stop();
    tb = await startTestBroker({ limits: { killGraceMs: 300 } });
    c = await tb.client();
    const s = await spawn('sh', ['-c', 'trap "" HUP; read x; echo ready; sleep 30']);
    await c.ok('attach', { session: s.session });
    await c.ok('input', { session: s.session, data: Buffer.from('\r') });
    await c.until(() => c.output(s.session).toString().includes('ready'));
    await c.ok('kill', { session: s.session });
    const exit = await waitExit(c, s.session);
    expect(exit.signal).toBe('SIGKILL');
    expect(exit.exit_code).toBeNull();
    expect(() => process.kill(s.pid, 0)).toThrow();
  });

  it('kill with remove waits for the exit and removes the session', async () => {
    const s = await spawn('sleep', ['30']);
    await c.ok('kill', { session: s.session, signal: 'TERM', remove: true });
    const list = await c.ok('list_sessions');
    expect((list.sessions as unknown[]).length).toBe(0);
  });

  it('resize reaches the child (stty size)', async () => {
    // The child waits for a line, so the size is read only after the resize was answered.
    const s = await spawn('sh', ['-c', 'read x; stty size; sleep 0.2'], { cols: 100, rows: 30 });
    await c.ok('attach', { session: s.session });
    await c.ok('resize', { session: s.session, cols: 91, rows: 27 });
    await c.ok('input', { session: s.session, data: Buffer.from('go\r') });
    await waitExit(c, s.session);
    expect(c.output(s.session).toString()).toContain('27 91');
  });

  it('answers errors for unknown sessions, missing commands and missing cwd', async () => {
    expect((await c.request('input', { session: 'nope', data: Buffer.from('x') })).error).toBe(
      'session_not_found',
    );
    expect((await c.request('attach', { session: 'nope' })).error).toBe('session_not_found');
    expect((await c.request('kill', { session: 'nope' })).error).toBe('session_not_found');
    const missing = await c.request('spawn', { command: 'no-such-command-xyz', env: childEnv() });
    expect(missing.error).toBe('spawn_failed');
    expect(missing.message).toContain('no-such-command-xyz');
    const noCwd = await c.request('spawn', {
      command: 'sh',
      cwd: '/nonexistent/dir/here',
      env: childEnv(),
    });
    expect(noCwd.error).toBe('cwd_not_found');
    expect(noCwd.message).toContain('/nonexistent/dir/here');
  });

  it('passes the environment unchanged but CLIPPY_SESSION_ID, its own ID unless refused', async () => {
    await c.ok('subscribe', { events: ['session_exited'] });
    const dir = mkdtempSync(join(tmpdir(), 'clippy-env-'));
    try {
      // Started from inside another session: the caller's environment names that one.
      const env = childEnv({ PWD: dir, SOME_VAR: 'a b=c', CLIPPY_SESSION_ID: 'outer1' });
      const dump = 'env -0 > "$OUT"';
      const a = await spawn('sh', ['-c', dump], { env: { ...env, OUT: join(dir, 'a') }, cwd: dir });
      const b = await spawn('sh', ['-c', dump], {
        env: { ...env, OUT: join(dir, 'b') },
        cwd: dir,
        session_env: false,
      });
      await waitExitedEvent(c, a.session);
      await waitExitedEvent(c, b.session);
      const { readFileSync } = await import('node:fs');
      const parse = (f: string) =>
        Object.fromEntries(
          readFileSync(join(dir, f), 'utf8')
            .split('\0')
            .filter(Boolean)
            .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
        );
      const ea = parse('a');
      const eb = parse('b');
      // sh itself may add SHLVL/_; everything else the caller gave arrives unchanged.
      const { CLIPPY_SESSION_ID: _outer, ...given } = env;
      for (const [k, v] of Object.entries({ ...given, OUT: join(dir, 'a') })) expect(ea[k]).toBe(v);
      expect(ea.CLIPPY_SESSION_ID).toBe(a.session);
      expect(eb.CLIPPY_SESSION_ID).toBeUndefined();
      const extra = Object.keys(ea).filter(
        (k) =>
          !(k in env) && k !== 'OUT' && !['SHLVL', '_', 'PWD', 'CLIPPY_SESSION_ID'].includes(k),
      );
      expect(extra).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps names unique: explicit duplicates refused, defaults numbered', async () => {
    const a = await spawn('sleep', ['30']);
    const b = await spawn('sleep', ['30']);
    expect(a.name).toBe('sleep');
    expect(b.name).toBe('sleep-2');
    const named = await spawn('sleep', ['30'], { name: 'worker' });
    expect(named.name).toBe('worker');
    const dup = await c.request('spawn', {
      command: 'sleep',
      args: ['30'],
      name: 'worker',
      env: childEnv(),
    });
    expect(dup.error).toBe('duplicate_session');
    // Names work wherever an ID does.
    await c.ok('kill', { session: 'worker', remove: true });
    const ids = new Set([a.session, b.session, named.session]);
    expect(ids.size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^[a-z2-7]{6}$/);
  });

  it('keeps names unique for spawns sent at once: one per name, the refused one not left running', async () => {
    // A start takes a round trip to the spawner: spawns that arrive together all wait on it
    // at the same time, and each must still get a name of its own.
    const unnamed = await Promise.all(
      [1, 2, 3].map(() => c.ok('spawn', { command: 'sleep', args: ['30'], env: childEnv() })),
    );
    expect(new Set(unnamed.map((r) => r.name)).size).toBe(3);
    const answers = await Promise.all(
      [1, 2].map(() =>
        c.request('spawn', { command: 'sleep', args: ['31'], name: 'twin', env: childEnv() }),
      ),
    );
    expect(answers.map((a) => a.error ?? 'ok').sort()).toEqual(['duplicate_session', 'ok']);
    const list = (await c.ok('list_sessions')).sessions as { name: string }[];
    expect(list.filter((s) => s.name === 'twin')).toHaveLength(1);
    // Only the session's own sleep 31 runs: the refused start's program was ended.
    const { execFileSync } = await import('node:child_process');
    await c.until(() => {
      const ps = execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' });
      return ps.split('\n').filter((l) => /(^|\/)sleep 31$/.test(l.trim())).length === 1;
    });
  });

  // The spawner runs on Linux (elsewhere node-pty starts programs without a fork already).
  it.skipIf(process.platform !== 'linux')(
    "starts a session's program without forking the daemon: the spawner is its parent",
    async () => {
      const s = await spawn('sleep', ['30']);
      const { readFileSync } = await import('node:fs');
      const ppid = Number(
        readFileSync(`/proc/${s.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1],
      );
      expect(ppid).not.toBe(process.pid);
      expect(readFileSync(`/proc/${ppid}/cmdline`, 'utf8')).toContain('clippyd-spawner');
    },
  );

  it('emits session events to subscribers', async () => {
    await c.ok('subscribe', {});
    const s = await spawn('sh', ['-c', 'exit 0']);
    await c.waitFor((m) => m.type === 'session_created');
    await c.waitFor((m) => m.type === 'session_exited' && m.session === s.session);
    const st = await c.waitFor((m) => m.type === 'state_changed' && m.session === s.session);
    expect(st.state).toBe('exited');
    expect(st.previous).toBe('starting');
    await c.ok('remove', { session: s.session });
    await c.waitFor((m) => m.type === 'session_removed' && m.session === s.session);
  });
});
