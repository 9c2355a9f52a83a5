// The same question asked again (a repeated ask, "continue"): Gemini CLI 0.61 empties its input
// band at Enter but draws the message's echo only once it starts on it, so for a moment the
// screen looks idle with the earlier echo of that question, and its old answer, still on it.
// The turn must wait for this submit's own echo and answer. Rendered by a real headless xterm,
// with the bytes Gemini CLI 0.61 writes (captured through clippy on the real CLI).
import { describe, expect, it } from 'vitest';
import { BUILTIN_PRESETS } from './builtin-presets.js';
import { TurnDetector, type DetectorEvent } from './detector.js';
import { turns } from './test-support/play.js';
import { XtermScreen } from './test-support/xterm-screen.js';

const enc = new TextEncoder();
const COLS = 100;
/** Gemini's window title: `◇  Ready` at its prompt, `✦  Working…` while it answers. */
const title = (t: string): string => `\x1b]0;${t} (project)\x07`;
const READY = title('◇  Ready');
const WORKING = title('✦  Working…');

/** Gemini's live area: status line, rule, hint, the shaded input band, the footer (10 rows). */
function frame(input = '', status = `${' '.repeat(84)}? for shortcuts`): string {
  const text = input === '' ? '  Type your message or @path/to/file' : input;
  return [
    '',
    '',
    status,
    '─'.repeat(COLS),
    ' Shift+Tab to accept edits',
    '▄'.repeat(COLS),
    ` > ${text}`,
    '▀'.repeat(COLS),
    ' workspace (/directory)                                    sandbox                           /model',
    ' /tmp/project                                              no sandbox                          Auto',
  ].join('\r\n');
}
/** Ink's erase of the live area before it draws the next frame (the cursor sits in the band). */
const ERASE = `\x1b[4B${'\x1b[2K\x1b[1A'.repeat(9)}\x1b[2K\x1b[G`;
/** Ink leaves the cursor in the input band. */
const PARK = '\x1b[4A\x1b[4G';
/** The echo of a message: its line on the shaded band. */
const echo = (q: string): string =>
  [`${'▄'.repeat(COLS)}`, ` > ${q}`, `${'▀'.repeat(COLS)}`].join('\r\n');

describe('Gemini CLI: a question asked again', () => {
  it('is answered when its own echo and answer are drawn, not by the earlier echo still on screen', async () => {
    const screen = new XtermScreen(COLS, 30);
    const d = new TurnDetector({ preset: BUILTIN_PRESETS.gemini!, cols: COLS });
    const events: DetectorEvent[] = [];
    let t = 0;
    const output = async (s: string): Promise<void> => {
      t += 10;
      events.push(...d.onOutput(enc.encode(s), t));
      await screen.write(s);
      events.push(...d.onScreen(screen.snapshot(), t));
    };
    const wait = (ms: number): void => {
      const until = t + ms;
      for (let dl = d.nextDeadline(); dl !== null && dl <= until; dl = d.nextDeadline())
        events.push(...d.tick(dl));
      t = until;
    };
    const ask = async (q: string): Promise<void> => {
      events.push(...d.onInput(enc.encode(q), (t += 10)));
      await output(`${ERASE}${frame(q)}${PARK}`);
      wait(300);
      events.push(...d.onInput(enc.encode('\r'), (t += 10)));
      // Enter: the band is emptied at once; nothing else changes yet.
      await output(`${ERASE}${frame()}${PARK}`);
    };
    const answer = async (q: string, a: string): Promise<void> => {
      await output(
        `${ERASE}${echo(q)}\r\n${frame('', ' ⠋ Thinking... (esc to cancel, 0s)')}${PARK}${WORKING}`,
      );
      wait(100);
      await output(`${ERASE}\r\n✦ ${a}\r\n${frame()}${PARK}${READY}`);
    };
    try {
      await output(`${READY}\x1b[2J\x1b[H Gemini CLI v0.61.0\r\n${frame()}${PARK}`);
      wait(1000);
      const q = 'Please give the long answer.';
      await ask(q);
      await answer(q, 'The first answer.');
      wait(1000);
      expect(turns(events).map((e) => e.text)).toEqual(['The first answer.']);

      await ask(q);
      // Gemini is slow to start on it (a loaded machine): the screen stays so for a while.
      wait(2000);
      expect(turns(events)).toHaveLength(1);
      await answer(q, 'The second answer.');
      wait(1000);
      expect(turns(events).map((e) => e.text)).toEqual(['The first answer.', 'The second answer.']);
    } finally {
      screen.dispose();
    }
  });
});
