import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv } from '@clippy/testkit/daemon';
import { until } from '@clippy/testkit/until';

/** Per test: several real processes start and stop; a loaded 2-core CI box needs the room. */
const E2E_TIMEOUT_MS = 60_000;
/** The tmpfs that plays a full disk: the size the issue reproduced with. */
const TINY_DISK = '256k';
/** Sessions made at most to log past the last free page of the full disk (~400 bytes each). */
const MAX_SESSIONS_TO_FILL = 40;
/** Rotation size given to the daemon through its test seam: a few lines per file. */
const SMALL_LOG_BYTES = 2048;

// End-to-end: a real clippyd in the background (logging to its file) and the real `clippy`
// (needs `npm run build`). Logging must never take the daemon down.

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
}, E2E_TIMEOUT_MS);

/** A DaemonEnv (removed after the test) and its environment for the CLI. */
function daemonEnv(extra: NodeJS.ProcessEnv = {}): DaemonEnv {
  const denv = new DaemonEnv(extra);
  cleanups.push(() => denv.dispose());
  return denv;
}

function logDir(denv: DaemonEnv): string {
  return path.join(denv.env.XDG_STATE_HOME!, 'clippy');
}

/** `clippy daemon start` (background, logs to its file); returns the daemon's pid. */
async function startBackground(denv: DaemonEnv): Promise<number> {
  const r = await runClippy(['daemon', 'start'], denv.env);
  // Tracked before anything is asserted: a daemon that started but misbehaves is still stopped.
  const printed = /\(pid (\d+)\)/.exec(r.stdout + r.stderr);
  if (printed) denv.track(Number(printed[1]));
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return Number(printed![1]);
}

async function client(denv: DaemonEnv): Promise<ClippyClient> {
  const c = await denv.connect();
  cleanups.push(async () => void (await c.close()));
  return c;
}

/** Spawns a session that answers each line with `got:<line>`; returns its id and pid. */
async function echoSession(c: ClippyClient): Promise<{ session: string; pid: number }> {
  const { session, pid } = await c.request('spawn', {
    command: 'sh',
    args: ['-c', 'while read x; do echo "got:$x"; done'],
    cwd: os.tmpdir(),
  });
  return { session, pid: pid! };
}

/** Types a line into a session and waits for its answer. */
async function expectEcho(c: ClippyClient, session: string, word: string): Promise<void> {
  const chunks: Buffer[] = [];
  const off = c.on('output', (p) => {
    if (p.session === session) chunks.push(Buffer.from(p.data));
  });
  try {
    await c.request('attach', { session, mode: 'interactive', cols: 80, rows: 24 });
    await c.request('input', { session, data: Buffer.from(`${word}\r`) });
    await until(
      () => Buffer.concat(chunks).toString().includes(`got:${word}`),
      `"got:${word}" from ${session}`,
    );
  } finally {
    off();
    await c.request('detach', { session });
  }
}

async function droppedLines(c: ClippyClient): Promise<number> {
  // `?.`: so that against a daemon without the field this test shows how that daemon fares.
  return (await c.request('daemon_status', {})).log?.dropped_lines ?? 0;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Mounts a tiny tmpfs; null when this machine refuses (not root, no CAP_SYS_ADMIN, a sandbox). */
function mountTinyDisk(): string | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TINY_DISK},mode=0700`, 'tmpfs', dir], {
      stdio: 'ignore',
    });
  } catch {
    fs.rmdirSync(dir);
    return null;
  }
  cleanups.push(() => {
    try {
      execFileSync('umount', [dir], { stdio: 'ignore' });
    } catch {
      // still busy (a process the test could not stop): detach it now, freed once unused
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Writes zeros into `dir` until the file system says ENOSPC. */
function fillDisk(dir: string): string {
  const filler = path.join(dir, 'filler');
  const fd = fs.openSync(filler, 'w');
  const block = Buffer.alloc(4096);
  try {
    for (;;) fs.writeSync(fd, block);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

describe(
  'a log that cannot be written never takes the daemon down',
  { timeout: E2E_TIMEOUT_MS },
  () => {
    it('a disk that fills up under a running daemon: sessions survive, status reports the dropped lines', async (ctx) => {
      const disk = mountTinyDisk();
      if (!disk)
        return ctx.skip('the full-disk test mounts a tiny tmpfs: it needs root (CAP_SYS_ADMIN)');
      const denv = daemonEnv({ XDG_STATE_HOME: disk });
      const pid = await startBackground(denv);
      const c = await client(denv);
      const first = await echoSession(c);
      await expectEcho(c, first.session, 'before');

      const filler = fillDisk(disk);
      // Each session logs "session created" and "session exited" into the full file system. The
      // log's last page may still have room (tmpfs allocates pages): go on until lines drop.
      let third = await echoSession(c);
      for (let i = 0; i < MAX_SESSIONS_TO_FILL && (await droppedLines(c)) < 2; i++) {
        await c.request('kill', { session: third.session });
        third = await echoSession(c);
      }

      expect(alive(pid)).toBe(true);
      await expectEcho(c, first.session, 'after');
      await expectEcho(c, third.session, 'third');
      const s = await c.request('daemon_status', {});
      expect(s.pid).toBe(pid);
      expect(s.log.destination).toBe('file');
      expect(s.log.dropped_lines).toBeGreaterThanOrEqual(2);
      expect(s.log.last_error).toMatch(/ENOSPC/);
      const human = await runClippy(['daemon', 'status'], denv.env);
      expect(human.code).toBe(0);
      expect(human.stdout).toMatch(/log +\d+ lines dropped \(disk full\?\); last error: ENOSPC/);

      // Space again: the next line goes in, after one that says how many are missing.
      fs.rmSync(filler);
      await c.request('kill', { session: third.session });
      await until(
        () => fs.readFileSync(path.join(disk, 'clippy', 'clippyd.log'), 'utf8').includes('dropped'),
        'the log to note its dropped lines',
      );
      // The line the disk filled up in is cut short; the next one starts on a line of its own.
      const lines = fs
        .readFileSync(path.join(disk, 'clippy', 'clippyd.log'), 'utf8')
        .split('\n')
        .filter(Boolean);
      const notice: Array<Record<string, unknown>> = [];
      const broken: string[] = [];
      for (const line of lines) {
        try {
          notice.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          broken.push(line);
        }
      }
      expect(broken.length).toBeLessThanOrEqual(1);
      expect(notice.find((l) => l.msg === 'log lines dropped')).toMatchObject({
        dropped: expect.any(Number),
        error: expect.stringMatching(/ENOSPC/),
      });
    });

    it('a log that is a symbolic link (here to /dev/full): never written through; the daemon starts, serves and says why', async () => {
      const denv = daemonEnv();
      fs.mkdirSync(logDir(denv), { recursive: true });
      const file = path.join(logDir(denv), 'clippyd.log');
      fs.symlinkSync('/dev/full', file);
      const pid = await startBackground(denv);
      const c = await client(denv);
      const { session } = await echoSession(c);
      await expectEcho(c, session, 'full');
      expect(alive(pid)).toBe(true);

      const r = await runClippy(['daemon', 'status', '--json'], denv.env);
      expect(r.code).toBe(0);
      const s = JSON.parse(r.stdout);
      expect(s.log).toMatchObject({
        destination: 'none',
        last_error: `${file} is a symbolic link (to /dev/full): clippy never opens its files through one`,
      });
      expect(s.log.dropped_lines).toBeGreaterThanOrEqual(2);
      const human = await runClippy(['daemon', 'status'], denv.env);
      expect(human.stdout).toContain(`log file   ${file} (cannot be opened`);
    });

    it('a log file that cannot be opened: the daemon starts without it and says so', async () => {
      const denv = daemonEnv();
      // The log's directory is a file: neither it nor the log can be created.
      fs.writeFileSync(logDir(denv), 'not a directory');
      const pid = await startBackground(denv);
      const c = await client(denv);
      const { session } = await echoSession(c);
      await expectEcho(c, session, 'nolog');
      expect(alive(pid)).toBe(true);

      const s = await c.request('daemon_status', {});
      expect(s.log.destination).toBe('none');
      expect(s.log.last_error).toMatch(/EEXIST|ENOTDIR/);
      expect(s.log.dropped_lines).toBeGreaterThanOrEqual(1);
      const human = await runClippy(['daemon', 'status'], denv.env);
      expect(human.stdout).toContain(
        `log file   ${path.join(logDir(denv), 'clippyd.log')} (cannot be opened`,
      );
    });

    it('rotates the log at its size bound to one clippyd.log.1', async () => {
      const denv = daemonEnv({ CLIPPYD_LOG_MAX_BYTES: String(SMALL_LOG_BYTES) });
      await startBackground(denv);
      const c = await client(denv);
      const log = path.join(logDir(denv), 'clippyd.log');
      // Each session logs "session created" and "session exited" (~200 bytes each).
      for (let i = 0; i < 8; i++) {
        const { session } = await echoSession(c);
        await c.request('kill', { session });
      }
      await until(() => fs.existsSync(`${log}.1`), 'clippyd.log.1');
      const s = await c.request('daemon_status', {});
      expect(s.log.max_bytes).toBe(SMALL_LOG_BYTES);
      expect(s.log.dropped_lines).toBe(0);
      for (const f of [log, `${log}.1`]) {
        const text = fs.readFileSync(f, 'utf8');
        expect(Buffer.byteLength(text)).toBeLessThanOrEqual(SMALL_LOG_BYTES);
        // Whole lines only: rotation happens between lines.
        for (const line of text.split('\n').filter(Boolean))
          expect(() => JSON.parse(line)).not.toThrow();
      }
      expect(fs.statSync(log).mode & 0o777).toBe(0o600);
    });

    it("a session's log line carries the daemon's pid once and the child's as childPid", async () => {
      const denv = daemonEnv();
      const pid = await startBackground(denv);
      const c = await client(denv);
      const child = await echoSession(c);
      const log = path.join(logDir(denv), 'clippyd.log');
      const created = () =>
        fs
          .readFileSync(log, 'utf8')
          .split('\n')
          .find((l) => l.includes('"session created"'));
      await until(() => created() !== undefined, 'the "session created" line');
      const line = created();
      expect(line!.match(/"pid":/g)).toHaveLength(1);
      expect(JSON.parse(line!)).toMatchObject({ pid, childPid: child.pid, session: child.session });
    });
  },
);
