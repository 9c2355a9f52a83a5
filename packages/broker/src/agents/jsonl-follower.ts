import { open } from 'node:fs/promises';

/** Bytes read from the file per step: a turn's new lines usually fit in one. */
const READ_CHUNK_BYTES = 256 * 1024;
/**
 * Longest line kept: an agent's record of a 12 MiB answer with its JSON escaping; a longer line
 * is skipped whole (it cannot be one of the turn records clippy reads).
 */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Reads a JSONL file the agent appends to (a transcript, a rollout, a chat file) from where the
 * previous read stopped: each turn costs the new lines only, never a re-read of a long session,
 * and the reads are asynchronous (the daemon forwards output meanwhile). A line not yet ended
 * by its newline waits for the next read; lines that are not JSON are skipped.
 */
export class JsonlFollower {
  private offset = 0;
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private skipping = false;

  constructor(readonly path: string) {}

  /** The records appended since the previous call (none when the file does not exist yet). */
  async readNew(): Promise<unknown[]> {
    let fh;
    try {
      fh = await open(this.path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: unknown[] = [];
    try {
      const { size } = await fh.stat();
      // Rewritten shorter (a rewind, a compaction): start again from its beginning.
      if (size < this.offset) this.restart();
      const buf = Buffer.allocUnsafe(READ_CHUNK_BYTES);
      while (this.offset < size) {
        const { bytesRead } = await fh.read(buf, 0, buf.length, this.offset);
        if (bytesRead === 0) break;
        this.offset += bytesRead;
        this.take(buf.subarray(0, bytesRead), out);
      }
    } finally {
      await fh.close();
    }
    return out;
  }

  /** The next read starts again from the file's beginning (its records are all read anew). */
  private restart(): void {
    this.offset = 0;
    this.partial = [];
    this.partialBytes = 0;
    this.skipping = false;
  }

  private take(chunk: Buffer, out: unknown[]): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      const line = this.partialBytes > 0 ? Buffer.concat([...this.partial, piece]) : piece;
      this.partial = [];
      this.partialBytes = 0;
      const record = parseLine(line);
      if (record !== undefined) out.push(record);
    }
    if (start < chunk.length && !this.skipping) {
      const rest = chunk.subarray(start);
      if (this.partialBytes + rest.length > MAX_LINE_BYTES) {
        this.partial = [];
        this.partialBytes = 0;
        this.skipping = true;
      } else {
        // A copy: the read buffer is reused for the next chunk.
        this.partial.push(Buffer.from(rest));
        this.partialBytes += rest.length;
      }
    }
  }
}

function parseLine(line: Buffer): unknown {
  const text = line.toString('utf8').trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
