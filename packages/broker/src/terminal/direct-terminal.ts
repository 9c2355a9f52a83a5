import fs from 'node:fs';
import tty from 'node:tty';
import {
  CLEAR_SCREEN,
  FOCUS_REPORTS_ON,
  InputFilter,
  ModeTracker,
  blindRestoreBytes,
  cursorAfterReplay,
  noticeLineBytes,
  terminalRestoreBytes,
} from '@clippy/protocol';
import { TERMINAL_GIVE_BACK_MS, TERMINAL_MODES_WAIT_MS } from '../constants.js';
import type { FlowSink, FrameSink, OutputBatch } from '../flow-control.js';

/**
 * The terminal is read into one buffer of this size, handed to a callback as it fills (net's
 * `onread`): a keystroke then costs no stream queue and no event, only the copy that goes on.
 * Large enough for any paste a terminal delivers in one read.
 */
const INPUT_BUFFER_BYTES = 64 * 1024;

/**
 * The terminal modes the session's output turned on, as its output pipeline follows them (the
 * one parse of the output, in the pipeline worker): what a terminal given back must have turned
 * off, and whether the program wants focus reports itself.
 */
export interface SessionModes {
  isOn(mode: number): boolean;
  /** The modes on after every byte of output sent so far; null when they cannot be known. */
  settled(): Promise<ReadonlySet<number> | null>;
  /** Calls `listener` when the output turned focus reports off; returns the unsubscribe. */
  onFocusReportsOff(listener: () => void): () => void;
}

export interface DirectTerminalOptions {
  /** The terminal, opened and checked (openClientTerminal); owned (closed) from now on. */
  fd: number;
  /** The attach client's connection: pushes that end the attachment still go there. */
  connection: FrameSink;
  /** Every byte string the terminal may send for the detach key. */
  detachKey: readonly Uint8Array[];
  /** The modes the session's output turned on (its pipeline follows them). */
  modes: SessionModes;
  /** Observers' keystrokes (but the detach key) go nowhere. */
  interactive: boolean;
  /** The client's terminal size (for notices and the restore's move below the screen). */
  size(): { cols: number; rows: number };
  /** Keystrokes for the session. */
  input(data: Buffer): void;
  /** The terminal reported focus in (true) or out (false). */
  focus(focused: boolean): void;
  /** The user typed the detach key (reading has stopped). */
  detachKeyTyped(): void;
  /** The terminal failed (closed under us: EIO): the attachment must end. */
  failed(err: Error): void;
  /** How long a give-back waits for the terminal to take what was written (tests shorten it). */
  giveBackMs?: number;
  /** Longest wait for the session's modes before the blind restore (TERMINAL_MODES_WAIT_MS). */
  modesWaitMs?: number;
}

/**
 * Direct attach: the daemon reads and writes an attach client's terminal itself, as tmux's
 * server does, so a keystroke and its echo wake no process but the daemon. The output sink of
 * that client's attachment (flow-control.ts): output is written as it comes, and the write
 * callbacks play the client's acks, so a terminal that stops reading holds the PTY, is demoted
 * and is finally detached like any slow client. The writes never block: the terminal is a libuv
 * TTY handle, which reopens the pseudo-terminal non-blocking for this process alone (Node's
 * tty.WriteStream would make it blocking). Input goes through the same InputFilter as in the
 * attach client: focus reports taken out, the detach key seen here. The session's pipeline
 * follows the modes its output turns on, so the terminal can be given back with them turned off.
 * Errors of the terminal (EIO when it closed) end this attachment only.
 */
export class DirectTerminal implements FlowSink {
  readonly terminal = true;
  private readonly stream: tty.ReadStream;
  /** libuv's non-blocking descriptor of the terminal (written directly when nothing is queued). */
  private readonly fd: number;
  private readonly filter: InputFilter;
  private readonly offFocusWatch: () => void;
  private reading = false;
  /** Given back or disposed: nothing more is read or written. */
  private done = false;
  private releasing: Promise<void> | null = null;
  /** Byte counts of the output writes in flight, oldest first (their callbacks come in order). */
  private readonly inFlight: number[] = [];
  /** The attachment's ack, for bytes the terminal took (see sendOutput). */
  private consumed: ((bytes: number) => void) | null = null;
  private readonly onWritten = () => {
    const bytes = this.inFlight.shift();
    if (bytes !== undefined) this.consumed?.(bytes);
  };
  private readonly onRead = (n: number, buf: Buffer) => {
    // A view of the read buffer, valid during this call: whoever keeps input (a full PTY's
    // queue, turn detection) copies it, after the keystroke was written (measured, keys typed
    // 50 ms apart: a copy here took 27 µs on cold caches, before the keystroke's write).
    if (this.reading && n > 0) this.filter.feed(buf.subarray(0, n));
  };
  private readonly onError = (err: Error) => this.fail(err);
  private readonly onClose = () => this.fail(new Error('the terminal closed'));

  constructor(private readonly opts: DirectTerminalOptions) {
    const onread = { buffer: Buffer.alloc(INPUT_BUFFER_BYTES), callback: this.onRead };
    // `onread` is net.Socket's option, which tty.ReadStream passes on (its types omit it).
    this.stream = new tty.ReadStream(opts.fd, { onread } as ConstructorParameters<
      typeof tty.ReadStream
    >[1]);
    // libuv opens the device again for itself (non-blocking for this process alone) and leaves
    // the descriptor it was given to us. Had it not (it then writes blocking), the daemon could
    // hang on a stopped terminal: refuse.
    const handleFd = (this.stream as unknown as { _handle?: { fd?: number } })._handle?.fd;
    if (handleFd === undefined || handleFd === opts.fd) {
      this.stream.destroy();
      throw new Error('libuv could not reopen the terminal for non-blocking writes');
    }
    this.fd = handleFd;
    fs.closeSync(opts.fd);
    this.stream.on('error', this.onError);
    this.stream.on('close', this.onClose);
    this.filter = new InputFilter(
      opts.detachKey,
      {
        input: (data) => opts.input(data),
        detach: () => {
          this.stopReading();
          opts.detachKeyTyped();
        },
        focus: (focused) => opts.focus(focused),
        programWantsFocus: () => opts.modes.isOn(FOCUS_REPORTS),
      },
      opts.interactive,
    );
    // The attach turns focus reports on, so the daemon knows which session the user looks at;
    // a program that turns them off is overruled (once the pipeline saw the output that did it).
    this.offFocusWatch = opts.modes.onFocusReportsOff(() => {
      if (!this.done) this.stream.write(FOCUS_REPORTS_ON);
    });
  }

  /**
   * Paints the session's screen as its replay has it, on a cleared terminal, turns focus
   * reports on, and starts reading the user's keys. Live output follows with sendOutput().
   */
  start(replay: Buffer): void {
    if (this.done) return;
    this.stream.cork();
    this.stream.write(CLEAR_SCREEN);
    this.stream.write(replay);
    this.stream.write(cursorAfterReplay(replay) + FOCUS_REPORTS_ON);
    this.stream.uncork();
    this.reading = true;
    this.stream.resume();
  }

  sendOutput(batch: OutputBatch, consumed: (bytes: number) => void): void {
    // Given back (the daemon is stopping, exit pushes still come): nobody reads this any more.
    if (this.done) return consumed(batch.bytes);
    const { chunks, bytes } = batch;
    this.consumed = consumed;
    const written = this.writeNow(chunks);
    if (written > 0) consumed(written);
    if (written === bytes) return;
    // The rest waits in the stream for the terminal to take more: one writev, and the last
    // write's callback means the terminal took all of it.
    const rest = written > 0 ? after(chunks, written) : chunks;
    this.inFlight.push(bytes - written);
    this.stream.cork();
    for (let i = 0; i < rest.length; i++) {
      if (i < rest.length - 1) this.stream.write(rest[i]!);
      else this.stream.write(rest[i]!, this.onWritten);
    }
    this.stream.uncork();
  }

  /**
   * Writes `chunks` here and now, in one system call, when nothing waits before them, and
   * returns how much the terminal took (0: none, it all goes through the stream). The stream's
   * write requests and the callback turns after them cost more than the write itself (measured
   * inside the daemon, an echo from the output batch to the write's return: p50 23.3 → 17.5 µs,
   * mean 30.8 → 22.0 µs; a flood's batch of several reads: the stream's writev path was a third
   * of the main thread's JavaScript). The descriptor is libuv's own, non-blocking: a full
   * terminal takes part or answers EAGAIN, and the rest is queued in the stream, which had
   * nothing queued before it.
   */
  private writeNow(chunks: readonly Buffer[]): number {
    if (this.stream.writableLength > 0) return 0;
    try {
      return chunks.length === 1
        ? fs.writeSync(this.fd, chunks[0]!)
        : fs.writevSync(this.fd, chunks);
    } catch {
      // EAGAIN (full) or an error the stream's own write will report (EIO: the terminal closed).
      return 0;
    }
  }

  /** The session exited: its last output is on the terminal, given back, before `exit` is sent. */
  sendExit(frame: Buffer): void {
    // Its last output is all the user keeps of it: waited for while the terminal takes it.
    void this.giveBack({ moveBelow: false, whileTaking: true }).then(() =>
      this.opts.connection.send(frame),
    );
  }

  /** Written into the terminal, after the output before it (never inside an escape sequence). */
  sendNotice(text: string): void {
    if (this.done) return;
    const { cols, rows } = this.opts.size();
    this.stream.write(noticeLineBytes(text, cols, rows));
  }

  get bufferedAmount(): number {
    return this.done ? 0 : this.stream.writableLength;
  }

  release(farewell: Buffer | null): Promise<void> {
    return this.giveBack({ moveBelow: true }).then(() => {
      if (farewell) this.opts.connection.send(farewell);
    });
  }

  /** The client is gone: the terminal is closed, nothing more written to it. */
  dispose(): void {
    this.close();
  }

  /**
   * Stops reading, turns off the modes the session's output left on (and with `moveBelow` puts
   * the cursor on a fresh line below the session's screen), waits for the terminal to take all
   * of it (at most the give-back bound; with `whileTaking`, as long as it takes some in each
   * such bound), then closes it. Once.
   */
  private giveBack(opts: { moveBelow: boolean; whileTaking?: boolean }): Promise<void> {
    this.releasing ??= new Promise<void>((resolve) => {
      this.stopReading();
      if (this.done) {
        resolve();
        return;
      }
      const finish = () => {
        clearTimeout(timer);
        this.close();
        resolve();
      };
      // One bound for it all: the modes as of the last output, then the terminal's writes. At
      // the session's exit it is a bound on a stall: a terminal read slowly (a loaded machine,
      // a slow link) gets every byte of the last output; one that stopped is let go.
      const bound = this.opts.giveBackMs ?? TERMINAL_GIVE_BACK_MS;
      let before = this.unwritten();
      const expired = () => {
        const now = this.unwritten();
        const took = now.queued < before.queued || now.writing !== before.writing;
        if (opts.whileTaking && !this.done && now.queued > 0 && took) {
          before = now;
          timer = setTimeout(expired, bound);
          return;
        }
        finish();
      };
      let timer = setTimeout(expired, bound);
      // The session's output is already on its way to the terminal; only the restore waits for
      // the modes, and not for long (a held-up worker must not cost the terminal its restore).
      let restored = false;
      const restore = (modes: ReadonlySet<number> | null) => {
        clearTimeout(modesTimer);
        if (restored || this.done) return;
        restored = true;
        const size = { rows: this.opts.size().rows, moveBelow: opts.moveBelow };
        // Modes not known (the pipeline is gone or late): everything a session may turn on, off.
        const bytes = modes
          ? terminalRestoreBytes(trackerOf(modes), size)
          : blindRestoreBytes(size);
        // The callback runs once this and everything before it was written (or on an error).
        this.stream.write(bytes, finish);
      };
      const modesTimer = setTimeout(
        () => restore(null),
        this.opts.modesWaitMs ?? TERMINAL_MODES_WAIT_MS,
      );
      void this.opts.modes.settled().then(restore);
    });
    return this.releasing;
  }

  /**
   * What the terminal has still to take: the stream's queue (its batches, held whole until each
   * write is done) and what of libuv's writes in progress is left, which shrinks as the terminal
   * takes bytes (one writev of many batches included). The latter is libuv's own count, read
   * live through the handle (as its descriptor is read above).
   */
  private unwritten(): { queued: number; writing: number } {
    const handle = (this.stream as unknown as { _handle?: { writeQueueSize?: number } })._handle;
    return { queued: this.stream.writableLength, writing: handle?.writeQueueSize ?? 0 };
  }

  private stopReading(): void {
    if (!this.reading) return;
    this.reading = false;
    // With `onread`, pausing stops the reads themselves: what is typed now stays in the
    // terminal, for whatever reads it next.
    this.stream.pause();
  }

  private fail(err: Error): void {
    if (this.done) return;
    this.close();
    this.opts.failed(err);
  }

  private close(): void {
    if (this.done) return;
    this.done = true;
    this.offFocusWatch();
    this.stopReading();
    this.stream.off('close', this.onClose);
    // Errors after this (a write that was pending) concern nobody: keep a listener for them.
    this.stream.off('error', this.onError);
    this.stream.on('error', () => {});
    this.stream.destroy();
  }
}

/** What is left of `chunks` after their first `skip` bytes. */
function after(chunks: readonly Buffer[], skip: number): Buffer[] {
  const rest: Buffer[] = [];
  for (const chunk of chunks) {
    if (skip >= chunk.length) {
      skip -= chunk.length;
      continue;
    }
    rest.push(skip > 0 ? chunk.subarray(skip) : chunk);
    skip = 0;
  }
  return rest;
}

/** The private mode of focus reports (`CSI ? 1004 h`). */
const FOCUS_REPORTS = 1004;

/** A mode tracker with `modes` on: what protocol's restore sequence is built from. */
function trackerOf(modes: ReadonlySet<number>): ModeTracker {
  const tracker = new ModeTracker();
  tracker.feed(Buffer.from([...modes].map((m) => `\x1b[?${m}h`).join('')));
  return tracker;
}
