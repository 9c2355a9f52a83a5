// An input box whose border is wider than the terminal (drawn one column too wide, or drawn
// before the terminal was narrowed) wraps its tail onto the next row: issue 21. The rows are
// rendered by a real headless xterm, as the broker's screen model renders them.
import { describe, expect, it } from 'vitest';
import { BUILTIN_PRESETS } from './builtin-presets.js';
import { classifyScreen } from './classify.js';
import { TurnDetector, type DetectorEvent } from './detector.js';
import { extractAnswer } from './extract.js';
import { turns } from './test-support/play.js';
import { XtermScreen } from './test-support/xterm-screen.js';

const enc = new TextEncoder();
const rule = (n: number): string => '─'.repeat(n);
/** Claude Code's input box as it draws it: rule, `❯`, rule, footer (cursor left on the footer). */
const claudeBox = (width: number): string =>
  `${rule(width)}\r\n❯ \r\n${rule(width)}\r\n  ? for shortcuts`;
/** What Ink does before drawing a new frame: erase the rows of the previous one (4 here). */
const ERASE_BOX = '\x1b[2K\x1b[1A'.repeat(3) + '\x1b[2K\x1b[G';

/** What the answer's text is: the agent's block mark and its indentation are chrome. */
const unbulleted = (lines: string[]): string =>
  lines.map((l) => l.replace(/^(?:⏺ | {2})/u, '')).join('\n');

const ANSWER = [
  '⏺ The table:',
  '',
  '  ┌──────┬──────┐',
  '  │ file │ size │',
  '  ├──────┼──────┤',
  '  │ a.ts │ 10   │',
  '  └──────┴──────┘',
  '',
  `  ${rule(40)}`,
  '',
  '  | a | b |',
  '  |---|---|',
  '',
  '  Done.',
];

/**
 * A Claude Code session in a headless xterm: the box, a question typed and submitted, the
 * echo, the answer and the box again, then `after` (a resize, a redraw) within the settle
 * window; returns the detector's events once everything settled.
 */
async function claudeTurn(
  cols: number,
  boxWidth: number,
  after: (screen: XtermScreen) => Promise<void>,
): Promise<DetectorEvent[]> {
  const screen = new XtermScreen(cols, 30);
  const d = new TurnDetector({ preset: BUILTIN_PRESETS.claude!, cols });
  const events: DetectorEvent[] = [];
  let t = 0;
  const output = async (s: string): Promise<void> => {
    t += 10;
    events.push(...d.onOutput(enc.encode(s), t));
    await screen.write(s);
    events.push(...d.onScreen(screen.snapshot(), t));
  };
  const settle = (): void => {
    t += 1000;
    for (let dl = d.nextDeadline(); dl !== null && dl <= t; dl = d.nextDeadline())
      events.push(...d.tick(dl));
  };
  try {
    await output(`\x1b[2J\x1b[H${claudeBox(boxWidth)}`);
    settle();
    t += 10;
    events.push(...d.onInput(enc.encode('show the table'), t));
    events.push(...d.onInput(enc.encode('\r'), t + 1));
    await output(
      `${ERASE_BOX}> show the table\r\n\r\n${ANSWER.join('\r\n')}\r\n\r\n${claudeBox(boxWidth)}`,
    );
    await after(screen);
    events.push(...d.onScreen(screen.snapshot(), (t += 10)));
    settle();
    return events;
  } finally {
    screen.dispose();
  }
}

describe('an input box border wider than the terminal', () => {
  it('narrowed after the box was drawn: the turn ends at the box and leaves its old rule out', async () => {
    const events = await claudeTurn(100, 100, async (screen) => {
      screen.resize(90, 30);
      await screen.write(`${ERASE_BOX}${claudeBox(90)}`);
    });
    const [turn, ...more] = turns(events);
    expect(more).toEqual([]);
    expect(turn!.text).toBe(unbulleted(ANSWER));
  });

  it('rules drawn one column wider than the terminal: the turn still ends, without their tails', async () => {
    const events = await claudeTurn(90, 91, async () => {});
    const [turn, ...more] = turns(events);
    expect(more).toEqual([]);
    expect(turn!.text).toBe(unbulleted(ANSWER));
    expect(events.filter((e) => e.type === 'ready')).toHaveLength(1);
  });

  it("drops the wrapped tail of Gemini's chrome rule above its input band", () => {
    const screen = [
      ' > list the files',
      '',
      '✦ a.ts and b.ts.',
      '',
      '                                                     ? for shortcuts',
      rule(70),
      rule(8),
      ' Shift+Tab to accept edits',
      '',
      ' >   Type your message or @path/to/file',
    ];
    expect(classifyScreen(screen, BUILTIN_PRESETS.gemini!).state).toBe('idle');
    expect(extractAnswer(screen, 'list the files', BUILTIN_PRESETS.gemini!)).toBe('a.ts and b.ts.');
  });

  it('keeps an answer that ends in a full-width rule of its own', () => {
    const screen = ['> draw a line', '', '⏺ Here:', rule(60), '', rule(60), '❯', rule(60)];
    expect(extractAnswer(screen, 'draw a line', BUILTIN_PRESETS.claude!)).toBe(
      `Here:\n${rule(60)}`,
    );
  });
});
