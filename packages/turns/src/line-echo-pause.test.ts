import { describe, expect, it } from 'vitest';
import { BUILTIN_PRESETS } from './builtin-presets.js';
import { ECHO_REST_WAIT_MS, PROMPT_QUIET_MS } from './constants.js';
import { TurnDetector } from './detector.js';
import { play, turns, type Step } from './test-support/play.js';

// Node's REPL given a function of three lines and a call in one write (`clippy ask nd
// 'function f(x) {…}\nf(2)'`): what node 20.20 wrote, read by node-pty, the lines typed at 1000.
// It evaluates the definition (`undefined`, a prompt) before it echoes the call's line; on a
// loaded machine the rest comes after a pause, and the prompt shown meanwhile is not the end of
// the turn: the call's line is still to be echoed (the full suite once answered `undefined`).

const PROMPT = '\x1b[1G\x1b[0J> \x1b[3G';
const MORE = '\x1b[1G\x1b[0J... \x1b[5G';
const TYPED = 'function f(x) {\r  return x*3\r}\rf(2)\r';

/** The session up to the definition's value and the prompt after it. */
const BEFORE_CALL: Step[] = [
  [0, 'o', 'Welcome to Node.js v20.20.2.\r\nType ".help" for more information.\r\n'],
  [17, 'o', PROMPT],
  [1000, 'i', TYPED],
  [1001, 'o', 'function f(x) {\r\r\n'],
  [1008, 'o', MORE],
  [1009, 'o', '  return x*3\r\r\n'],
  [1011, 'o', MORE],
  [1011, 'o', '}\r\r\n'],
  [1012, 'o', `\x1b[90mundefined\x1b[39m\r\n${PROMPT}`],
];

const call = (at: number): Step[] => [
  [at, 'o', 'f(2)\r\r\n'],
  [at, 'o', `\x1b[33m6\x1b[39m\r\n`],
  [at + 1, 'o', PROMPT],
];

describe("node: the prompt shown before the rest of a multi-line input's echo", () => {
  for (const pause of [0, 30, 150]) {
    it(`the turn is the call's value when the call's line is echoed ${pause} ms after it`, () => {
      const d = new TurnDetector({ preset: BUILTIN_PRESETS.node! });
      const at = 1012 + pause;
      const got = turns(play(d, [...BEFORE_CALL, ...call(at)]));
      expect(got.map((t) => t.text)).toEqual(['6']);
      expect(d.state).toBe('idle');
      // Ended at the last prompt's quiet wait, as any turn: the wait for the echo's rest ended
      // with the output that came.
      expect(got[0]!.endedAt).toBeLessThanOrEqual(at + 1 + PROMPT_QUIET_MS);
    });
  }

  it('a program that never echoes the rest: the turn ends ECHO_REST_WAIT_MS after the prompt', () => {
    const d = new TurnDetector({ preset: BUILTIN_PRESETS.node! });
    const got = turns(play(d, BEFORE_CALL));
    expect(got.map((t) => t.text)).toEqual(['undefined']);
    expect(got[0]!.endedAt).toBeGreaterThanOrEqual(1012 + ECHO_REST_WAIT_MS);
  });
});
