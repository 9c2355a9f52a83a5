import { describe, expect, it } from 'vitest';
import { stripAnsi } from './ansi-stripper.js';
import { BUILTIN_PRESETS } from './builtin-presets.js';
import { TurnDetector } from './detector.js';
import { SHELL_INJECTIONS } from './fixtures/shell-injections.js';
import { decode, play, turns } from './test-support/play.js';

// The turn contract for injected text, on what real shells wrote (fixtures/shell-injections.ts):
// the echo of the input (however the line editor redraws it) is never turn content, a command
// that prints nothing makes no turn, and output left without a final newline before the prompt
// is part of the answer.

const OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/gu;

/** What each recording's second command prints (node adds the value of write(): true). */
const ANSWER: Record<string, string> = {
  bash: 'NO-NEWLINE',
  zsh: 'NO-NEWLINE',
  fish: 'NO-NEWLINE',
  python: 'NO-NEWLINE',
  node: 'NO-NEWLINEtrue',
};

describe('injected text into real shells and REPLs (recorded byte streams)', () => {
  for (const [key, steps] of Object.entries(SHELL_INJECTIONS)) {
    const shell = key.split('_')[0]!;
    it(`${key}: no turn without output, no echo in the turn, the text before the prompt kept`, () => {
      const d = new TurnDetector({ preset: BUILTIN_PRESETS[shell]! });
      const events = play(d, steps);
      expect(events.filter((e) => e.type === 'ready')).toHaveLength(1);
      const got = turns(events);
      expect(got).toHaveLength(1);
      const [t] = got;
      const typed = t!.input;
      expect(typed).toContain('NO-NEWLINE');
      expect(t!.text).toBe(ANSWER[shell]);
      // The raw content holds the answer and no trace of the typed command.
      expect(stripAnsi(t!.content).trim()).toBe(ANSWER[shell]);
      // (fish puts the command in the window title, an OSC string: not shown, not the echo.)
      expect(decode(t!.content).replace(OSC, '')).not.toContain(typed);
      expect(t!.truncated).toBe(false);
    });
  }
});
