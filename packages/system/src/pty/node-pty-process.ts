// The only file that imports node-pty (the PTY library is confined to one file). In system,
// not the broker: the test kit's terminal needs the same workarounds and may not import broker.
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants as osConstants } from 'node:os';
import type { Socket } from 'node:net';
import tty from 'node:tty';
import * as nodePty from 'node-pty';
import type { PtyExit, PtyProcess, PtySpawnOptions } from './pty-process.js';
import { signalName } from './signals.js';

/**
 * How often a paused PTY checks whether its child has exited. node-pty closes the PTY 200 ms
 * after the child's exit whether or not its output was read; a paused PTY would lose the output
 * still in the kernel buffer, so it resumes as soon as the child is gone.
 */
const PAUSED_EXIT_PROBE_MS = 20;

/** Longest an exited program's output is read for before the PTY is closed anyway. */
const EXIT_DRAIN_CAP_MS = 5_000;

/**
 * Every PTY's master is read into one buffer of this size (net's `onread`), and a read's bytes
 * are copied out of it at once. node-pty's own reader gave each read a new buffer of this size
 * and took it through a stream and two event emitters: measured beside it, echoing a keystroke
 * through a PTY running `cat`, this way's p50 was 52–68 µs against 63–83 µs. One buffer serves
 * every PTY: reads are handed over one at a time, on this thread, and copied before the next.
 */
const READ_BUFFER_BYTES = 64 * 1024;

let sharedReadBuffer: Buffer | null = null;

/** What reads a PTY's master: each read's bytes, copied, go to `listeners`; `reads` counts. */
class PtyReader {
  /**
   * Replaced, never changed in place, when a listener goes: one that goes while a read is being
   * handed out (disposing in its own call) leaves the others of that read called.
   */
  listeners: readonly ((chunk: Buffer) => void)[] = [];
  reads = 0;
  readonly onread = {
    buffer: (sharedReadBuffer ??= Buffer.allocUnsafe(READ_BUFFER_BYTES)),
    callback: (n: number, buf: Buffer): void => {
      if (n <= 0) return;
      this.reads++;
      // Kept by whoever listens (a batch, the pipeline's copy): never a view of the buffer.
      // One copy, into Buffer's pool for a small read (Buffer.copyBytesFrom copies twice), by
      // the typed array's own `set` (Buffer's `copy` is three JavaScript calls deep: an echo's
      // read runs them before its write, unoptimized for the first thousand keys).
      const chunk = Buffer.allocUnsafe(n);
      chunk.set(new Uint8Array(buf.buffer, buf.byteOffset, n));
      for (const listener of this.listeners) listener(chunk);
    },
  };
}

/**
 * node-pty's spawn, its terminal reading the master with a PtyReader: node-pty makes its reader
 * with `new tty.ReadStream(fd)` within spawn, so for that one synchronous call the constructor
 * it finds is one that adds the `onread` option. The reader is null (the terminal reads as
 * node-pty made it, with `data` events) when the terminal's reader is not the stream made here.
 */
function spawnReading(
  file: string,
  args: string[],
  options: nodePty.IPtyForkOptions,
): { terminal: nodePty.IPty; reader: PtyReader | null } {
  const reader = new PtyReader();
  const ReadStream = tty.ReadStream;
  let made: tty.ReadStream | null = null;
  const ttyExports = tty as { ReadStream: unknown };
  ttyExports.ReadStream = function (fd: number): tty.ReadStream {
    // `onread` is net.Socket's option, which tty.ReadStream passes on (its types omit it).
    made = new ReadStream(fd, { onread: reader.onread } as ConstructorParameters<
      typeof tty.ReadStream
    >[1]);
    return made;
  };
  let terminal: nodePty.IPty;
  try {
    terminal = nodePty.spawn(file, args, options);
  } finally {
    ttyExports.ReadStream = ReadStream;
  }
  const socket = (terminal as unknown as { _socket?: unknown })._socket;
  return { terminal, reader: made !== null && socket === made ? reader : null };
}

/** Whether `pid` still runs (or is not yet reaped). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * node-pty closes its reader 200 ms after the child's exit whether or not the output still in
 * the kernel's buffer was read, and a daemon that reads late (a loaded machine, a flood on
 * another session) lost the exiting program's last lines. Once the child is gone, that close
 * waits until a turn of the event loop reads nothing more: `setImmediate` runs after the loop's
 * poll, so a check that sees no new chunk means the buffer was empty.
 */
function closeOnlyWhenDrained(pty: nodePty.IPty, pid: number, reader: PtyReader | null): void {
  const socket = (pty as unknown as { _socket?: Socket })._socket;
  if (!socket) return;
  let counted = 0;
  if (!reader) socket.on('data', () => counted++);
  const reads = reader ? () => reader.reads : () => counted;
  const destroy = socket.destroy.bind(socket);
  socket.destroy = (err?: Error): Socket => {
    // A read error, or a close asked for while the program runs (dispose): at once.
    if (err !== undefined || alive(pid)) return destroy(err);
    const deadline = Date.now() + EXIT_DRAIN_CAP_MS;
    let seen = reads();
    const check = (): void => {
      if (socket.destroyed) return;
      if (reads() === seen || Date.now() > deadline) {
        destroy();
        return;
      }
      seen = reads();
      setImmediate(check);
    };
    setImmediate(check);
    return socket;
  };
}

class NodePtyProcess implements PtyProcess {
  readonly pid: number;
  private readonly pty: nodePty.IPty;
  private readonly subscriptions: nodePty.IDisposable[] = [];
  private disposed = false;
  private exited = false;
  private slaveFd: number | null = null;
  private exitProbe: NodeJS.Timeout | null = null;
  /** The child was seen gone while paused: never pause again (its last output must drain). */
  private childGone = false;
  /** Waits for queued input to be taken (whenWritten), each with its bound. */
  private drainWaiters: { below: number; resolve: () => void }[] = [];

  /** Reads the master (null: node-pty's own reader does, with its `data` events). */
  private readonly reader: PtyReader | null;

  constructor({ terminal, reader }: { terminal: nodePty.IPty; reader: PtyReader | null }) {
    this.pty = terminal;
    this.reader = reader;
    this.pid = this.pty.pid;
    closeOnlyWhenDrained(this.pty, this.pid, reader);
    this.followWriteQueue();
    // Hold the slave side open: when the child exits and the last slave fd closes, Linux may
    // drop output still queued for the master (measured: up to ~15 KB of a fast writer's last
    // output). With our fd open the master drains normally; it is closed on exit.
    try {
      const pts = (this.pty as unknown as { ptsName?: string }).ptsName;
      if (pts) this.slaveFd = openSync(pts, constants.O_RDWR | constants.O_NOCTTY);
    } catch {
      this.slaveFd = null;
    }
  }

  private closeSlave(): void {
    if (this.slaveFd === null) return;
    try {
      closeSync(this.slaveFd);
    } catch {
      // Already closed.
    }
    this.slaveFd = null;
  }

  get ptsName(): string | undefined {
    return (this.pty as unknown as { ptsName?: string }).ptsName;
  }

  get readerState(): string {
    const socket = (
      this.pty as unknown as { _socket?: { destroyed: boolean; readableFlowing: boolean | null } }
    )._socket;
    const kind = this.reader ? `onread, ${this.reader.reads} reads` : 'data events';
    return socket
      ? `reader (${kind}) destroyed=${socket.destroyed} flowing=${String(socket.readableFlowing)}`
      : 'reader unknown';
  }

  get pendingWriteBytes(): number {
    return this.queuedWriteBytes() ?? 0;
  }

  whenWritten(below: number): Promise<void> {
    if (this.disposed || this.pendingWriteBytes <= below) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push({ below, resolve }));
  }

  /**
   * node-pty writes its queue (input the kernel refused at first) from its own callbacks and
   * says nothing when it is done: each step of it is followed here, so waits for the queue to
   * shrink are woken by it.
   */
  private followWriteQueue(): void {
    const stream = (this.pty as unknown as { _writeStream?: { _processWriteQueue?: () => void } })
      ._writeStream;
    const step = stream?._processWriteQueue;
    if (!stream || typeof step !== 'function') return;
    stream._processWriteQueue = () => {
      step.call(stream);
      this.wakeDrainWaiters();
    };
  }

  private wakeDrainWaiters(all = false): void {
    if (this.drainWaiters.length === 0) return;
    const pending = all ? 0 : this.pendingWriteBytes;
    const waiting = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiting) {
      if (pending <= w.below) w.resolve();
      else this.drainWaiters.push(w);
    }
  }

  /** node-pty's write queue; null when it cannot be seen (another version). */
  private writeQueue(): { buffer: Buffer; offset: number }[] | null {
    // node-pty queues writes the kernel refused (EAGAIN) in its write stream; not in its typings.
    const queue = (
      this.pty as unknown as {
        _writeStream?: { _writeQueue?: { buffer: Buffer; offset: number }[] };
      }
    )._writeStream?._writeQueue;
    return Array.isArray(queue) ? queue : null;
  }

  /** Bytes in node-pty's write queue; null when its queue cannot be seen (another version). */
  private queuedWriteBytes(): number | null {
    const queue = this.writeQueue();
    if (!queue) return null;
    let n = 0;
    for (const task of queue) n += task.buffer.length - task.offset;
    return n;
  }

  onData(listener: (chunk: Buffer) => void): void {
    const reader = this.reader;
    if (reader) {
      reader.listeners = [...reader.listeners, listener];
      this.subscriptions.push({
        dispose: () => {
          reader.listeners = reader.listeners.filter((l) => l !== listener);
        },
      });
      return;
    }
    // With `encoding: null` node-pty emits Buffers although its typings say string.
    this.subscriptions.push(this.pty.onData((data) => listener(data as unknown as Buffer)));
  }

  onExit(listener: (exit: PtyExit) => void): void {
    this.subscriptions.push(
      this.pty.onExit(({ exitCode, signal }) => {
        this.exited = true;
        this.closeSlave();
        listener(
          signal ? { exitCode: null, signal: signalName(signal) } : { exitCode, signal: null },
        );
      }),
    );
  }

  write(data: Uint8Array | string): void {
    if (this.disposed) return;
    let bytes: Uint8Array = typeof data === 'string' ? Buffer.from(data) : data;
    // Written here and now when nothing waits before it: node-pty writes through the libuv
    // thread pool, a thread hand-off each way that made up most of a keystroke's tail latency
    // (measured: p99 2.5 ms from input to echo inside the daemon). The master is non-blocking,
    // so a full PTY answers EAGAIN and the rest goes to node-pty's queue, which retries. Only
    // when that queue is known to be empty: nothing may overtake bytes already queued.
    // (Every keystroke asks: the queue's length tells, without summing it.)
    const fd = (this.pty as unknown as { fd?: number }).fd;
    if (typeof fd === 'number' && this.writeQueue()?.length === 0) {
      try {
        const n = writeSync(fd, bytes);
        if (n === bytes.length) return;
        bytes = bytes.subarray(n);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return; // the PTY is gone
      }
    }
    // node-pty queues a copy (Buffer.from), so a caller may pass a view of a buffer it reuses.
    this.pty.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }

  resize(cols: number, rows: number): void {
    if (this.disposed) return;
    try {
      this.pty.resize(cols, rows);
    } catch {
      // The PTY closed under us (child exited): nothing left to resize.
    }
  }

  pause(): void {
    if (this.disposed || this.exitProbe || this.childGone) return;
    this.pty.pause();
    this.exitProbe = setInterval(() => {
      try {
        process.kill(this.pid, 0);
      } catch {
        this.childGone = true;
        this.resume();
      }
    }, PAUSED_EXIT_PROBE_MS);
    this.exitProbe.unref();
  }

  resume(): void {
    if (this.exitProbe) clearInterval(this.exitProbe);
    this.exitProbe = null;
    if (!this.disposed) this.pty.resume();
  }

  killGroup(signal: NodeJS.Signals): boolean {
    // The child is a session leader (setsid: node-pty's fork, or the spawner's `setsid -c`), so
    // its pid is its process group id.
    try {
      process.kill(-this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  dispose(): void {
    if (this.disposed) return;
    if (this.exitProbe) clearInterval(this.exitProbe);
    this.exitProbe = null;
    this.disposed = true;
    this.wakeDrainWaiters(true);
    this.closeSlave();
    for (const s of this.subscriptions) s.dispose();
    this.subscriptions.length = 0;
    // After exit node-pty has closed the fd itself; destroying then would SIGHUP a pid that
    // may already belong to another process.
    if (this.exited) return;
    try {
      this.pty.resume();
      (this.pty as unknown as { destroy?: () => void }).destroy?.();
    } catch {
      // Already closed.
    }
  }
}

/** node-pty's options for `options`: raw bytes out (encoding null), so output reaches clients
 * byte-for-byte (no UTF-8 split damage). */
function ptyOptions(options: PtySpawnOptions): nodePty.IPtyForkOptions {
  return {
    name: options.env.TERM ?? 'xterm-256color',
    cols: options.cols,
    rows: options.rows,
    cwd: options.cwd,
    env: options.env,
    encoding: null,
  };
}

/** Starts `options.file` on a new PTY, forked from this process. Throws when the fork fails. */
export function spawnPty(options: PtySpawnOptions): PtyProcess {
  return new NodePtyProcess(spawnReading(options.file, options.args, ptyOptions(options)));
}

/** The environment node-pty gives a program it starts: `TERM` named, `PWD` the directory. */
export function ptyEnvironment(options: PtySpawnOptions): Record<string, string> {
  return { ...options.env, TERM: options.env.TERM ?? 'xterm-256color', PWD: options.cwd };
}

/** node-pty's native module: what its terminal calls to fork, open and resize. */
interface PtyNative {
  fork: (...args: unknown[]) => { fd: number; pid: number; pty: string };
  open: (cols: number, rows: number) => { master: number; slave: number; pty: string };
}

let nativeModule: PtyNative | null | undefined;

/**
 * node-pty's native module, once it is known to be the very object its terminal forks through
 * (a trial terminal's fork is caught); null when it is not (another layout or version).
 */
function ptyNative(): PtyNative | null {
  if (nativeModule !== undefined) return nativeModule;
  nativeModule = null;
  try {
    const require = createRequire(import.meta.url);
    const utils = require('node-pty/lib/utils') as {
      loadNativeModule: (name: string) => { module: PtyNative };
    };
    const native = utils.loadNativeModule('pty').module;
    const fork = native.fork;
    const probe = new Error('probe');
    native.fork = () => {
      throw probe;
    };
    try {
      nodePty.spawn('/bin/true', [], { cols: 1, rows: 1 });
    } catch (err) {
      if (err === probe && typeof native.open === 'function') nativeModule = native;
    } finally {
      native.fork = fork;
    }
  } catch {
    // Not the node-pty this was written against: its own fork stays the only way.
  }
  return nativeModule;
}

/** A new PTY pair with nothing on it yet: the program is started on `ptsName` elsewhere. */
export interface OpenedPty {
  readonly ptsName: string;
  /**
   * Takes the program started on the slave side: the PTY as a session holds it, and the call
   * that reports how the program ended (an exit status, a signal, or neither when unknown).
   */
  adopt(pid: number): { pty: PtyProcess; exited: (exit: PtyExit) => void };
  /** Closes both sides (nothing was started, or the start failed). */
  close(): void;
}

/**
 * Opens a PTY pair without starting a program (no fork of this process), or returns null when
 * node-pty's native module cannot be used so. The terminal that adopts it is node-pty's own, its
 * fork answered with the given program: reads, writes, resizes and its end stay node-pty's.
 */
export function openPty(options: PtySpawnOptions): OpenedPty | null {
  const native = ptyNative();
  if (!native) return null;
  const { master, slave, pty: ptsName } = native.open(options.cols, options.rows);
  let open = true;
  const closeFd = (fd: number): void => {
    try {
      closeSync(fd);
    } catch {
      // Closed already.
    }
  };
  return {
    ptsName,
    adopt(pid) {
      if (!open) throw new Error('the PTY was closed');
      let onExit: ((code: number | null, signal: number) => void) | null = null;
      const fork = native.fork;
      native.fork = (...args: unknown[]) => {
        onExit = args[10] as (code: number | null, signal: number) => void;
        return { fd: master, pid, pty: ptsName };
      };
      let spawned: ReturnType<typeof spawnReading>;
      try {
        spawned = spawnReading(options.file, options.args, ptyOptions(options));
      } finally {
        native.fork = fork;
      }
      const pty = new NodePtyProcess(spawned);
      // The terminal holds the slave open by a descriptor of its own (with close-on-exec).
      closeFd(slave);
      open = false;
      return {
        pty,
        exited: ({ exitCode, signal }) =>
          onExit?.(exitCode, signal ? (osConstants.signals[signal as NodeJS.Signals] ?? 0) : 0),
      };
    },
    close() {
      if (!open) return;
      open = false;
      closeFd(slave);
      closeFd(master);
    },
  };
}
