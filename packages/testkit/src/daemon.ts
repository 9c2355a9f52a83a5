import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  connect,
  VersionMismatchError,
  type ClippyClient,
  type ConnectOptions,
} from '@clippy/client';
import { DAEMON_NODE_FLAGS, resolveSocketPaths } from '@clippy/protocol';
import { bins } from './paths.js';
import { DESKTOP_VARS, envWithout } from './env.js';
import { isAlive, processesWithRuntimeDir } from './env-processes.js';

/**
 * How long a test daemon may take to answer `hello`: node start-up on a loaded 2-core box
 * (13 s seen at a load average of 23, where 10 s failed whole real-agent files). A deadline
 * only: start() returns as soon as the daemon answers.
 */
export const DAEMON_READY_TIMEOUT_MS = 30_000;
/** How long `stop()` waits after SIGTERM before SIGKILL: the broker's own shutdown graces, plus margin. */
export const DAEMON_STOP_TIMEOUT_MS = 6_000;
/** How long a leftover process of a disposed environment gets after SIGTERM before SIGKILL. */
const LEFTOVER_STOP_TIMEOUT_MS = 2_000;
/** Pause between readiness probes. */
const READY_POLL_MS = 25;

/** SIGTERM, then SIGKILL if it is still there after `graceMs`. */
async function stopPid(pid: number, graceMs: number): Promise<void> {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return; // gone meanwhile
  }
  if (await waitGone(pid, graceMs)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  await waitGone(pid, 1_000);
}

async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/**
 * A private place for one test's clippy: fresh XDG_RUNTIME_DIR, XDG_STATE_HOME and
 * XDG_CONFIG_HOME under one temp dir. `env` is what the CLI, the client and the daemon get.
 * Dispose kills every daemon it knows of (by PID) and removes the directory.
 */
export class DaemonEnv {
  /**
   * Every environment not yet disposed: a process that exits on a signal (an interrupted
   * benchmark) disposes them with disposeNow(), since it cannot wait for dispose().
   */
  static readonly live = new Set<DaemonEnv>();
  readonly root = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-'));
  readonly runtimeDir = path.join(this.root, 'run');
  readonly env: NodeJS.ProcessEnv;
  readonly socket: string;
  readonly wsSocket: string;
  private readonly pids = new Set<number>();

  constructor(extraEnv: NodeJS.ProcessEnv = {}) {
    fs.mkdirSync(this.runtimeDir, { mode: 0o700 });
    for (const d of ['state', 'config', 'cache', 'home']) fs.mkdirSync(path.join(this.root, d));
    this.env = {
      // No way out to the user's desktop (a test daemon would pop notifications there); a test
      // that wants one gives it in extraEnv.
      ...envWithout(process.env, DESKTOP_VARS),
      XDG_RUNTIME_DIR: this.runtimeDir,
      XDG_STATE_HOME: path.join(this.root, 'state'),
      XDG_CONFIG_HOME: path.join(this.root, 'config'),
      XDG_CACHE_HOME: path.join(this.root, 'cache'),
      CLIPPY_SOCKET: '',
      CLIPPYD_PATH: bins.clippyd,
      ...extraEnv,
    };
    delete this.env.CLIPPY_SOCKET;
    const paths = resolveSocketPaths(this.env);
    this.socket = paths.socket;
    this.wsSocket = paths.wsSocket;
    DaemonEnv.live.add(this);
  }

  /** Remembers a daemon PID (e.g. one the CLI auto-started) so dispose() stops it. */
  track(pid: number): void {
    this.pids.add(pid);
  }

  /** Connects a client to this environment's daemon (no auto-start). */
  connect(opts: Omit<ConnectOptions, 'env'> = {}): Promise<ClippyClient> {
    return connect({ ...opts, env: this.env });
  }

  /** Asks whatever daemon answers here for its PID and tracks it. */
  async discoverPid(): Promise<number | null> {
    try {
      const c = await this.connect();
      try {
        const s = await c.request('daemon_status', {}, { timeoutMs: 2_000 });
        this.track(s.pid);
        return s.pid;
      } finally {
        await c.close();
      }
    } catch {
      return null;
    }
  }

  async dispose(): Promise<void> {
    await this.discoverPid();
    for (const pid of this.pids) await stopPid(pid, DAEMON_STOP_TIMEOUT_MS);
    // Whatever still runs in this environment (a daemon too busy to tell its PID, an agent a
    // killed daemon left): stopped by PID too, so a failed or overloaded test leaks nothing.
    const left = processesWithRuntimeDir(this.runtimeDir);
    await Promise.all(left.map((pid) => stopPid(pid, LEFTOVER_STOP_TIMEOUT_MS)));
    fs.rmSync(this.root, { recursive: true, force: true });
    DaemonEnv.live.delete(this);
  }

  /**
   * What dispose() does, at once and synchronously, for a process about to exit on a signal:
   * every process of this environment it knows of or finds gets SIGKILL (a daemon's reaper then
   * ends its sessions' programs), and the directory goes. Nothing waits for a daemon to stop.
   */
  disposeNow(): void {
    DaemonEnv.live.delete(this);
    for (const pid of new Set([...this.pids, ...processesWithRuntimeDir(this.runtimeDir)])) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

/** A clippyd started by a test in the foreground of its own DaemonEnv. */
export class TestDaemon {
  private stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    readonly env: DaemonEnv,
    private readonly child: ChildProcess,
  ) {
    child.stderr?.on('data', (d: Buffer) => {
      // Keep the tail only: enough to explain a failed start.
      this.stderr = (this.stderr + d.toString()).slice(-8_000);
    });
    child.stdout?.on('data', () => {});
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Whether the daemon process still runs (a test may have stopped or killed it). */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  get socket(): string {
    return this.env.socket;
  }

  /** What the daemon wrote to stderr (its tail). */
  get log(): string {
    return this.stderr;
  }

  /**
   * Starts `clippyd --foreground` with a fresh environment and waits until it answers `hello`.
   * `bin`: another clippyd.js (e.g. testkit's otherRelease()); one of another protocol version
   * counts as ready when it answers the handshake with its version.
   */
  static async start(
    opts: {
      env?: DaemonEnv;
      args?: string[];
      logLevel?: string;
      bin?: string;
      /** The daemon's limit on open descriptors (`ulimit -n`), to reach it with fewer connections. */
      maxFiles?: number;
    } = {},
  ): Promise<TestDaemon> {
    const env = opts.env ?? new DaemonEnv();
    const nodeArgs = [
      // As the CLI starts it.
      ...DAEMON_NODE_FLAGS,
      // Extra node flags for profiling a test daemon (e.g. `--cpu-prof`), space-separated.
      ...(process.env.CLIPPYD_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      opts.bin ?? bins.clippyd,
      '--foreground',
      '--log-level',
      opts.logLevel ?? 'warn',
      ...(opts.args ?? []),
    ];
    // With a descriptor limit, a shell sets it and execs node: the daemon keeps the shell's PID.
    const [command, args] =
      opts.maxFiles === undefined
        ? [process.execPath, nodeArgs]
        : [
            '/bin/sh',
            [
              '-c',
              'ulimit -n "$0" && exec "$@"',
              String(opts.maxFiles),
              process.execPath,
              ...nodeArgs,
            ],
          ];
    const child = spawn(command, args, { env: env.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const daemon = new TestDaemon(env, child);
    env.track(child.pid!);
    const deadline = Date.now() + DAEMON_READY_TIMEOUT_MS;
    let exited: string | undefined;
    void daemon.exited.then(({ code, signal }) => (exited = `it exited: ${signal ?? code}`));
    for (;;) {
      try {
        const c = await env.connect();
        await c.close();
        return daemon;
      } catch (err) {
        if (err instanceof VersionMismatchError) return daemon;
        if (exited || Date.now() > deadline) {
          // Said before dispose(), whose SIGTERM would make a timeout read as an exit.
          const why = exited ?? `not ready within ${DAEMON_READY_TIMEOUT_MS} ms`;
          await env.dispose();
          throw new Error(
            `clippyd did not become ready (${why}): ${(err as Error).message}\n${daemon.log}`,
          );
        }
      }
      await new Promise((r) => setTimeout(r, READY_POLL_MS));
    }
  }

  connect(opts: Omit<ConnectOptions, 'env'> = {}): Promise<ClippyClient> {
    return this.env.connect(opts);
  }

  /** SIGTERM by PID, SIGKILL if it lingers; then removes the environment's directories. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), DAEMON_STOP_TIMEOUT_MS);
      await this.exited;
      clearTimeout(timer);
    }
    await this.env.dispose();
  }
}
