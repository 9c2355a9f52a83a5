import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import type { SessionInfo } from '@clippy/protocol';
import { agentCommand } from '@clippy/testkit/agents/index';
import { askTurn, runRaw, waitState } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { legacyRecord, legacyTurnRecord } from '@clippy/testkit/history-records';
import { bins } from '@clippy/testkit/paths';
import { eventually, until } from '@clippy/testkit/until';

// Persistence end to end: the real daemon killed with SIGKILL in the middle of a flood of
// turns, restarted on the same state directory; the next daemon starting while the last one
// is not gone yet; a history that cannot be opened; damaged and malformed history; a full disk.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanups.splice(0).reverse()) await f();
});

async function start(env?: DaemonEnv): Promise<TestDaemon> {
  const d = await TestDaemon.start(env ? { env } : {});
  cleanups.push(async () => {
    if (d.env.root && existsSync(d.env.root)) await d.stop();
  });
  return d;
}

async function spawnPersisted(
  d: TestDaemon,
  c: ClippyClient,
  name: string,
  persist: boolean | undefined,
): Promise<void> {
  const { command, args } = agentCommand('aider', ['--log', join(d.env.root, `${name}.log`)]);
  await c.request('spawn', {
    command,
    args,
    name,
    preset: 'aider',
    cwd: d.env.root,
    env: d.env.env as Record<string, string>,
    ...(persist !== undefined ? { persist } : {}),
  });
  await waitState(c, name, 'idle');
}

const ask = (c: ClippyClient, name: string, text: string) => askTurn(c, name, text);

/** How many of the newest restored turns `show --raw` prints in the crash test. */
const SHOWN_RAW = 3;
/** `daemon status` once a pause of persistence (a full disk) has ended. */
const WAS_PAUSED =
  /WARNING +persistence was paused \d\d:\d\d:\d\d–\d\d:\d\d:\d\d \(ENOSPC[^)]*\): [1-9]\d* turns? not written, in memory only/;
/** The lock test's wait for the history lock: longer than any delay of its log line. */
const LOCK_WAIT_S = 40;
/** A hang guard for a daemon's socket: one start took over 10 s at a load of 18. */
const SOCKET_WAIT_MS = 30_000;

function historyDir(d: TestDaemon): string {
  return join(d.env.env.XDG_STATE_HOME!, 'clippy', 'history');
}

describe('persistence across a daemon crash', () => {
  it('kill -9 during a flood of turns: every turn reported complete is back byte-exact', async () => {
    const d = await start();
    const c = await d.connect();
    await spawnPersisted(d, c, 'p1', true);
    await spawnPersisted(d, c, 'p2', true);
    await c.request('subscribe', { events: ['turn_completed'] });
    const reported = new Map<string, Buffer | null>();
    c.on('turn_completed', (ev) => {
      reported.set(ev.turn.turn_id, null);
      // Its bytes as the daemon served them before the kill (when the kill comes later).
      c.request('get_turn', { turn_id: ev.turn.turn_id }).then(
        (r) => reported.set(ev.turn.turn_id, Buffer.from(r.turn.content)),
        () => {},
      );
    });
    let stop = false;
    const drive = async (name: string) => {
      for (let i = 0; !stop; i++) {
        try {
          await ask(c, name, `flood ${name} number ${i} \x1b[1mbold\x1b[0m ünïcödé`);
        } catch {
          return; // the daemon is gone
        }
      }
    };
    const drivers = [drive('p1'), drive('p2')];
    const seen = () => [...reported.values()].filter((b) => b !== null).length;
    // Killed while both drivers are mid-flood, once 40 turns were reported and read back.
    await until(() => seen() >= 40, '40 turns reported and read', 60_000);
    process.kill(d.pid, 'SIGKILL');
    stop = true;
    await d.exited;
    await Promise.all(drivers);
    await c.close().catch(() => {});
    const fetched = [...reported].filter(([, b]) => b !== null);
    expect(fetched.length).toBeGreaterThanOrEqual(40);

    const again = await TestDaemon.start({ env: d.env });
    // What the user reads of the restored store, each a CLI process (a second of CPU on a
    // loaded machine): the reads of one state run at once. `show --raw` for the newest turns
    // (the last written before the kill).
    const newest = fetched.slice(-SHOWN_RAW);
    const [ls, table, turns, found, ...shownRaw] = await Promise.all([
      runClippy(['ls', '-a', '--json'], again.env.env),
      runClippy(['ls', '-a'], again.env.env),
      runClippy(['turns', 'p1'], again.env.env),
      runClippy(['history', 'search', 'flood p2 number 3', '--json'], again.env.env),
      ...newest.map(([id]) => runRaw(['show', id, '--raw'], again.env.env)),
    ]);
    const sessions = (JSON.parse(ls.stdout) as { sessions: SessionInfo[] }).sessions;
    expect(sessions.map((s) => [s.name, s.state, s.restored, s.persisted])).toEqual([
      ['p1', 'exited', true, true],
      ['p2', 'exited', true, true],
    ]);
    const c2 = await again.connect();
    // Every reported turn is there; the ones whose bytes we saw are byte-exact, as the daemon
    // serves them and, for the newest, as `show --raw` printed them.
    for (const id of reported.keys()) {
      const { turn } = await c2.request('get_turn', { turn_id: id });
      expect(turn.turn_id).toBe(id);
      const bytes = reported.get(id);
      if (bytes) expect(Buffer.from(turn.content).equals(bytes)).toBe(true);
    }
    newest.forEach(([, bytes], i) => {
      expect(shownRaw[i]!.code).toBe(0);
      expect(shownRaw[i]!.stdout.equals(bytes!)).toBe(true);
    });
    // The store opened cleanly: no damage found, nothing paused.
    const status = await c2.request('daemon_status', {});
    expect(status.store?.warning).toBeNull();
    expect(status.store?.turns).toBeGreaterThanOrEqual(reported.size);
    // `ls -a` says they were restored; turns, search and relay work on them.
    expect(table.stdout).toMatch(/p1 .*exited\(with daemon\) restored/);
    expect(turns.code).toBe(0);
    expect(turns.stdout).toMatch(/flood p1 number/);
    expect(found.code).toBe(0);
    const results = (JSON.parse(found.stdout) as { results: { turn: { turn_id: string } }[] })
      .results;
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((r) => r.turn.turn_id.startsWith(sessions[1]!.session))).toBe(true);
    // A hit carries its matching lines, not a preview (the index keeps no text to cut one from).
    expect(results.some((r) => 'preview' in r.turn)).toBe(false);
    await spawnPersisted(again, c2, 'fresh', false);
    const relay = await runClippy(['relay', 'p1', 'fresh'], again.env.env);
    expect(relay.stderr).toBe('');
    expect(relay.code).toBe(0);
    await c2.close();
  }, 120_000);
});

describe('opt-in', () => {
  it('nothing is written without --persist; config.json persists by preset; rm forgets', async () => {
    const d = await start();
    const c = await d.connect();
    await spawnPersisted(d, c, 'plain', undefined);
    await ask(c, 'plain', 'not kept');
    expect(existsSync(historyDir(d))).toBe(false);
    mkdirSync(join(d.env.env.XDG_CONFIG_HOME!, 'clippy'), { recursive: true });
    writeFileSync(
      join(d.env.env.XDG_CONFIG_HOME!, 'clippy', 'config.json'),
      JSON.stringify({ persist: ['aider'] }),
    );
    await spawnPersisted(d, c, 'bypreset', undefined);
    await ask(c, 'bypreset', 'kept by preset');
    const { sessions } = await c.request('list_sessions', {});
    expect(sessions.find((s) => s.name === 'bypreset')?.persisted).toBe(true);
    expect(sessions.find((s) => s.name === 'plain')?.persisted).toBeUndefined();
    // Reads of one state (each a CLI process): run at once.
    const out = join(d.env.root, 'snap.json');
    const [found, none, snap] = await Promise.all([
      runClippy(['history', 'search', 'kept'], d.env.env),
      runClippy(['history', 'search', 'nothing-like-this'], d.env.env),
      runClippy(['snapshot', 'bypreset', '-o', out], d.env.env),
    ]);
    expect(found.stdout).toMatch(/:1 {2}bypreset /);
    expect(found.stdout).toMatch(/ANSWER: kept by preset/);
    expect(found.stdout).not.toMatch(/not kept/);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no persisted turn contains/);
    // Snapshot: the documented JSON, turns with their exact bytes.
    expect(snap.code).toBe(0);
    const doc = JSON.parse(readFileSync(out, 'utf8')) as {
      format: string;
      screen: { ansi: string } | null;
      turns: { turn_id: string; content_base64: string }[];
    };
    expect(doc.format).toBe('clippy-snapshot');
    expect(doc.screen?.ansi).toMatch(/kept by preset/);
    const { turn } = await c.request('get_turn', { session: 'bypreset' });
    expect(
      Buffer.from(doc.turns[0]!.content_base64, 'base64').equals(Buffer.from(turn.content)),
    ).toBe(true);
    // The whole text is there: no preview repeats its start.
    expect(doc.turns.some((t) => 'preview' in t)).toBe(false);
    // rm: the session is forgotten, also after a restart.
    await c.request('kill', { session: 'bypreset', remove: true });
    const gone = await runClippy(['history', 'search', 'kept'], d.env.env);
    expect(gone.code).toBe(1);
    await c.close();
  }, 60_000);
});

describe('the history lock', () => {
  it('a daemon not gone yet holds the history: the next one waits for it, then has it', async () => {
    const a = await start();
    const c = await a.connect();
    await spawnPersisted(a, c, 'kept', true);
    await ask(c, 'kept', 'before the crash');
    // A turn is announced first and written just after: stopped in between, it is not on disk.
    await eventually(
      async () => (await c.request('daemon_status', {})).store?.turns === 1,
      'the turn written',
      30_000,
    );
    await c.close();
    // Stopped, it is alive and holds its lock, as one still dying after kill -9 does. The
    // next daemon uses the same history (another socket: the stopped one still has its own).
    process.kill(a.pid, 'SIGSTOP');
    const envB = new DaemonEnv({ XDG_STATE_HOME: a.env.env.XDG_STATE_HOME });
    cleanups.push(() => envB.dispose());
    // The test lets the holder die once it reads that the next daemon waits: a loaded machine
    // can take longer to carry that line here than the default wait (5 s) lasts.
    mkdirSync(join(envB.env.XDG_CONFIG_HOME!, 'clippy'), { recursive: true });
    writeFileSync(
      join(envB.env.XDG_CONFIG_HOME!, 'clippy', 'config.json'),
      JSON.stringify({ historyLockWaitSeconds: LOCK_WAIT_S }),
    );
    const b = spawn(process.execPath, [bins.clippyd, '--foreground', '--log-level', 'warn'], {
      env: envB.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    envB.track(b.pid!);
    let log = '';
    await new Promise<void>((resolve, reject) => {
      b.stderr!.on('data', (d: Buffer) => {
        log += d.toString();
        if (log.includes('waiting for the history lock')) resolve();
      });
      b.once('exit', () => reject(new Error(`the second daemon exited:\n${log}`)));
      // It answers only once it has settled its history: answering first means it never waited.
      void until(() => existsSync(envB.socket), 'the second socket', SOCKET_WAIT_MS)
        .then(() => runClippy(['daemon', 'status', '--json'], envB.env, 30_000))
        .then((r) => {
          if (!log.includes('waiting for the history lock'))
            reject(new Error(`the second daemon did not wait for the history lock:\n${r.stdout}`));
        }, reject);
    });
    process.kill(a.pid, 'SIGKILL');
    const [ls, turns] = await Promise.all([
      runClippy(['ls', '-a', '--json'], envB.env),
      runClippy(['turns', 'kept'], envB.env),
    ]);
    const sessions = (JSON.parse(ls.stdout) as { sessions: SessionInfo[] }).sessions;
    expect(sessions.map((s) => [s.name, s.restored])).toEqual([['kept', true]]);
    expect(turns.stdout).toMatch(/before the crash/);
    const persisted = await runClippy(
      ['new', '-d', '--persist', '--name', 'next', '--', 'sh'],
      envB.env,
    );
    expect(persisted.stderr).toBe('');
    expect(persisted.code).toBe(0);
    const status = await runClippy(['daemon', 'status'], envB.env);
    expect(status.stdout).toMatch(/history +1 turns of 2 persisted sessions/);
  }, 60_000);

  it('a history that cannot be opened: --persist fails clearly; ls and daemon status say why', async () => {
    const env = new DaemonEnv();
    mkdirSync(join(env.env.XDG_STATE_HOME!, 'clippy'), { recursive: true });
    // Where the history directory belongs, a file: it cannot be read or written.
    writeFileSync(join(env.env.XDG_STATE_HOME!, 'clippy', 'history'), 'not a directory');
    await start(env);
    // Two sessions of different names asked for at once (each `new` a CLI process).
    const [refused, plain] = await Promise.all([
      runClippy(['new', '-d', '--persist', '--name', 'p', '--', 'sh'], env.env),
      runClippy(['new', '-d', '--name', 'plain', '--', 'sh'], env.env),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /cannot persist this session: the turn history is unavailable \(.*ENOTDIR.*\); see clippy daemon status/,
    );
    expect(plain.code).toBe(0);
    const [ls, lsJson, status] = await Promise.all([
      runClippy(['ls'], env.env),
      runClippy(['ls', '--json'], env.env),
      runClippy(['daemon', 'status'], env.env),
    ]);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toMatch(/^plain /m);
    expect(ls.stderr).toMatch(/the turn history is unavailable \(.*ENOTDIR.*\)/);
    const json = JSON.parse(lsJson.stdout) as { history_unavailable?: string };
    expect(json.history_unavailable).toMatch(/ENOTDIR/);
    expect(status.stdout).toMatch(/history +UNAVAILABLE: .*ENOTDIR.*\(--persist is refused\)/);
  }, 60_000);
});

describe('a malformed history', () => {
  it('a session stored without a name, or with a number for one: ls -a lists it by ID; a bad length costs its turn', async () => {
    const env = new DaemonEnv();
    const dir = join(env.env.XDG_STATE_HOME!, 'clippy', 'history');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const session = (id: string, extra: object) => ({
      k: 'session',
      id,
      command: 'claude',
      args: [],
      cwd: '/',
      preset: 'claude',
      created_at: Date.now(),
      cols: 80,
      rows: 24,
      ...extra,
    });
    const content = Buffer.from('the answer\r\n');
    writeFileSync(
      join(dir, '000001.seg'),
      Buffer.concat([
        legacyRecord(session('nonam1', {})),
        legacyRecord(session('numbr1', { name: 7 })),
        legacyTurnRecord('nonam1', 1, content, 'one'),
        // cl -20, tl +20: the blobs' total still matches; only checking each length finds it.
        legacyTurnRecord('nonam1', 2, content, 'two', { cl: -20, tl: 3 + content.length + 20 }),
      ]),
      { mode: 0o600 },
    );
    await start(env);
    // Reads of one state (each a CLI process): run at once.
    const [ls, one, two, status] = await Promise.all([
      runClippy(['ls', '-a'], env.env),
      runRaw(['show', 'nonam1:1', '--raw'], env.env),
      runClippy(['show', 'nonam1:2'], env.env),
      runClippy(['daemon', 'status'], env.env),
    ]);
    expect(ls.stderr).toBe('');
    expect(ls.code).toBe(0);
    expect(ls.stdout).toMatch(/^nonam1 +nonam1 +exited\(with daemon\) restored +1 /m);
    expect(ls.stdout).toMatch(/^numbr1 +numbr1 +exited/m);
    expect(one.stdout.equals(content)).toBe(true);
    // The turn whose lengths point into its metadata is not shown at all.
    expect(two.code).not.toBe(0);
    expect(two.stdout).not.toMatch(/"cl"|prompt/);
    expect(two.stderr).toMatch(/nonam1:2/);
    expect(status.stdout).toMatch(
      /WARNING +damaged history found at start: 000001\.seg: \d+ bytes \(bad_meta\)/,
    );
  }, 60_000);
});

describe('a damaged history', () => {
  it('is detected at start: the daemon starts, keeps the sound turns, moves the damage aside, says so', async () => {
    const d = await start();
    const env = d.env;
    const c = await d.connect();
    await spawnPersisted(d, c, 'dmg', true);
    for (let i = 1; i <= 3; i++) await ask(c, 'dmg', `question ${i}`);
    await c.close();
    // A clean stop (not the env's disposal): SIGTERM by PID, wait for the exit.
    process.kill(d.pid, 'SIGTERM');
    await d.exited;
    const seg = join(historyDir(d), '000001.seg');
    const bytes = readFileSync(seg);
    const at = bytes.indexOf('question 2');
    expect(at).toBeGreaterThan(0);
    bytes[at] = bytes[at]! ^ 0x20;
    writeFileSync(seg, bytes);

    const again = await TestDaemon.start({ env });
    const [status, turns] = await Promise.all([
      runClippy(['daemon', 'status'], env.env),
      runClippy(['turns', 'dmg', '--json'], env.env),
    ]);
    expect(status.stdout).toMatch(
      /WARNING +damaged history found at start: 000001\.seg: \d+ bytes \(checksum\)/,
    );
    expect(again.log).toMatch(/damaged records moved aside/);
    expect(readdirSync(join(historyDir(d), 'damaged'))).toHaveLength(1);
    const listed = JSON.parse(turns.stdout) as { prompt: string }[];
    expect(listed.map((t) => t.prompt)).toEqual(['question 3', 'question 1']);
  }, 60_000);
});

describe('a full disk', () => {
  it('pauses persistence with a warning in `daemon status`; the session goes on', async (ctx) => {
    const env = new DaemonEnv();
    const state = env.env.XDG_STATE_HOME!;
    mkdirSync(state, { recursive: true });
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48k', 'tmpfs', state], { stdio: 'ignore' });
    } catch {
      await env.dispose();
      ctx.skip('the full-disk test mounts a tiny tmpfs: it needs root (CAP_SYS_ADMIN)');
    }
    const unmount = () => {
      try {
        execFileSync('umount', [state], { stdio: 'ignore' });
      } catch {
        // Still busy (a process of the daemon's not gone yet): detached now, freed when idle.
        execFileSync('umount', ['-l', state], { stdio: 'ignore' });
      }
    };
    let d: TestDaemon;
    try {
      d = await start(env);
    } catch (err) {
      // A start that failed must not leave the mount behind (nor its directory).
      unmount();
      await env.dispose().catch(() => {});
      throw err;
    }
    // Runs before the daemon's own cleanup: the mount goes before its directory is removed.
    cleanups.push(async () => {
      await env.dispose().catch(() => {});
      unmount();
    });
    const c = await d.connect();
    await spawnPersisted(d, c, 'full', true);
    const big = 'x'.repeat(3000);
    // Turns until a write fails: the pause begins then (its log line) and lasts 10 s
    // (STORE_RESUME_RETRY_MS).
    for (let i = 0; !d.log.includes('persistence paused'); i++) {
      if (i >= 60) throw new Error(`60 turns of 6 KB did not fill 48 KiB:\n${d.log}`);
      await ask(c, 'full', `${i} ${big}`);
    }
    const status = await runClippy(['daemon', 'status'], env.env);
    // Read within the pause (the usual case): it says so, and what is not kept. A loaded
    // machine can take longer than the pause to run the CLI: then it says what the pause cost.
    if (/history +PAUSED/.test(status.stdout)) {
      expect(status.stdout).toMatch(/WARNING +persistence paused: .*ENOSPC/);
      expect(status.stdout).toMatch(
        /unsaved +[1-9]\d* turns? since \d\d:\d\d:\d\d, in memory only/,
      );
    } else expect(status.stdout).toMatch(WAS_PAUSED);
    // The session still answers, and its turns are in memory.
    await ask(c, 'full', 'still here');
    const { turn } = await c.request('get_turn', { session: 'full' });
    expect(turn.prompt).toBe('still here');
    // Once writing is tried again the status still tells what the pause cost.
    await eventually(
      async () => (await c.request('daemon_status', {})).store?.paused === false,
      'writing tried again',
      30_000,
    );
    const after = await runClippy(['daemon', 'status'], env.env);
    expect(after.stdout).not.toMatch(/PAUSED/);
    expect(after.stdout).toMatch(WAS_PAUSED);
    await c.close();
  }, 90_000);
});
