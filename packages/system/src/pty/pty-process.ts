/** How a PTY child ended: an exit status, or the name of the signal that killed it. */
export interface PtyExit {
  exitCode: number | null;
  signal: string | null;
}

export interface PtySpawnOptions {
  /** Absolute path of the program (already resolved by the caller). */
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
}

/**
 * The one view of a PTY child the daemon and the test kit have; node-pty stays behind it (see
 * node-pty-process.ts), so the session code never imports the PTY library.
 */
export interface PtyProcess {
  readonly pid: number;
  /** Path of the PTY's slave side (e.g. /dev/pts/3): the line discipline can be read from it. */
  readonly ptsName: string | undefined;
  /** Input bytes accepted by `write` and not yet taken by the kernel (input backpressure). */
  readonly pendingWriteBytes: number;
  /**
   * Resolves once at most `below` input bytes wait to be taken by the kernel (at once if that is
   * so already, and when the PTY is disposed): an event, not a poll.
   */
  whenWritten(below: number): Promise<void>;
  /** Raw output bytes, in order; no callback after `onExit`'s. */
  onData(listener: (chunk: Buffer) => void): void;
  /** Called once, after all output was delivered. */
  onExit(listener: (exit: PtyExit) => void): void;
  write(data: Uint8Array | string): void;
  resize(cols: number, rows: number): void;
  /** Stop reading from the PTY: the child blocks once the kernel buffer is full. */
  pause(): void;
  resume(): void;
  /** Whether node-pty's reader of the PTY still reads: what a wait that timed out reports. */
  readonly readerState: string;
  /** Signals the child's whole process group. Returns false when it is already gone. */
  killGroup(signal: NodeJS.Signals): boolean;
  /** Releases the PTY file descriptor and listeners. */
  dispose(): void;
}
