import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { installed } from './installed.js';
import { unavailable } from './requirements.js';

const run = promisify(execFile);

/** How long Xvfb may take to say which display it took (it answers in well under a second). */
const XVFB_START_TIMEOUT_MS = 10_000;
/** How long a new terminal window may take to be mapped, on a loaded 2-core CI box. */
const WINDOW_TIMEOUT_MS = 20_000;

/** The programs the X11 tests need (apt: xvfb, xterm, xdotool), or why they cannot run (in CI: throws). */
export function x11Missing(): string | null {
  const missing = ['Xvfb', 'xterm', 'xdotool'].filter((p) => !installed(p));
  return unavailable(
    missing.length ? `X11 tests need ${missing.join(', ')} (.ci/run installs them)` : null,
  );
}

/**
 * A private Xvfb server (it picks a free display number itself: -displayfd) and the windows a
 * test opens on it. dispose() stops every process it started, by PID.
 */
export class XServer {
  private readonly procs: ChildProcess[] = [];

  private constructor(
    private readonly xvfb: ChildProcess,
    readonly display: string,
  ) {
    this.procs.push(xvfb);
  }

  /** Starts Xvfb; rejects (saying why) when it cannot start here. */
  static start(): Promise<XServer> {
    return new Promise((resolve, reject) => {
      const xvfb = spawn(
        'Xvfb',
        ['-displayfd', '3', '-screen', '0', '1280x800x24', '-nolisten', 'tcp'],
        {
          stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
        },
      );
      let err = '';
      let out = '';
      const timer = setTimeout(() => {
        xvfb.kill('SIGKILL');
        reject(new Error(`Xvfb did not start within ${XVFB_START_TIMEOUT_MS} ms: ${err.trim()}`));
      }, XVFB_START_TIMEOUT_MS);
      xvfb.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      (xvfb.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => {
        out += d.toString();
        if (!out.includes('\n')) return;
        clearTimeout(timer);
        resolve(new XServer(xvfb, `:${out.trim()}`));
      });
      xvfb.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`Xvfb exited (${code}): ${err.trim()}`));
      });
      xvfb.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
  }

  /** `env` with this server's DISPLAY. */
  env(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return { ...env, DISPLAY: this.display };
  }

  /** Opens an xterm running `argv`, and resolves with its window ID once it is mapped. */
  async xterm(
    argv: string[],
    env: NodeJS.ProcessEnv,
    title: string,
  ): Promise<{ window: string; pid: number }> {
    const proc = spawn('xterm', ['-geometry', '100x30', '-title', title, '-e', ...argv], {
      env: this.env(env),
      stdio: 'ignore',
    });
    this.procs.push(proc);
    const { stdout } = await this.xdotool(
      ['search', '--sync', '--onlyvisible', '--pid', String(proc.pid)],
      WINDOW_TIMEOUT_MS,
    );
    return { window: stdout.trim().split('\n')[0]!, pid: proc.pid! };
  }

  /** Runs xdotool on this display. */
  xdotool(args: string[], timeoutMs = WINDOW_TIMEOUT_MS): Promise<{ stdout: string }> {
    return run('xdotool', args, { env: this.env(process.env), timeout: timeoutMs });
  }

  /** Gives a window the input focus and waits until the server says it has it. */
  async focus(window: string): Promise<void> {
    await this.xdotool(['windowfocus', '--sync', window]);
  }

  /** Presses a key combination (`super+shift+c`) as a keyboard would. */
  async key(combo: string): Promise<void> {
    await this.xdotool(['key', '--clearmodifiers', combo]);
  }

  /** Tracks another process to stop with the server. */
  track(proc: ChildProcess): void {
    this.procs.push(proc);
  }

  async dispose(): Promise<void> {
    for (const proc of this.procs.reverse()) {
      if (proc.exitCode !== null || proc.signalCode !== null) continue;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(timer);
    }
    this.procs.length = 0;
  }
}
