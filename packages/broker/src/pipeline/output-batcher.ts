import { OUTPUT_BATCH_MAX_BYTES, OUTPUT_BATCH_MS, OUTPUT_BULK_CHUNK_BYTES } from '../constants.js';

/**
 * Gathers a session's output for its clients. A small chunk (an echo, a prompt, a short redraw)
 * goes out at once, with whatever waits before it; large chunks (a PTY read that filled the
 * kernel's buffer: a flood is going on) wait up to OUTPUT_BATCH_MS for more, so a flood reaches
 * the socket as a few large frames instead of one frame and one wake-up of each client per 4 KB.
 */
export class OutputBatcher {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private disposed = false;

  /** `emit` gets the chunks (to be sent as one frame, in order) and their total size. */
  constructor(private readonly emit: (chunks: Buffer[], bytes: number) => void) {}

  get pendingBytes(): number {
    return this.bytes;
  }

  push(chunk: Buffer): void {
    if (this.disposed) return;
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    if (chunk.length < OUTPUT_BULK_CHUNK_BYTES || this.bytes >= OUTPUT_BATCH_MAX_BYTES) {
      this.flush();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.flush();
      }, OUTPUT_BATCH_MS);
    }
  }

  /** Sends what waits now (before an exit push, before a new client attaches). */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.bytes === 0) return;
    const { chunks, bytes } = this;
    this.chunks = [];
    this.bytes = 0;
    this.emit(chunks, bytes);
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.chunks = [];
    this.bytes = 0;
  }
}
