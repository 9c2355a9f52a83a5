import { describe, expect, it } from 'vitest';
import { EscapeParser, type EscapeSink } from './escape-parser.js';

/**
 * Records a parse as stream offsets, text runs merged: the same stream cut into other chunks
 * (or placed at another offset in its buffer) must record the same.
 */
class Recorder implements EscapeSink {
  readonly events: string[] = [];
  private readonly c1s: string[] = [];
  private textFrom = -1;
  private textTo = -1;
  constructor(private readonly parser: () => EscapeParser) {}

  /** Stream offset of index `at` in the chunk being parsed. */
  private abs(at: number): number {
    return this.parser().offset + at;
  }

  private flushText(): void {
    if (this.textFrom >= 0) this.events.push(`text ${this.textFrom}-${this.textTo}`);
    this.textFrom = this.textTo = -1;
  }

  private event(e: string): void {
    this.flushText();
    this.events.push(e);
  }

  print(_chunk: Uint8Array, start: number, end: number): void {
    const from = this.abs(start);
    if (this.textTo === from) this.textTo = this.abs(end);
    else {
      this.flushText();
      this.textFrom = from;
      this.textTo = this.abs(end);
    }
  }
  execute(byte: number, at: number, inSequence: boolean): void {
    this.event(`control ${byte} at ${this.abs(at)}${inSequence ? ' in sequence' : ''}`);
  }
  c1(at: number): void {
    // Told after its two bytes' text, or (split between chunks) before its second byte's: the
    // text around it is one run either way.
    this.c1s.push(`c1 at ${this.abs(at)}`);
  }
  escape(intermediates: string, final: number, at: number): void {
    this.event(`esc ${intermediates}${final} at ${this.abs(at)}`);
  }
  csi(final: number, startAbs: number): void {
    this.event(`csi ${this.parser().params()}${final} from ${startAbs}`);
  }
  malformed(at: number): void {
    this.event(`malformed at ${this.abs(at)}`);
  }

  done(): string[] {
    this.flushText();
    return [...this.events, ...this.c1s];
  }
}

/** Parses `stream` cut at `cuts`, each chunk copied to `shift` bytes into a buffer of its own. */
function parse(stream: Uint8Array, cuts: number[], shift: number): string[] {
  const holder: { parser?: EscapeParser } = {};
  const rec = new Recorder(() => holder.parser!);
  const parser = (holder.parser = new EscapeParser(rec));
  let from = 0;
  for (const to of [...cuts, stream.length]) {
    const buf = new Uint8Array(to - from + shift);
    buf.set(stream.subarray(from, to), shift);
    parser.parse(buf.subarray(shift));
    from = to;
  }
  return rec.done();
}

/** A deterministic stream of text, UTF-8, controls, sequences and the bytes around C1 controls. */
function stream(seed: number, length: number): Uint8Array {
  let x = seed;
  const rand = (n: number) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 8) % n;
  };
  const parts: number[] = [];
  const pieces: (() => number[])[] = [
    () => [...Buffer.from('plain text that runs on for a while ')],
    () => [...Buffer.from('é—│✓ ')],
    () => [0x0d, 0x0a],
    () => [rand(0x20)],
    () => [0x7f],
    () => [0xc2, 0x80 + rand(0x40)], // a C1 control (0x80–0x9F) or a character (0xA0–0xBF)
    () => [0xc2],
    () => [...Buffer.from(`\x1b[${rand(100)};${rand(10)}m`)],
    () => [...Buffer.from('\x1b[?2004h\x1b(B\x1b7')],
    () => [...Buffer.from('\x1b]0;title\x07')],
  ];
  while (parts.length < length) parts.push(...pieces[rand(pieces.length)]!());
  return new Uint8Array(parts.slice(0, length));
}

describe('EscapeParser', () => {
  it('parses a stream the same whatever its chunks and their place in memory', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const s = stream(seed, 3000);
      // Byte by byte: every chunk too short to be read four bytes at a time.
      const oneByOne = parse(
        s,
        Array.from({ length: s.length - 1 }, (_, i) => i + 1),
        0,
      );
      expect(oneByOne.some((e) => e.startsWith('c1 '))).toBe(true);
      for (let shift = 0; shift < 4; shift++) {
        expect(parse(s, [], shift)).toEqual(oneByOne);
        const cuts = [101, 102, 777, 1500, 2999].filter((c) => c < s.length);
        expect(parse(s, cuts, shift)).toEqual(oneByOne);
      }
    }
  });

  it('finds a control, DEL or C1 control at each place in a long run of text', () => {
    const text = Buffer.from('x'.repeat(200));
    const cases: [number[], (at: number) => string][] = [
      [[0x0a], (at) => `control 10 at ${at}`],
      [[0x00], (at) => `control 0 at ${at}`],
      [[0x7f], (at) => `control 127 at ${at}`],
      [[0x1b, 0x37], (at) => `esc 55 at ${at + 1}`],
    ];
    for (let at = 1; at < 80; at++) {
      for (const [special, told] of cases) {
        const s = new Uint8Array([...text.subarray(0, at), ...special, ...text]);
        const end = at + special.length;
        expect(parse(s, [], at % 4)).toEqual([`text 0-${at}`, told(at), `text ${end}-${s.length}`]);
      }
      // A C1 control's two bytes are text too.
      const c1 = new Uint8Array([...text.subarray(0, at), 0xc2, 0x85, ...text]);
      expect(parse(c1, [], at % 4)).toEqual([`text 0-${c1.length}`, `c1 at ${at + 1}`]);
    }
  });
});
