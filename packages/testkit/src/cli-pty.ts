import xterm from '@xterm/headless';
import { execFileSync, spawn } from 'node:child_process';
import os from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { stripVTControlCharacters } from 'node:util';
import { spawnPty, type PtyProcess } from '@clippy/system/pty';
import { bins } from './paths.js';
import { useUserWidths } from './xterm-widths.js';

const { Terminal } = xterm;

/** Default wait for text to appear: generous for a loaded CI machine, short enough to fail fast. */
export const WAIT_TIMEOUT_MS = 20_000;
/** Pause between checks while waiting. */
const WAIT_POLL_MS = 15;

export interface PtyRunOptions {
  env: NodeJS.ProcessEnv;
  cols?: number;
  rows?: number;
  cwd?: string;
}

/**
 * A program running in a real PTY, as a user's terminal would run it: its output is kept raw
 * and rendered into a headless terminal whose screen tests can read. Use `clippy()` to run
 * the built `clippy` binary, or `shell()` to run a shell line (e.g. `clippy …; stty -a`).
 */
export class CliPty {
  private raw = '';
  /** `text` of `raw` up to `strippedUpTo` (just after a newline): stripped once, not per wait. */
  private stripped = '';
  private strippedUpTo = 0;
  private readonly term: InstanceType<typeof Terminal>;
  /**
   * The program on its terminal, through the daemon's own PTY wrapper: a test process busy
   * parsing a flood reads late, and the wrapper keeps the last output a program wrote before
   * exiting (it holds the slave side open and closes only once drained).
   */
  private readonly proc: PtyProcess;
  private readonly decoder = new StringDecoder('utf8');
  private pending = 0;
  /** When output last came, and how much in all: what a wait that timed out says. */
  private lastDataAt = Date.now();
  private bytes = 0;
  private exitInfo: { exitCode: number; signal?: number } | null = null;
  readonly exited: Promise<{ exitCode: number; signal?: number }>;

  private constructor(file: string, args: string[], opts: PtyRunOptions) {
    const cols = opts.cols ?? 100;
    const rows = opts.rows ?? 30;
    this.term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 1000 });
    useUserWidths(this.term);
    this.proc = spawnPty({
      file,
      args,
      cols,
      rows,
      cwd: opts.cwd ?? process.cwd(),
      // What a terminal emulator sets, whatever the test's environment says.
      env: { ...(opts.env as Record<string, string>), TERM: 'xterm-256color' },
    });
    this.proc.onData((chunk) => {
      const d = this.decoder.write(chunk);
      this.lastDataAt = Date.now();
      this.bytes += d.length;
      this.raw += d;
      this.pending++;
      this.term.write(d, () => this.pending--);
    });
    this.exited = new Promise((resolve) =>
      this.proc.onExit((e) => {
        const signal = e.signal ? os.constants.signals[e.signal as NodeJS.Signals] : undefined;
        this.exitInfo = { exitCode: e.exitCode ?? 0, ...(signal ? { signal } : {}) };
        resolve(this.exitInfo);
      }),
    );
  }

  /** Runs the built `clippy` with these arguments. */
  static clippy(args: string[], opts: PtyRunOptions): CliPty {
    return new CliPty(process.execPath, [bins.clippy, ...args], opts);
  }

  /** Runs `sh -c line`; `$CLIPPY` in the line is the command that runs the built clippy. */
  static shell(line: string, opts: PtyRunOptions): CliPty {
    const env = { ...opts.env, CLIPPY: `${process.execPath} ${bins.clippy}` };
    return new CliPty('/bin/sh', ['-c', line], { ...opts, env });
  }

  get pid(): number {
    return this.proc.pid;
  }

  /** Everything the program wrote, escape sequences included. */
  get output(): string {
    return this.raw;
  }

  /**
   * The output without escape sequences. No escape sequence spans a newline, so the output is
   * stripped up to its last newline once and only the rest again: a wait on a flood of output
   * re-stripped megabytes every poll, and starved the processes it waited on.
   */
  get text(): string {
    const lastLine = this.raw.lastIndexOf('\n') + 1;
    if (lastLine > this.strippedUpTo) {
      this.stripped += stripVTControlCharacters(this.raw.slice(this.strippedUpTo, lastLine));
      this.strippedUpTo = lastLine;
    }
    return this.stripped + stripVTControlCharacters(this.raw.slice(this.strippedUpTo));
  }

  get exitCode(): number | null {
    return this.exitInfo ? this.exitInfo.exitCode : null;
  }

  /** The visible screen as lines (trailing blanks trimmed). */
  screen(): string[] {
    const buf = this.term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < this.term.rows; i++) {
      lines.push(buf.getLine(buf.viewportY + i)?.translateToString(true) ?? '');
    }
    return lines;
  }

  screenText(): string {
    return this.screen().join('\n');
  }

  /** Resolves once every byte read so far is parsed (`cursor` and `screen()` show all of it). */
  parsed(): Promise<void> {
    // xterm parses writes in order: an empty one's callback comes after all before it.
    return new Promise((resolve) => this.term.write('', resolve));
  }

  /**
   * Whether the headless terminal is in the alternate screen, and where its cursor is, as parsed
   * so far: after a wait on the output (not the screen), `await parsed()` first.
   */
  get cursor(): { x: number; y: number; alternate: boolean } {
    const buf = this.term.buffer.active;
    return { x: buf.cursorX, y: buf.cursorY, alternate: buf.type === 'alternate' };
  }

  /** Types bytes as a keyboard would. */
  write(data: string): void {
    this.proc.write(data);
  }

  resize(cols: number, rows: number): void {
    this.proc.resize(cols, rows);
    this.term.resize(cols, rows);
  }

  /** Stops reading the PTY: the program's writes block once the kernel buffer is full. */
  pause(): void {
    this.proc.pause();
  }

  resume(): void {
    this.proc.resume();
  }

  /**
   * Waits until the text (or a match of the regex) appears: on the rendered screen by default,
   * or anywhere in the ANSI-stripped output with `{ in: 'output' }`. Rejects with what was seen.
   */
  async waitFor(
    what: string | RegExp,
    opts: { timeoutMs?: number; in?: 'screen' | 'output'; after?: number } = {},
  ): Promise<void> {
    const deadline = Date.now() + (opts.timeoutMs ?? WAIT_TIMEOUT_MS);
    const where = opts.in ?? 'screen';
    for (;;) {
      const hay =
        where === 'screen'
          ? this.pending === 0
            ? this.screenText()
            : null
          : this.text.slice(opts.after ?? 0);
      if (hay !== null && (typeof what === 'string' ? hay.includes(what) : what.test(hay))) return;
      if (Date.now() > deadline) {
        throw new Error(
          `timed out waiting for ${String(what)} on the ${where}; screen:\n${this.screenText()}\n--- output tail:\n${JSON.stringify(this.raw.slice(-600))}\n--- ${this.readerState()}`,
        );
      }
      await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
    }
  }

  /**
   * Where output stopped, for a wait that timed out: when this end last read any, whether its
   * reader still reads, and what each process on the terminal is doing (a writer blocked in
   * the kernel — `wchan` n_tty_write — means this end stopped reading; a stopped one, `T`).
   */
  private readerState(): string {
    const tty = (this.proc.ptsName ?? '').replace(/^\/dev\//u, '');
    let procs = '';
    try {
      procs = tty
        ? execFileSync('ps', ['-o', 'pid=,stat=,wchan:24=,args=', '-t', tty], {
            encoding: 'utf8',
            timeout: 5_000,
          })
        : '';
    } catch (err) {
      // ps exits 1 when no process is left on the terminal.
      procs = (err as { status?: number }).status === 1 ? 'none' : `(ps: ${String(err)})`;
    }
    return `last output ${Date.now() - this.lastDataAt} ms ago, ${this.bytes} chars in all; ${this.proc.readerState}; processes on ${this.proc.ptsName ?? '?'}:\n${procs}`;
  }

  /** Waits for the program to exit and returns its exit code. */
  async waitExit(timeoutMs = WAIT_TIMEOUT_MS): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `process ${this.pid} did not exit within ${timeoutMs} ms; screen:\n${this.screenText()}`,
            ),
          ),
        timeoutMs,
      );
    });
    try {
      return (await Promise.race([this.exited, timeout])).exitCode;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Kills the program by PID if it still runs, and frees the headless terminal. */
  async dispose(): Promise<void> {
    if (!this.exitInfo) {
      try {
        process.kill(this.proc.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      this.proc.resume();
      await Promise.race([this.exited, new Promise((r) => setTimeout(r, 2_000))]);
    }
    this.proc.dispose();
    this.term.dispose();
  }
}

export interface ClippyRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Default limit for one non-interactive `clippy` command (daemon start included): a deadline
 * only. Node's start alone took 12.5 s of `clippy --help` at a load average of 20 on 2 cores,
 * and 15 s failed the real-agent files (`send --keys Esc`, `route rm`) at 35.
 */
export const RUN_TIMEOUT_MS = 30_000;

/**
 * Runs the built `clippy` without a terminal (pipes), collecting its output and exit code.
 * With `stdin`, that text is piped to it and the pipe closed (as `clippy … < file`); without,
 * its stdin is /dev/null.
 */
export function runClippy(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = RUN_TIMEOUT_MS,
  stdin?: string | Uint8Array,
): Promise<ClippyRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bins.clippy, ...args], {
      env,
      stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (stdin !== undefined) {
      // A child that exits without reading all of its input closes the pipe: not our error.
      child.stdin!.on('error', () => {});
      child.stdin!.end(stdin);
    }
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `clippy ${args.join(' ')} did not finish within ${timeoutMs} ms\n${stdout}\n${stderr}`,
        ),
      );
    }, timeoutMs);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const done = () =>
        resolve({
          code:
            code ?? 128 + (signal ? (os.constants.signals as Record<string, number>)[signal]! : 0),
          stdout,
          stderr,
        });
      // At 'exit' the pipes may still hold output not read yet (a long stdout came cut): wait
      // for them to close, but not for a child the CLI started that keeps them (an opener).
      if (child.stdout!.closed && child.stderr!.closed) return done();
      const grace = setTimeout(done, PIPE_DRAIN_GRACE_MS);
      child.once('close', () => {
        clearTimeout(grace);
        done();
      });
    });
  });
}

/** Longest wait after the CLI exits for its output pipes to be read to their end. */
const PIPE_DRAIN_GRACE_MS = 2_000;
