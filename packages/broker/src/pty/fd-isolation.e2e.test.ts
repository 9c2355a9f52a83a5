import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DAEMON_READY_TIMEOUT_MS } from '@clippy/testkit/daemon';
import { eventually, until } from '@clippy/testkit/until';
import { childEnv } from '../test-support/fixtures.js';
import { RawClient } from '../test-support/raw-client.js';
import { buildMissing, platformMissing } from '@clippy/testkit/requirements';

// The built daemon, started as a user's shell would start it: with descriptors of its own
// that it did not open (a shell's or a service manager's), which no session may see.
const BIN = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'clippyd.js');
const BUILT = buildMissing(resolve(dirname(BIN), '..', 'dist', 'main.js')) === null;
const HAS_PROC = platformMissing(existsSync('/proc/self/fd'), 'reading /proc/self/fd') === null;
/** How long the daemon may take to listen: node start-up on a loaded 2-core CI machine (as testkit's). */
const DAEMON_READY_MS = DAEMON_READY_TIMEOUT_MS;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function descriptors(pid: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      out[fd] = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      // Closed while we looked.
    }
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    // A zombie has exited: it only waits for a parent that is gone to be reaped by init.
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

function exe(pid: number): string {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return '';
  }
}

describe.skipIf(!BUILT || !HAS_PROC)('session processes', () => {
  it('see only fds 0-2, whatever the daemon holds (other sessions, inherited fds), and end with a crashed daemon', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'clippy-fd-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'run'), { mode: 0o700 });
    // An fd the daemon inherits without close-on-exec, at a number far above the first free one.
    const inherited = openSync(join(dir, 'inherited.txt'), 'w');
    cleanups.push(() => closeSync(inherited));
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      XDG_RUNTIME_DIR: join(dir, 'run'),
      XDG_STATE_HOME: join(dir, 'state'),
    };
    const stdio: StdioOptions = [
      'ignore',
      'ignore',
      'pipe',
      ...Array<'ignore'>(6).fill('ignore'),
      inherited,
    ];
    const daemon: ChildProcess = spawn(process.execPath, [BIN, '--foreground'], { env, stdio });
    cleanups.push(() => {
      if (daemon.exitCode === null && daemon.signalCode === null) daemon.kill('SIGKILL');
    });
    expect(Object.values(descriptors(daemon.pid!))).toContain(join(dir, 'inherited.txt'));

    const socket = join(dir, 'run', 'clippy', 'broker.sock');
    const c = await eventually(
      () =>
        RawClient.open(socket).catch((err: Error) => {
          if (daemon.exitCode !== null) throw err;
          return null;
        }),
      'the daemon answering on its socket',
      DAEMON_READY_MS,
    );
    cleanups.push(() => c.close());

    const sessions: { session: string; pid: number }[] = [];
    for (const name of ['victim', 'other', 'third']) {
      const r = await c.ok('spawn', { command: 'cat', name, env: childEnv() });
      sessions.push({ session: r.session as string, pid: r.pid as number });
    }
    const pids = sessions.map((s) => s.pid);
    for (const { session, pid } of sessions) {
      // Look once cat reads its terminal: before exec the child is a copy of the daemon, and
      // right after it the dynamic loader still holds the libraries it opens (an fd 3 seen under
      // load). The terminal echoes the line at once; cat's own copy of it proves it has read.
      await c.ok('attach', { session });
      c.sendRaw({ type: 'input', id: 0, session, data: Buffer.from('fd-probe\r') });
      await c.until(() => c.output(session).toString().split('fd-probe').length > 2);
      const fds = descriptors(pid);
      expect(Object.keys(fds).sort(), `fds of ${pid}: ${JSON.stringify(fds)}`).toEqual([
        '0',
        '1',
        '2',
      ]);
    }
    cleanups.push(() => {
      for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    });
    // A later session that ignores hangups (nohup-style) and so outlives the daemon: were the
    // masters of earlier sessions leaked into it, they would never be hung up.
    const sleeper = await c.ok('spawn', {
      command: 'sh',
      args: ['-c', 'trap "" HUP; exec sleep 60'],
      name: 'nohup',
      env: childEnv(),
    });
    const sleeperPid = sleeper.pid as number;
    cleanups.push(() => {
      if (alive(sleeperPid)) process.kill(sleeperPid, 'SIGKILL');
    });
    await until(() => exe(sleeperPid).endsWith('/sleep'), 'the sleeper runs sleep', 10_000);
    // A crash: no shutdown. The kernel hangs up every session's terminal as the daemon's
    // descriptors close, and no session lives on as an orphan.
    daemon.kill('SIGKILL');
    for (const pid of pids) await until(() => !alive(pid), `session ${pid} ends`, 10_000);
  });
});
