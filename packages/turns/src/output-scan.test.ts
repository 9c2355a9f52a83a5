import { describe, expect, it } from 'vitest';
import { MAX_OSC_PAYLOAD_BYTES } from './escape-parser.js';
import { OutputScan, type LineLocalListener } from './output-scan.js';

const bytes = (s: string) => new TextEncoder().encode(s);

/** Records what a scan tells flood compaction, as stream offsets. */
class Recorder implements LineLocalListener {
  readonly events: string[] = [];
  lineStart(at: number): void {
    this.events.push(`line@${at}`);
  }
  nonLocal(): void {
    this.events.push('non-local');
  }
  sgr(at: number, params: string, reset: boolean): void {
    this.events.push(`sgr@${at}:${params}${reset ? ':reset' : ''}`);
  }
}

describe('OutputScan: OSC strings', () => {
  it('finds titles and status reports ended by BEL or ST, among other output', () => {
    const s = new OutputScan({ osc: true });
    expect(
      s.scan(bytes('a\x1b[1mb\x1b]0;✳ Claude Code\x07c\x1b]7501;state=working:app=codex\x1b\\d'))
        .osc,
    ).toEqual(['0;✳ Claude Code', '7501;state=working:app=codex']);
  });

  it('follows a sequence split between chunks, byte by byte', () => {
    const s = new OutputScan({ osc: true });
    const all = bytes('x\x1b]0;⠦ project\x07y\x1b]2;◇  Ready (p)\x1b\\');
    const found: string[] = [];
    for (const b of all) found.push(...s.scan(Uint8Array.of(b)).osc);
    expect(found).toEqual(['0;⠦ project', '2;◇  Ready (p)']);
  });

  it('skips a payload too long to be a status, and sequences that were cut off', () => {
    const s = new OutputScan({ osc: true });
    const long = `\x1b]52;c;${'A'.repeat(MAX_OSC_PAYLOAD_BYTES)}\x07`;
    expect(s.scan(bytes(`${long}\x1b]0;cut\x18\x1b]0;ok\x07`)).osc).toEqual(['0;ok']);
  });

  it('collects nothing it was not asked for', () => {
    const s = new OutputScan();
    expect(s.scan(bytes('a\x1b]0;title\x07b\x1b[c\x1b[6n\r\n'))).toEqual({
      segments: [],
      osc: [],
      modesChanged: false,
      focusReportsOff: false,
      answers: [],
      screenQuery: false,
    });
  });
});

describe('OutputScan: visible text', () => {
  it('cuts the text where the alternate screen is shown and left, with each part’s line feeds', () => {
    const s = new OutputScan({ text: true });
    const chunk = bytes('a\r\nb\x1b[?1049hfull\nscreen\x1b[?1049l\x1b[31mc\n');
    const { segments } = s.scan(chunk);
    expect(segments.map((g) => [g.text, g.newlines, g.alt])).toEqual([
      ['a\r\nb', [2], true],
      ['full\nscreen', [4], false],
      ['c\n', [6], null],
    ]);
    expect(segments.at(-1)!.end).toBe(chunk.length);
  });

  it('finds a switch split between chunks, and ignores modes that are not the alternate screen', () => {
    const s = new OutputScan({ text: true });
    expect(s.scan(bytes('x\x1b[?10')).segments.map((g) => g.alt)).toEqual([null]);
    const { segments } = s.scan(bytes('49;1006hy\x1b[?2004h'));
    expect(segments.map((g) => [g.text, g.end, g.alt])).toEqual([
      ['', 8, true],
      ['y', 17, null],
    ]);
  });
});

describe('OutputScan: line-local stretches (flood compaction)', () => {
  it('reports line starts after CR LF, colours, and what may act beyond the line', () => {
    const r = new Recorder();
    const s = new OutputScan({ lines: r });
    s.scan(bytes('ab\r\ncd\n\x1b[1;31mx\x1b[K\x1b[0m\r'));
    s.scan(bytes('\ny\x1b[5;1Hz\x07\x01'));
    expect(r.events).toEqual([
      'line@4',
      'sgr@7:1;31',
      'sgr@18:0:reset',
      'line@24',
      'non-local',
      'non-local',
    ]);
  });

  it('takes every escape that is not a colour or an erase in line, a C1 control and a control inside a sequence as non-local', () => {
    for (const text of [
      '\x1b7',
      '\x1b(B',
      '\x1b[?25l',
      '\x1b[2J',
      '\x1b]0;t\x07',
      '\x1bPq\x1b\\',
      'é\xc2\x85',
      '\x1b[1\n;2H',
      '\x1b[é',
    ]) {
      const r = new Recorder();
      new OutputScan({ lines: r }).scan(
        text === 'é\xc2\x85' ? Uint8Array.of(0xc3, 0xa9, 0xc2, 0x85) : bytes(text),
      );
      expect(r.events, JSON.stringify(text)).toContain('non-local');
    }
  });
});

describe('OutputScan: terminal modes', () => {
  it('follows the private modes a program turns on and off, across chunks', () => {
    const s = new OutputScan({ modes: true });
    expect(s.scan(bytes('\x1b[?2004h\x1b[?1;10')).modesChanged).toBe(true);
    expect([...s.modes]).toEqual([2004]);
    expect(s.scan(bytes('04h\x1b[?25h\x1b[?7h')).modesChanged).toBe(true);
    expect([...s.modes].sort((a, b) => a - b)).toEqual([1, 25, 1004, 2004]);
    expect(s.scan(bytes('\x1b[?2004h\x1b[31mtext')).modesChanged).toBe(false);
    expect(s.scan(bytes('\x1b[?1004;2004l')).focusReportsOff).toBe(true);
    expect([...s.modes].sort((a, b) => a - b)).toEqual([1, 25]);
    // Turned off while off: no mode changed, but a terminal that wants focus reports hears of it.
    const again = s.scan(bytes('\x1b[?1004l'));
    expect(again.modesChanged).toBe(false);
    expect(again.focusReportsOff).toBe(true);
  });
});

describe('OutputScan: queries only the screen model answers', () => {
  const asks = (scan: OutputScan, s: string) => scan.scan(bytes(s)).screenQuery;

  it('tells status, cursor position and mode reports, a DCS string and a C1 control', () => {
    const scan = new OutputScan({ queries: true });
    for (const q of [
      '\x1b[6n',
      '\x1b[?6n',
      '\x1b[5n',
      '\x1b[?2004$p',
      '\x1b[4$p',
      '\x1bP$qm\x1b\\',
    ])
      expect(asks(scan, `text ${q} more`), JSON.stringify(q)).toBe(true);
    // U+009B: a C1 control (CSI) written as UTF-8.
    expect(asks(scan, 'a\u009b6n')).toBe(true);
  });

  it('tells one split between chunks in the chunk that ends it', () => {
    const scan = new OutputScan({ queries: true });
    expect(asks(scan, 'abc\x1b[')).toBe(false);
    expect(asks(scan, '6n')).toBe(true);
  });

  it('takes nothing else for one', () => {
    const scan = new OutputScan({ queries: true });
    const others = '\x1b[31mred\x1b[0m\x1b[2J\x1b[H\x1b[?1049h\x1b[!p\x1b]0;title\x07\x1b[c\x1b[>c';
    expect(asks(scan, others)).toBe(false);
  });
});
