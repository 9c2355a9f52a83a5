/** Shared pieces of the PTY benchmarks (not a benchmark itself: run.ts skips `_` files). */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onInterrupt } from './_interrupt.js';

/** Watches a byte stream for a marker that may be split across chunks. */
export class MarkerWatcher {
  private tail = Buffer.alloc(0);
  bytes = 0;
  constructor(private readonly marker: Buffer) {}

  /** Feeds a chunk; true once the marker has been seen. */
  feed(chunk: Uint8Array): boolean {
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.bytes += buf.length;
    // Only the seam with the previous chunk is copied: the harness must not add a copy of
    // every byte to the process it measures.
    const k = this.marker.length - 1;
    if (this.tail.length > 0) {
      const seam = Buffer.concat([this.tail, buf.subarray(0, k)]);
      if (seam.indexOf(this.marker) >= 0) return true;
    }
    if (buf.indexOf(this.marker) >= 0) return true;
    const keep = Math.min(k, buf.length);
    this.tail =
      keep === buf.length
        ? Buffer.concat([this.tail, buf]).subarray(-k)
        : Buffer.from(buf.subarray(buf.length - keep));
    return false;
  }
}

/** A temp dir removed by the returned function, or when the run is interrupted. */
export function tempDir(prefix = 'clippy-bench-'): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  const forget = onInterrupt(remove);
  return {
    dir,
    remove: () => {
      forget();
      remove();
    },
  };
}

/** Writes a text file of about `bytes` bytes made of varied printable lines. */
export function writeTextFile(file: string, bytes: number): void {
  const fd = fs.openSync(file, 'w');
  const lines: string[] = [];
  for (let i = 0; i < 2000; i++) {
    lines.push(
      `${String(i).padStart(6, '0')} the quick brown fox jumps over the lazy dog ${'abcdefghij'.repeat(i % 7)}\n`,
    );
  }
  const block = Buffer.from(lines.join(''));
  let written = 0;
  while (written < bytes) {
    const n = Math.min(block.length, bytes - written);
    fs.writeSync(fd, block, 0, n);
    written += n;
  }
  fs.writeSync(fd, '\n');
  fs.closeSync(fd);
}

export const mb = (bytes: number) => bytes / 1024 / 1024;

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function isMain(metaUrl: string): boolean {
  return metaUrl === `file://${process.argv[1]}`;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export function processCpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 (utime, stime) in clock ticks; after the comm they are at 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The machine's load averages (1, 5, 15 min), printed beside figures taken on a shared box. */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

/** The median of `xs` (the mean of the two middle ones for an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/**
 * Runs a program to its end: its wall time (spawn to exit) in ms. Fails on a non-zero exit (its
 * stderr in the message), and kills it after `timeoutMs`.
 */
export function timed(
  argv: string[],
  env: NodeJS.ProcessEnv,
  opts: { cwd?: string; timeoutMs: number },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: opts.cwd,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      if (code === 0) resolve(ms);
      else reject(new Error(`${argv.join(' ')} exited ${code}: ${err.trim()}`));
    });
  });
}
