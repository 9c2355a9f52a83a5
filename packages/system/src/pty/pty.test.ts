import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnPty } from './node-pty-process.js';
import { parseSignal, signalName } from './signals.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** `sh -c script` on a new 80×24 PTY, with a bare environment (and `env` added). */
function shell(script: string, env: Record<string, string> = {}) {
  return spawnPty({
    file: '/bin/sh',
    args: ['-c', script],
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm', ...env },
    cols: 80,
    rows: 24,
  });
}

describe('signals', () => {
  it('maps numbers to names and parses names in any spelling', () => {
    expect(signalName(9)).toBe('SIGKILL');
    expect(signalName(1)).toBe('SIGHUP');
    expect(parseSignal('term')).toBe('SIGTERM');
    expect(parseSignal('SIGINT')).toBe('SIGINT');
    expect(parseSignal('9')).toBe('SIGKILL');
    expect(parseSignal('SIGFOO')).toBeNull();
  });
});

describe('PTY writes', () => {
  it('delivers a write far larger than the PTY buffer, in order, as written, and a keystroke after it', async () => {
    // Nothing reads the PTY until both writes are in: the shell goes raw, says READY, then
    // blocks on a FIFO that the test opens only afterwards. The kernel takes what fits in its
    // buffers (tens of KB) and the rest must queue, however fast or slow the machine is.
    const dir = mkdtempSync(join(tmpdir(), 'clippy-'));
    dirs.push(dir);
    const gate = join(dir, 'gate');
    execFileSync('mkfifo', [gate]);
    // Raw mode: no line limit; the reader takes exactly 300,001 bytes (or never ends), then
    // shows the last two.
    const script =
      'stty raw -echo; echo READY; read go < "$GATE"; head -c 300001 | tail -c 2; echo; echo END';
    const pty = shell(script, { GATE: gate });
    try {
      let out = '';
      let ready!: () => void;
      const isReady = new Promise<void>((r) => (ready = r));
      const done = new Promise<void>((resolve) =>
        pty.onData((d) => {
          out += d.toString('latin1');
          if (out.includes('READY')) ready();
          if (out.includes('END')) resolve();
        }),
      );
      await isReady;
      // Most of it does not fit: the rest queues behind what the kernel took at once.
      const big = Buffer.alloc(300_000, 'a');
      pty.write(big);
      expect(pty.pendingWriteBytes).toBeGreaterThan(0);
      // The caller reuses its buffer (the daemon's terminal reads do): the queue kept a copy.
      big.fill('b');
      // Written while the big one is still queued: it must come last, not jump the queue.
      pty.write('z');
      // Open the gate: the reader starts and drains the PTY.
      await writeFile(gate, 'go\n');
      await done;
      expect(out).toContain('az\nEND');
    } finally {
      pty.dispose();
    }
  });
});

describe('PTY exit', () => {
  it("reads an exiting program's last output whole, however late the reader", async () => {
    // A daemon busy elsewhere reads late: each chunk here holds the event loop 40 ms (a sleep,
    // not a spin). The program exits while much of its output still sits in the kernel's
    // buffer; node-pty closes the PTY 200 ms after an exit, read or not, unless told to wait.
    const pty = shell('seq 1 5000; echo LAST-LINE');
    const slow = new Int32Array(new SharedArrayBuffer(4));
    try {
      let out = '';
      pty.onData((d) => {
        out += d.toString('latin1');
        Atomics.wait(slow, 0, 0, 150);
      });
      const exit = await new Promise((resolve) => pty.onExit(resolve));
      expect(exit).toEqual({ exitCode: 0, signal: null });
      expect(out).toContain('4999\r\n5000\r\nLAST-LINE');
    } finally {
      pty.dispose();
    }
  }, 60_000);
});

describe('PTY reads', () => {
  it('gives each listener chunks of its own: two busy PTYs read at once arrive whole, in order', async () => {
    // Every PTY is read into one shared buffer: a chunk that were a view of it would be
    // overwritten by the next read (of this PTY or the other), and the kept chunks would not
    // join up to what the programs wrote.
    const run = (from: number) => {
      const pty = shell(`seq ${from} ${from + 30_000}`);
      const kept: Buffer[] = [];
      pty.onData((chunk) => kept.push(chunk));
      const exited = new Promise((resolve) => pty.onExit(resolve));
      return { pty, kept, exited };
    };
    const expected = (from: number) =>
      Array.from({ length: 30_001 }, (_, i) => `${from + i}\r\n`).join('');
    const a = run(1);
    const b = run(500_000);
    try {
      expect(a.pty.readerState).toContain('onread');
      expect(await a.exited).toEqual({ exitCode: 0, signal: null });
      expect(await b.exited).toEqual({ exitCode: 0, signal: null });
      // Many reads each, into the one buffer.
      expect(a.kept.length).toBeGreaterThan(2);
      expect(b.kept.length).toBeGreaterThan(2);
      expect(Buffer.concat(a.kept).toString('latin1')).toBe(expected(1));
      expect(Buffer.concat(b.kept).toString('latin1')).toBe(expected(500_000));
    } finally {
      a.pty.dispose();
      b.pty.dispose();
    }
  }, 60_000);

  it("hands a read to every listener, though one disposes the PTY in its own call (as node-pty's events did)", async () => {
    const pty = shell('echo ready; sleep 30');
    const first: Buffer[] = [];
    const second: Buffer[] = [];
    // A read is handed out in one synchronous loop: once it is over, the second listener has
    // had its share or never will.
    const both = new Promise<void>((resolve) => {
      pty.onData((chunk) => {
        first.push(chunk);
        pty.dispose();
        setImmediate(resolve);
      });
      pty.onData((chunk) => second.push(chunk));
    });
    try {
      await both;
      expect(second).toEqual(first);
      expect(first).toHaveLength(1);
    } finally {
      pty.killGroup('SIGKILL');
      pty.dispose();
    }
  });
});
