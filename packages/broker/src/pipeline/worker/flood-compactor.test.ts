import headless from '@xterm/headless';
import serialize from '@xterm/addon-serialize';
import { describe, expect, it } from 'vitest';
import { OutputScan } from '@clippy/turns';
import { FloodCompactor } from './flood-compactor.js';

const { Terminal } = headless;
const { SerializeAddon } = serialize;

const COLS = 60;
const ROWS = 10;
const SCROLLBACK = 50;
const KEEP = SCROLLBACK + 2 * ROWS + 2;

/** The model's full state after parsing `data`: serialized buffer plus cursor and modes. */
async function stateAfter(chunks: Uint8Array[]): Promise<string> {
  const term = new Terminal({
    cols: COLS,
    rows: ROWS,
    scrollback: SCROLLBACK,
    allowProposedApi: true,
  });
  const ser = new SerializeAddon();
  term.loadAddon(ser as unknown as Parameters<typeof term.loadAddon>[0]);
  for (const c of chunks) await new Promise<void>((r) => term.write(c, r));
  // Text written after the stream shows the colours in force at its end.
  await new Promise<void>((r) => term.write('after', r));
  const b = term.buffer.active;
  const out = `${ser.serialize({ scrollback: SCROLLBACK })}|${b.cursorX},${b.cursorY},${b.baseY}`;
  term.dispose();
  return out;
}

/**
 * Feeds the stream in uneven chunks, scanned and compacting as the pipeline does, and returns
 * what the screen model would parse.
 */
function throughCompactor(stream: Buffer, every = 7_000): { out: Uint8Array[]; dropped: number } {
  const c = new FloodCompactor(KEEP);
  const scan = new OutputScan({ lines: c });
  const out: Uint8Array[] = [];
  let seed = 7;
  for (let i = 0; i < stream.length;) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const n = 1 + (seed % 3000);
    const chunk = Buffer.from(stream.subarray(i, i + n));
    scan.scan(chunk);
    c.push(chunk);
    i += n;
    if (c.size > every) c.compact();
  }
  out.push(...c.drain());
  return { out, dropped: c.dropped };
}

function lines(n: number, f: (i: number) => string): string {
  return Array.from({ length: n }, (_, i) => f(i)).join('');
}

describe('FloodCompactor', () => {
  it('drops most of a text flood and leaves the model in exactly the same state', async () => {
    const stream = Buffer.from(
      '\x1b[1;31mred and bold from the start\r\n' +
        lines(3000, (i) => `line ${i} ${'x'.repeat(i % 130)}\r\n`) + // some lines wrap
        'progress 10%\rprogress 90%\x1b[K\r\n' +
        '\x1b[0mreset\r\n\x1b[32m' +
        lines(500, (i) => `green ${i}\té\r\n`) +
        'no newline at the end',
    );
    const { out, dropped } = throughCompactor(stream);
    expect(dropped).toBeGreaterThan(stream.length * 0.8);
    expect(await stateAfter(out)).toBe(await stateAfter([stream]));
  });

  it('carries the colours of a dropped stretch into the text kept after it', async () => {
    const stream = Buffer.from(
      '\x1b[44m' +
        lines(400, (i) => `blue bg ${i}\r\n`) +
        '\x1b[33m' +
        lines(400, (i) => `yellow ${i}\r\n`),
    );
    const { out, dropped } = throughCompactor(stream, 2_000);
    expect(dropped).toBeGreaterThan(0);
    expect(await stateAfter(out)).toBe(await stateAfter([stream]));
  });

  it('never drops across cursor addressing, modes or other escapes', async () => {
    for (const impure of [
      '\x1b[5;5H',
      '\x1b[?1049h',
      '\x1b[2;8r',
      '\x1b]0;title\x07',
      '\x1b7',
      '\u009b',
    ]) {
      const stream = Buffer.from(
        lines(200, (i) => `a ${i}\r\n`) + impure + 'X\r\n' + lines(50, (i) => `b ${i}\r\n`),
      );
      const { out, dropped } = throughCompactor(stream, 1_000);
      // Only what precedes the escape and is followed by enough lines may go: here, too few follow it.
      expect(await stateAfter(out), JSON.stringify(impure)).toBe(await stateAfter([stream]));
      expect(dropped).toBeGreaterThan(0); // the 200 lines before it still could
    }
  });

  it('keeps everything when fewer lines follow than the model can show', async () => {
    const stream = Buffer.from(lines(KEEP - 1, (i) => `short ${i}\r\n`));
    const { out, dropped } = throughCompactor(stream, 100);
    expect(dropped).toBe(0);
    expect(Buffer.concat(out).equals(stream)).toBe(true);
  });
});
