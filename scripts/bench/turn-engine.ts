/**
 * Throughput of the turn engine on one core, against plain ANSI stripping measured in the same
 * run: strip-ansi on decoded text (the baseline), our streaming AnsiStripper, and the detector's
 * onOutput for a line preset (mid-turn: every line tested against the prompt) and a screen
 * preset (content buffering only; classification runs on throttled snapshots). Input: the
 * corpus's raw Claude Code streams when ../shared/corpus exists, else generated coloured lines.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import stripAnsiBaseline from 'strip-ansi';
import { AnsiStripper, BUILTIN_PRESETS, resolvePreset, TurnDetector } from '@clippy/turns';

/** Bytes processed per measurement: large enough that timer noise is far below 1 %. */
const TARGET_BYTES = 64 * 1024 * 1024;
/** Runs per measurement; the best is kept (least disturbed by the machine). */
const REPEATS = 3;
/** Chunk size the broker typically gets from node-pty under load. */
const CHUNK_BYTES = 4096;

const here = path.dirname(fileURLToPath(import.meta.url));
const corpus = path.resolve(here, '..', '..', '..', 'shared', 'corpus', 'raw-streams');

/** A realistic output sample: real agent streams, or coloured log lines with redraws. */
function sample(): { name: string; bytes: Uint8Array } {
  const cast = path.join(corpus, 'claude-code-2.1.105.cast');
  if (fs.existsSync(cast)) {
    const parts: Buffer[] = [];
    for (const line of fs.readFileSync(cast, 'utf8').trim().split('\n').slice(1)) {
      const [, kind, data] = JSON.parse(line) as [number, string, string];
      if (kind === 'o') parts.push(Buffer.from(data));
    }
    const capture = path.join(corpus, 'claude-code-2.0.57.pty-capture.json');
    for (const e of (JSON.parse(fs.readFileSync(capture, 'utf8')) as { events: { data: string }[] })
      .events) {
      parts.push(Buffer.from(e.data, 'base64'));
    }
    return {
      name: 'corpus raw streams (Claude Code 2.1.105 + 2.0.57)',
      bytes: new Uint8Array(Buffer.concat(parts)),
    };
  }
  const lines: string[] = [];
  for (let i = 0; i < 2000; i++) {
    lines.push(
      `\x1b[32m${i}\x1b[0m answer line with \x1b[1mbold\x1b[22m text and é ✓ 🌱 ${'x'.repeat(i % 50)}\r\n`,
    );
    if (i % 10 === 0) lines.push(`\r\x1b[2K⠋ working ${i}\r`);
  }
  return { name: 'generated coloured lines', bytes: new TextEncoder().encode(lines.join('')) };
}

function chunksOf(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += CHUNK_BYTES) out.push(bytes.subarray(i, i + CHUNK_BYTES));
  return out;
}

/** Best MB/s over REPEATS runs of `work` over TARGET_BYTES. */
function measure(sampleBytes: number, work: (rounds: number) => void): number {
  const rounds = Math.max(1, Math.round(TARGET_BYTES / sampleBytes));
  let best = Infinity;
  for (let r = 0; r < REPEATS; r++) {
    const t0 = performance.now();
    work(rounds);
    best = Math.min(best, performance.now() - t0);
  }
  return (rounds * sampleBytes) / 1024 / 1024 / (best / 1000);
}

export async function run(): Promise<void> {
  const { name, bytes } = sample();
  const chunks = chunksOf(bytes);
  const decoder = new TextDecoder();
  const enc = new TextEncoder();
  let sink = 0;

  const baseline = measure(bytes.length, (rounds) => {
    for (let r = 0; r < rounds; r++) {
      for (const c of chunks) sink += stripAnsiBaseline(decoder.decode(c, { stream: true })).length;
    }
  });
  const stripper = measure(bytes.length, (rounds) => {
    const s = new AnsiStripper();
    for (let r = 0; r < rounds; r++) for (const c of chunks) sink += s.push(c).length;
  });
  const linePreset = measure(bytes.length, (rounds) => {
    // A prompt that never appears in the sample: the whole run stays one turn, every line tested.
    const d = new TurnDetector({
      preset: resolvePreset(undefined, { pattern: '^bench-prompt> $' }),
    });
    let now = 0;
    d.onOutput(enc.encode('bench-prompt> '), now);
    d.tick((now += 100));
    d.onInput(enc.encode('run\r'), (now += 1));
    for (let r = 0; r < rounds; r++)
      for (const c of chunks) sink += d.onOutput(c, (now += 1)).length;
  });
  const screenPreset = measure(bytes.length, (rounds) => {
    const d = new TurnDetector({ preset: BUILTIN_PRESETS.claude! });
    let now = 0;
    d.onOutput(enc.encode('x'), now);
    d.onScreen(
      { lines: ['─'.repeat(40), '❯ ', '─'.repeat(40)], viewportTop: 0, rows: 3, cols: 80 },
      (now += 1),
    );
    d.tick((now += 1000));
    d.onInput(enc.encode('go\r'), (now += 1));
    for (let r = 0; r < rounds; r++)
      for (const c of chunks) sink += d.onOutput(c, (now += 1)).length;
  });

  const fmt = (v: number): string => `${v.toFixed(1).padStart(8)} MB/s`;
  const ratio = (v: number): string => `${(v / baseline).toFixed(2)}× strip-ansi`;
  process.stdout.write(
    `input: ${name}, ${(bytes.length / 1024).toFixed(0)} KiB per pass, ${CHUNK_BYTES}-byte chunks\n`,
  );
  process.stdout.write(`strip-ansi (decode + regex, baseline) ${fmt(baseline)}\n`);
  process.stdout.write(
    `AnsiStripper.push (streaming)        ${fmt(stripper)}  ${ratio(stripper)}\n`,
  );
  process.stdout.write(
    `TurnDetector.onOutput, line preset   ${fmt(linePreset)}  ${ratio(linePreset)}\n`,
  );
  process.stdout.write(
    `TurnDetector.onOutput, screen preset ${fmt(screenPreset)}  ${ratio(screenPreset)}\n`,
  );
  if (sink < 0) process.stdout.write('');
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
