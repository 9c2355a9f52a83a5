import { describe, expect, it } from 'vitest';
import { BUILTIN_PRESETS } from './builtin-presets.js';
import { echoEnd, extractAnswer } from './extract.js';
import {
  AIDER_ANSWER,
  CLAUDE_DIALOG,
  CLAUDE_IDLE_AFTER_ANSWER,
  CODEX_ANSWER,
  COPILOT_ANSWER,
  GEMINI_ANSWER,
} from './fixtures/screens.js';

const P = BUILTIN_PRESETS;

describe('extractAnswer', () => {
  it('Claude: the answer between the echoed input and the input box, spinner summary dropped', () => {
    expect(
      extractAnswer(CLAUDE_IDLE_AFTER_ANSWER, 'What is the capital of France?', P.claude!),
    ).toBe('The capital of France is Paris.\n\nIt sits on the Seine.');
  });

  it('Gemini: skips the boxed echo and stops at the input box; footer gone', () => {
    expect(extractAnswer(GEMINI_ANSWER, 'How are you?', P.gemini!)).toBe(
      'Fine, thanks. What shall we build?',
    );
  });

  it('Codex: stops at the composer line; the "% left" footer is gone', () => {
    expect(extractAnswer(CODEX_ANSWER, 'List the files', P.codex!)).toBe(
      'Ran ls\n└ a.txt\n  b.txt\n\nThere are two files: a.txt and b.txt.',
    );
  });

  it('Copilot: drops the cwd status line above the input box', () => {
    expect(extractAnswer(COPILOT_ANSWER, 'Fix the typo in README.md', P.copilot!)).toBe(
      'Fixed: "teh" → "the" in README.md.',
    );
  });

  it('aider: stops at the rule above the files in chat; the token/cost line is chrome', () => {
    expect(extractAnswer(AIDER_ANSWER, 'add a docstring to main()', P.aider!)).toBe(
      'I will add the docstring.\n\nApplied edit to app.py',
    );
  });

  it('finds the newest echo when the same question was asked before', () => {
    const screen = [
      '❯ again',
      '',
      '⏺ first answer',
      '',
      '❯ again',
      '',
      '⏺ second answer',
      '',
      '─'.repeat(40),
      '❯',
      '─'.repeat(40),
    ];
    expect(extractAnswer(screen, 'again', P.claude!)).toBe('second answer');
  });

  it('matches a multi-line echo that the agent wrapped and indented', () => {
    const screen = [
      '> Explain this:',
      '',
      '  const a =',
      '  1;',
      '',
      '⏺ It sets a to 1.',
      '',
      '─'.repeat(40),
      '❯',
      '─'.repeat(40),
    ];
    expect(extractAnswer(screen, 'Explain this:\n\nconst a = 1;', P.claude!)).toBe(
      'It sets a to 1.',
    );
  });

  it('keeps a dialog the agent is asking (blocked screens have no input box to cut at)', () => {
    const text = extractAnswer(CLAUDE_DIALOG, 'Delete the build folder', P.claude!);
    expect(text.split('\n')[0]).toBe('Bash(rm -rf build)');
    expect(text).toContain('Do you want to proceed?');
  });

  it('with no input (first screen), returns everything above the input box', () => {
    expect(extractAnswer(CODEX_ANSWER.slice(2), '', P.codex!)).toBe(
      'Ran ls\n└ a.txt\n  b.txt\n\nThere are two files: a.txt and b.txt.',
    );
  });

  it("takes Claude's one-line echo of a long paste as the echo", () => {
    const screen = [
      '❯ [Pasted text #1 +20 lines]',
      '',
      '⏺ Summary of the paste.',
      '',
      '─'.repeat(40),
      '❯',
      '─'.repeat(40),
    ];
    expect(extractAnswer(screen, 'line 1\nline 2\nline 3', P.claude!)).toBe(
      'Summary of the paste.',
    );
  });

  it('starts at the given fallback when the echo is not on screen at all', () => {
    const screen = [
      'old history',
      'more history',
      '⏺ The answer.',
      '─'.repeat(40),
      '❯',
      '─'.repeat(40),
    ];
    expect(extractAnswer(screen, 'a question never echoed', P.claude!, { fallbackStart: 2 })).toBe(
      'The answer.',
    );
    expect(extractAnswer(screen, 'a question never echoed', P.claude!)).toBe(
      'old history\nmore history\nThe answer.',
    );
  });

  describe('a long message whose echo is shown cut (laid out as Claude Code 2.1.197 and Codex 0.171 show a 300-line question)', () => {
    const question = Array.from(
      { length: 300 },
      (_, i) => `Line ${i + 1} of a long question: what is ${i + 1}+${i + 1}?`,
    ).join('\n');
    const q = (i: number) => `Line ${i} of a long question: what is ${i}+${i}?`;

    it('Claude: the middle hidden behind "(187 lines hidden)"; the answer starts after the last line', () => {
      const screen = [
        ' ▐▛███▜▌   Claude Code v2.1.197',
        '',
        `❯ ${q(1)}`,
        ...Array.from({ length: 57 }, (_, i) => `  ${q(i + 2)}`),
        '  Line 59 of a long question: what',
        `  ──── (187 lines hidden) ${'─'.repeat(60)}`,
        '  what is 246+246?',
        ...Array.from({ length: 54 }, (_, i) => `  ${q(i + 247)}`),
        '',
        '● OK.',
        '',
        '✻ Sautéed for 0s',
        '',
        '─'.repeat(100),
        '❯ ',
        '─'.repeat(100),
        '  ? for shortcuts · ← for agents',
      ];
      expect(extractAnswer(screen, question, P.claude!)).toBe('OK.');
    });

    it('Codex in its alternate screen: only the end of the echo is left', () => {
      const screen = [
        ...Array.from({ length: 18 }, (_, i) => `  ${q(i + 283)}`),
        '',
        '',
        '• OK.',
        '',
        '  Worked for <1s • 08:48',
        '',
        '',
        '› Ask Codex to do anything',
        '',
        '  fake-model default · /tmp/project · Line 1 of a long question:',
        '  what is 1+1? Line 2 of a long qu…',
        '  ← for agents · ? for shortcuts',
      ];
      expect(extractAnswer(screen, question, P.codex!)).toBe('OK.');
    });
  });
});

describe('a one-line message longer than the screen keeps (a ~100 KB question, as Gemini CLI 0.61, Claude Code 2.1.197 and Codex 0.171 show it)', () => {
  const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
  const question = `${Array.from({ length: 10_090 }, (_, i) => `${WORDS[i % 8]}${i}`).join(' ')} What is the count?`;
  /** The question wrapped at 96 columns, as the agents lay it out (without the prompt mark). */
  const rows = ((): string[] => {
    const out: string[] = [];
    let row = '';
    for (const word of question.split(' ')) {
      if (row !== '' && row.length + 1 + word.length > 96) {
        out.push(row);
        row = word;
      } else row = row === '' ? word : `${row} ${word}`;
    }
    return [...out, row];
  })();
  const answer = 'Answer to a question of 102420 characters.';

  it("Gemini: the echo's start left the scrollback, the buffer starts inside it; the submit's viewport row is stale", () => {
    // The daemon's screen keeps 1,000 rows of scrollback: the echo's first ~140 rows are gone,
    // and the rows' indices moved up by as many (the viewport top at the submit now points
    // into the echo).
    const screen = [
      ...rows.slice(140).map((r) => `   ${r}`),
      '▀'.repeat(100),
      `✦ ${answer}`,
      '',
      '',
      `${' '.repeat(84)}? for shortcuts`,
      '─'.repeat(100),
      ' Shift+Tab to accept edits',
      '▄'.repeat(100),
      ' >   Type your message or @path/to/file',
      '▀'.repeat(100),
      ' workspace (/directory)                                           sandbox                    /model',
      ' /tmp/project                                                     no sandbox                   Auto',
    ];
    expect(extractAnswer(screen, question, P.gemini!, { fallbackStart: 40 })).toBe(answer);
  });

  it('Claude: the middle hidden behind "(0 lines hidden)"; the answer starts after the last row', () => {
    const screen = [
      `❯ ${rows[0]}`,
      ...rows.slice(1, 40).map((r) => `  ${r}`),
      `  ──── (0 lines hidden) ${'─'.repeat(70)}`,
      ...rows.slice(-20).map((r) => `  ${r}`),
      '',
      `● ${answer}`,
      '',
      '✻ Cogitated for 0s',
      '',
      '─'.repeat(100),
      '❯ ',
      '─'.repeat(100),
      '  ? for shortcuts · ← for agents',
    ];
    expect(extractAnswer(screen, question, P.claude!)).toBe(answer);
  });

  it('Codex in its alternate screen: only the end of the echo is left', () => {
    const screen = [
      ...rows.slice(-18).map((r) => `  ${r}`),
      '',
      '',
      `• ${answer}`,
      '',
      '  Worked for <1s • 09:05',
      '',
      '',
      '› Ask Codex to do anything',
      '',
      '  fake-model default · /tmp/project · alpha0 bravo1 charlie2',
      '  delta3 echo4 foxtrot5 golf6 hotel7 a…',
      '  ← for agents · ? for shortcuts',
    ];
    expect(extractAnswer(screen, question, P.codex!)).toBe(answer);
  });

  it('an answer row that ends like the question does not end the echo', () => {
    const screen = [
      ...rows.slice(-18).map((r) => `  ${r}`),
      '',
      '• You asked:',
      '  What is the count?',
      '  It is 10090.',
      '',
      '› Ask Codex to do anything',
    ];
    expect(extractAnswer(screen, question, P.codex!)).toBe(
      'You asked:\nWhat is the count?\nIt is 10090.',
    );
  });
});

describe('echoEnd: an echo whose start is not on screen', () => {
  const earlier = [
    ' > Two lines, run 6:',
    '   the second one asks why?',
    '',
    '✦ Answer to a question of 42 characters.',
    '',
    ' > Line 1 of a long question',
    '   Line 2 of a long question',
    '',
    '✦ Answer to a question of 56 characters.',
    '',
  ];
  const asked = 'Two lines, run 8:\nthe second one asks why?';

  it("is not an earlier message's that ends the same way, above the screen at the submit", () => {
    // Submitted with the screen's first row at 5; its echo is not drawn yet.
    expect(echoEnd(earlier, earlier.length, asked, undefined, 5)).toBe(0);
  });

  it("is still found from its last line below that row (Codex's alternate screen cut its start)", () => {
    const cut = [...earlier, '   the second one asks why?', '', '✦ The new answer.'];
    expect(echoEnd(cut, cut.length, asked, undefined, 5)).toBe(earlier.length + 2);
  });
});
