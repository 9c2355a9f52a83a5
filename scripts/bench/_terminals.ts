/**
 * The paths a user's terminal takes to a program, for the attach benchmarks (not a benchmark
 * itself: run.ts skips `_` files). Each is a PTY the benchmark reads and types into as a
 * terminal emulator would:
 * - clippy: the real built `clippy attach SESSION` running in the PTY, attached to a session of
 *   a real daemon (terminal ↔ clippy attach ↔ clippyd ↔ the session's PTY);
 * - tmux: `tmux attach` to a pane of a private tmux server (its own socket, killed by PID);
 * - direct: the program itself in the PTY (node-pty, no multiplexer).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { writeSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pty from 'node-pty';
import type { ClippyClient } from '@clippy/client';
import { DAEMON_READY_TIMEOUT_MS, DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { bins } from '@clippy/testkit/paths';
import { processCpuSeconds, tempDir } from './_common.js';
import { onInterrupt } from './_interrupt.js';

export const shellEnv = (): Record<string, string> =>
  ({ ...process.env, PS1: '$ ', TERM: 'xterm-256color' }) as Record<string, string>;

/** A PTY as the benchmark's terminal emulator sees it: raw bytes out, keystrokes in. */
export class Term {
  readonly pty: pty.IPty;
  private exited = false;

  constructor(
    file: string,
    args: string[],
    cols: number,
    rows: number,
    env: Record<string, string>,
  ) {
    // Raw bytes (no UTF-8 decoding in the reader): the reader must cost as little as it can,
    // it shares the machine with what it measures.
    this.pty = pty.spawn(file, args, {
      name: 'xterm-256color',
      cols,
      rows,
      env,
      encoding: null,
    });
    this.pty.onExit(() => (this.exited = true));
  }

  /** The process running in the PTY (the attach client, the tmux client, or the program). */
  get pid(): number {
    return this.pty.pid;
  }

  onData(cb: (data: Buffer) => void): { dispose(): void } {
    return this.pty.onData((d) => cb(d as unknown as Buffer));
  }

  /**
   * Types into the PTY as a terminal emulator does: one write on the master. node-pty's own
   * write goes through libuv's thread pool, a hand-off that is the harness's, not the path's.
   */
  type(keys: string): void {
    writeSync((this.pty as unknown as { fd: number }).fd, keys);
  }

  /** Resolves once `text` appeared in the output (searched across chunk seams). */
  waitText(text: string, timeoutMs = 20_000): Promise<void> {
    return new Promise((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => {
        sub.dispose();
        reject(
          new Error(
            `no ${JSON.stringify(text)} within ${timeoutMs} ms (last output: ${JSON.stringify(seen.slice(-300))})`,
          ),
        );
      }, timeoutMs);
      const sub = this.onData((d) => {
        seen = (seen + d.toString('latin1')).slice(-4096);
        if (seen.includes(text)) {
          clearTimeout(timer);
          sub.dispose();
          resolve();
        }
      });
    });
  }

  /** Ends the process in the PTY by its PID. */
  async kill(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((r) => this.pty.onExit(() => r()));
    this.pty.kill('SIGKILL');
    await Promise.race([gone, new Promise((r) => setTimeout(r, 2_000))]);
  }
}

/**
 * Other built checkouts to measure beside this one (BENCH_BASELINE, comma-separated paths):
 * each as [variant name, path], the name from its folder.
 */
export function otherCheckouts(): [string, string][] {
  const roots = (process.env.BENCH_BASELINE ?? '').split(',').filter(Boolean);
  return roots.map((root) => [`clippy attach (${path.basename(path.resolve(root))})`, root]);
}

/** CPU seconds of a process so far, or NaN once it is gone. */
export function cpuOf(pid: number): number {
  try {
    return processCpuSeconds(pid);
  } catch {
    return NaN;
  }
}

/** The node flags `root`'s own starters give its daemon (none before DAEMON_NODE_FLAGS). */
async function nodeFlagsOf(root: string): Promise<readonly string[]> {
  const built = path.join(root, 'packages/protocol/dist/constants.js');
  if (!fs.existsSync(built)) return [];
  const m = (await import(pathToFileURL(built).href)) as { DAEMON_NODE_FLAGS?: readonly string[] };
  return m.DAEMON_NODE_FLAGS ?? [];
}

/**
 * A clippy daemon for the whole run; sessions are spawned in it and attached with the CLI.
 * `root`: another built checkout whose daemon and CLI to run instead of this one's (a change's
 * before and after, measured in one run).
 */
export class ClippyHost {
  private constructor(
    readonly daemon: { pid: number; env: DaemonEnv; stop(): Promise<void> },
    private readonly cli: string,
  ) {}

  static async start(root?: string): Promise<ClippyHost> {
    if (!root) return new ClippyHost(await TestDaemon.start(), bins.clippy);
    const env = new DaemonEnv({ CLIPPYD_PATH: path.join(root, 'packages/broker/bin/clippyd.js') });
    const child = spawn(
      process.execPath,
      [...(await nodeFlagsOf(root)), env.env.CLIPPYD_PATH!, '--foreground', '--log-level', 'warn'],
      { env: env.env, stdio: 'ignore' },
    );
    env.track(child.pid!);
    const deadline = Date.now() + DAEMON_READY_TIMEOUT_MS;
    for (;;) {
      try {
        await (await env.connect()).close();
        break;
      } catch (err) {
        if (Date.now() > deadline) {
          await env.dispose();
          throw new Error(`the daemon of ${root} did not start: ${(err as Error).message}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const daemon = { pid: child.pid!, env, stop: () => env.dispose() };
    return new ClippyHost(daemon, path.join(root, 'packages/cli/bin/clippy.js'));
  }

  get pid(): number {
    return this.daemon.pid;
  }

  connect(): Promise<ClippyClient> {
    return this.daemon.env.connect();
  }

  /** Starts a session running `command args` and returns its ID. */
  async spawn(command: string, args: string[], cols: number, rows: number): Promise<string> {
    const c = await this.connect();
    try {
      const { session } = await c.request('spawn', { command, args, env: shellEnv(), cols, rows });
      return session;
    } finally {
      await c.close();
    }
  }

  /**
   * The real `clippy attach SESSION` in a PTY of the given size. `relay`: with
   * CLIPPY_ATTACH_RELAY=1, every byte through the attach process (as before direct attach, and
   * as with --host); otherwise the daemon reads and writes the PTY itself where it can.
   */
  attach(session: string, cols: number, rows: number, relay = false): Term {
    // Extra node flags for profiling the attach client (e.g. `--cpu-prof`), space-separated.
    const nodeArgs = process.env.CLIPPY_ATTACH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    const env: Record<string, string> = {
      ...(this.daemon.env.env as Record<string, string>),
      TERM: 'xterm-256color',
    };
    delete env.CLIPPY_ATTACH_RELAY;
    if (relay) env.CLIPPY_ATTACH_RELAY = '1';
    return new Term(process.execPath, [...nodeArgs, this.cli, 'attach', session], cols, rows, env);
  }

  async stop(): Promise<void> {
    await this.daemon.stop();
  }
}

/**
 * A private tmux server (its own socket in a temp dir, no config, no status line so a pane is
 * as large as the terminal) holding named sessions; `attach` runs a tmux client in a PTY.
 * stop() ends the server by its PID.
 */
export class TmuxHost {
  private readonly tmp = tempDir();
  readonly socket = path.join(this.tmp.dir, 'tmux.sock');
  private serverPid: number | null = null;
  /** Forgets the server's kill on an interrupted run (it was stopped the normal way). */
  private forgetServer: () => void = () => {};

  /** Why tmux cannot be used here, or null. */
  static unavailable(): string | null {
    try {
      execFileSync('tmux', ['-V'], { stdio: 'ignore' });
      return null;
    } catch {
      return 'tmux is not installed (apt-get install tmux)';
    }
  }

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-S', this.socket, '-f', '/dev/null', ...args], {
      env: shellEnv(),
      encoding: 'utf8',
    });
  }

  /** Starts a session `name` running `command` (a shell line) in a pane of cols x rows. */
  spawn(name: string, command: string, cols: number, rows: number): void {
    this.tmux(['new-session', '-d', '-s', name, '-x', String(cols), '-y', String(rows), command]);
    this.tmux(['set-option', '-g', 'status', 'off']);
    if (this.serverPid !== null) return;
    const pid = Number(this.tmux(['display-message', '-p', '#{pid}']).trim());
    this.serverPid = pid;
    // The server daemonized into a session of its own: a Ctrl-C of the run does not reach it.
    this.forgetServer = onInterrupt(() => process.kill(pid, 'SIGKILL'));
  }

  get pid(): number {
    return this.serverPid ?? NaN;
  }

  /** The names of the server's sessions now. */
  sessions(): string[] {
    return this.tmux(['list-sessions', '-F', '#{session_name}']).split('\n').filter(Boolean);
  }

  attach(name: string, cols: number, rows: number): Term {
    return new Term('tmux', ['-S', this.socket, 'attach', '-t', name], cols, rows, shellEnv());
  }

  async stop(): Promise<void> {
    const pid = this.serverPid;
    this.forgetServer();
    if (pid) {
      try {
        process.kill(pid, 'SIGTERM');
        for (let i = 0; i < 100; i++) {
          process.kill(pid, 0);
          await new Promise((r) => setTimeout(r, 20));
        }
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
    if (fs.existsSync(this.tmp.dir)) this.tmp.remove();
  }
}
