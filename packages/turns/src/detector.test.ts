import { describe, expect, it } from 'vitest';
import { answerTail } from './answer-drawn.js';
import { BUILTIN_PRESETS } from './builtin-presets.js';
import {
  MAX_LINE_CHARS,
  NO_REACTION_MS,
  PROMPT_QUIET_MS,
  RECORDED_SETTLE_MS,
} from './constants.js';
import { TurnDetector, type DetectorEvent, type ScreenSnapshot } from './detector.js';
import { BASH_SESSION, NODE_SESSION, PYTHON_SESSION } from './fixtures/sessions.js';
import {
  CLAUDE_BUSY,
  CLAUDE_DIALOG,
  CLAUDE_IDLE_AFTER_ANSWER,
  CODEX_ANSWER,
  CODEX_APPROVAL,
  CODEX_APPROVAL_CLOSING,
  CODEX_APPROVED_WORKING,
} from './fixtures/screens.js';
import type { Preset } from './preset-types.js';
import { readMenu } from './menu.js';
import { resolvePreset } from './presets.js';
import { decode, play, turns, type Step } from './test-support/play.js';
import { readScreen } from './test-support/screen-cases.js';

const enc = new TextEncoder();
const bytes = (s: string): Uint8Array => enc.encode(s);
const bash = (): TurnDetector => new TurnDetector({ preset: BUILTIN_PRESETS.bash! });
const PROMPT = '\x1b[?2004h\x1b[1;32muser@host\x1b[0m:~$ ';

/** A ready bash-like session: the first prompt was shown and detected. */
function readyBash(): TurnDetector {
  const d = bash();
  play(d, [[0, 'o', PROMPT]], 100);
  expect(d.state).toBe('idle');
  return d;
}

describe('TurnDetector (line presets): prompts inside a block of lines', () => {
  // Lines after the first in one chunk are found by one multi-line scan; these must behave
  // exactly as a test of every line would.
  const body = Array.from({ length: 500 }, (_, i) => `line ${i} of output\r\n`).join('');

  const cases: [string, Preset, string][] = [
    ['a prompt line in the middle of a chunk', BUILTIN_PRESETS.bash!, '$ \r\n'],
    ['a prompt after a carriage return (redrawn line)', BUILTIN_PRESETS.bash!, 'junk\r$ \r\n'],
    [
      "a user's pattern (linear-time engine, a test per line, no multi-line scan)",
      { ...BUILTIN_PRESETS.bash!, name: 'mine', pattern: String.raw`^\$ $` },
      '$ \r\n',
    ],
    ['an empty-line pattern', { ...BUILTIN_PRESETS.bash!, name: 'empty', pattern: '^$' }, '\r\n'],
  ];

  for (const [what, preset, promptLine] of cases) {
    it(`ends the turn at ${what}`, () => {
      const d = new TurnDetector({ preset });
      const first = preset.pattern === '^$' ? '\r\n' : '$ ';
      play(d, [[0, 'o', first]], 100);
      const events = play(d, [
        [200, 'i', 'x\r'],
        [201, 'o', 'x\r\n'],
        [202, 'o', body + promptLine + body],
      ]);
      const [t] = turns(events);
      expect(t).toBeDefined();
      expect(decode(t!.content)).toBe(body);
    });
  }

  it('finds no prompt where no line matches, however long the block', () => {
    const d = readyBash();
    const events = play(d, [
      [200, 'i', 'x\r'],
      [201, 'o', 'x\r\n'],
      [202, 'o', body + 'not a prompt: $ x\r\n' + body],
    ]);
    expect(turns(events)).toHaveLength(0);
  });
});

describe('TurnDetector (line presets): the turn contract', () => {
  it('treats the first prompt as session ready: an event, not a turn', () => {
    const events = play(bash(), [[0, 'o', 'Welcome\r\n' + PROMPT]]);
    expect(events.map((e) => e.type)).toEqual(['ready', 'state']);
    expect(events[1]).toMatchObject({ type: 'state', state: 'idle' });
  });

  it('makes one turn of input submitted → output → prompt, with the exact bytes between', () => {
    const d = readyBash();
    const events = play(d, [
      [200, 'i', 'ls'],
      [201, 'o', 'ls'],
      [300, 'i', '\r'],
      [301, 'o', '\r\n\x1b[?2004l\r'],
      [305, 'o', 'a.txt  \x1b[34mdir\x1b[0m\r\n'],
      [306, 'o', PROMPT],
    ]);
    const [t] = turns(events);
    expect(turns(events)).toHaveLength(1);
    expect(decode(t!.content)).toBe('\x1b[?2004l\ra.txt  \x1b[34mdir\x1b[0m\r\n');
    expect(t).toMatchObject({
      text: 'a.txt  dir',
      prompt: 'user@host:~$ ',
      input: 'ls',
      interrupted: false,
      truncated: false,
    });
    expect(t!.startedAt).toBe(300);
    expect(t!.endedAt).toBe(306 + PROMPT_QUIET_MS);
  });

  it('takes the input from the line the shell ran when keys it cannot follow edited it (↑, Tab)', () => {
    const d = readyBash();
    const events = play(d, [
      [200, 'i', 'echo hi'],
      [201, 'o', 'echo hi'],
      [300, 'i', '\r'],
      [301, 'o', '\r\n\x1b[?2004l\rhi\r\n' + PROMPT],
      // ↑ recalls it: the keys hold no text, the line shows it.
      [500, 'i', '\x1b[A'],
      [501, 'o', 'echo hi'],
      [600, 'i', '\r'],
      [601, 'o', '\r\n\x1b[?2004l\rhi\r\n' + PROMPT],
      // Tab completes `ec` to `echo `: the keys hold `ecthere`.
      [800, 'i', 'ec'],
      [801, 'o', 'ec'],
      [900, 'i', '\t'],
      [901, 'o', 'ho '],
      [1000, 'i', 'there'],
      [1001, 'o', 'there'],
      [1100, 'i', '\r'],
      [1101, 'o', '\r\n\x1b[?2004l\rthere\r\n' + PROMPT],
    ]);
    expect(turns(events).map((t) => [t.input, t.text])).toEqual([
      ['echo hi', 'hi'],
      ['echo hi', 'hi'],
      ['echo there', 'there'],
    ]);
  });

  it('never makes an empty turn from repeated prompts (Enter on an empty line, commands printing nothing)', () => {
    const d = readyBash();
    const events = play(d, [
      [200, 'i', '\r'],
      [201, 'o', '\r\n\x1b[?2004l\r' + PROMPT],
      [300, 'i', 'cd /tmp\r'],
      [301, 'o', 'cd /tmp\r\n\x1b[?2004l\r' + PROMPT],
      [400, 'o', '\r\n' + PROMPT],
    ]);
    expect(turns(events)).toEqual([]);
    expect(d.state).toBe('idle');
  });

  it('flags a turn interrupted when Ctrl-C was sent during it', () => {
    const d = readyBash();
    const events = play(d, [
      [200, 'i', 'sleep 100\r'],
      [201, 'o', 'sleep 100\r\n\x1b[?2004l\r'],
      [900, 'i', '\x03'],
      [901, 'o', '^C\r\n' + PROMPT],
    ]);
    expect(turns(events)).toMatchObject([{ interrupted: true, text: '' }]);
  });

  it('excludes the echo of the typed input, whether it arrives before or after Enter', () => {
    const before = play(readyBash(), [
      [200, 'i', 'echo hi'],
      [201, 'o', 'echo hi'],
      [300, 'i', '\r'],
      [301, 'o', '\r\nhi\r\n' + PROMPT],
    ]);
    const after = play(readyBash(), [
      [200, 'i', 'echo hi\r'],
      [205, 'o', 'ec'],
      [206, 'o', 'ho hi\r\nhi\r\n' + PROMPT],
    ]);
    expect(turns(before).map((t) => decode(t.content))).toEqual(['hi\r\n']);
    expect(turns(after).map((t) => decode(t.content))).toEqual(['hi\r\n']);
  });

  it("excludes the echo of a paste longer than the output kept between turns (bash's 100 KB line)", () => {
    // As bash 5.2 draws it at 80 columns: the pasted line echoed row by row (each full row
    // followed by the next one's first character, to wrap, and a CR), more than
    // MAX_IDLE_RAW_BYTES, so the echo's start is no longer kept at Enter; at Enter the screen's
    // 24 rows drawn again, each after a bare CR — on the one row, as a terminal renders it (the
    // last row ends up `avo10089082 delta10083 …`) — then a line feed and the command's output.
    const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
    const words = Array.from({ length: 10_090 }, (_, i) => `${WORDS[i % 8]}${i}`).join(' ');
    const line = `echo ${words}`;
    const shown = `$ ${line}`;
    const rows = Array.from({ length: Math.ceil(shown.length / 80) }, (_, i) =>
      shown.slice(i * 80, i * 80 + 80),
    );
    const d = new TurnDetector({ preset: BUILTIN_PRESETS.bash!, cols: 80 });
    const echo = rows.map((r, i) => (i + 1 < rows.length ? `${r}${rows[i + 1]![0]}\r` : r));
    play(d, [[0, 'o', '\x1b[?2004h$ ']], 100);
    const events = play(d, [
      [200, 'i', `\x1b[200~${line}\x1b[201~`],
      [201, 'o', echo.join('').slice(2)],
      [300, 'i', '\r'],
      [301, 'o', `\r${rows.slice(-24).join('\r')}\r\n\x1b[?2004l\r${words}\r\n\x1b[?2004h$ `],
    ]);
    expect(turns(events).map((t) => t.text)).toEqual([words]);
  });

  it('follows backspaces in what was typed when removing the echo', () => {
    const events = play(readyBash(), [
      [200, 'i', 'echo hx\x7fi\r'],
      [201, 'o', 'echo hi\r\nhi\r\n' + PROMPT],
    ]);
    expect(turns(events).map((t) => decode(t.content))).toEqual(['hi\r\n']);
  });

  it('excludes the prompt line, and output on the same line before the prompt', () => {
    const events = play(readyBash(), [
      [200, 'i', 'x\r'],
      [201, 'o', 'x\r\nline one\r\npartial\x1b[0m' + PROMPT],
    ]);
    // The prompt's line begins with the rest of the answer (printed without a final newline).
    expect(turns(events).map((t) => decode(t.content))).toEqual(['line one\r\npartial\x1b[0m']);
  });

  it('never completes a turn by time alone: no prompt, no turn, however long the wait', () => {
    const d = readyBash();
    const events = play(
      d,
      [
        [200, 'i', 'make\r'],
        [201, 'o', 'make\r\nbuilding...\r\nstill building'],
      ],
      10_000_000,
    );
    expect(turns(events)).toEqual([]);
    expect(d.state).toBe('busy');
    expect(d.nextDeadline()).toBeNull();
  });

  it('detects a prompt without a newline once output pauses, and not before', () => {
    const d = readyBash();
    play(
      d,
      [
        [200, 'i', 'true; echo ok\r'],
        [201, 'o', 'true; echo ok\r\nok\r\n' + PROMPT],
      ],
      201,
    );
    expect(d.nextDeadline()).toBe(201 + PROMPT_QUIET_MS);
    expect(turns(d.tick(201 + PROMPT_QUIET_MS - 1))).toEqual([]);
    expect(turns(d.tick(201 + PROMPT_QUIET_MS))).toHaveLength(1);
    expect(d.nextDeadline()).toBeNull();
  });

  it('also detects a prompt on a terminated line (matched per line)', () => {
    const d = new TurnDetector({ preset: resolvePreset(undefined, { pattern: '^READY>$' }) });
    const events = play(d, [
      [0, 'o', 'READY>\r\n'],
      [10, 'i', 'go\r'],
      [11, 'o', 'go\r\nworking\r\nREADY>\r\n'],
    ]);
    expect(events.filter((e) => e.type === 'ready')).toHaveLength(1);
    expect(turns(events).map((t) => t.text)).toEqual(['working']);
  });

  it('finds a prompt whose escape sequences and characters are split across chunks', () => {
    const d = new TurnDetector({ preset: BUILTIN_PRESETS.zsh! });
    const prompt = bytes('\x1b[1;36mproj\x1b[0m \x1b]0;zsh\x07\x1b[1;32m❯\x1b[0m \x1b[K');
    const steps: Step[] = Array.from(prompt, (b, i) => [i, 'o', new Uint8Array([b])]);
    const events = play(d, steps);
    expect(events[0]).toEqual({ type: 'ready', at: prompt.length - 1 + PROMPT_QUIET_MS });
  });

  it('keeps multi-byte UTF-8 split across chunks: exact bytes in content, whole characters in text', () => {
    const out = bytes('héllo 🌱 wörld\r\n');
    const steps: Step[] = [
      [200, 'i', 'say\r'],
      [201, 'o', 'say\r\n'],
    ];
    out.forEach((b, i) => steps.push([202 + i, 'o', new Uint8Array([b])]));
    steps.push([300, 'o', PROMPT]);
    const [t] = turns(play(readyBash(), steps));
    expect(t!.content).toEqual(out);
    expect(t!.text).toBe('héllo 🌱 wörld');
  });

  it('preserves invalid UTF-8 byte-for-byte in content', () => {
    const raw = new Uint8Array([0x62, 0x69, 0x6e, 0xff, 0xfe, 0xc3, 0x28, 0x80, 0x0d, 0x0a]);
    const [t] = turns(
      play(readyBash(), [
        [200, 'i', 'cat bin\r'],
        [201, 'o', 'cat bin\r\n'],
        [202, 'o', raw],
        [203, 'o', PROMPT],
      ]),
    );
    expect(t!.content).toEqual(raw);
    expect(t!.text).toBe('bin\ufffd\ufffd\ufffd(\ufffd');
  });

  it('cuts content longer than maxTurnBytes and flags the turn truncated', () => {
    const d = new TurnDetector({ preset: BUILTIN_PRESETS.bash!, maxTurnBytes: 10 });
    const events = play(d, [
      [0, 'o', PROMPT],
      [100, 'i', 'x\r'],
      [101, 'o', 'x\r\n0123456789abcdef\r\n' + PROMPT],
    ]);
    expect(turns(events).map((t) => [decode(t.content), t.truncated])).toEqual([
      ['0123456789', true],
    ]);
  });

  it('gives a turn content of its own, cut inside a later chunk when longer than maxTurnBytes', () => {
    const d = new TurnDetector({ preset: BUILTIN_PRESETS.bash!, maxTurnBytes: 12 });
    const events = play(d, [
      [0, 'o', PROMPT],
      [100, 'i', 'x\r'],
      [101, 'o', 'x\r\n'],
      [102, 'o', '0123'],
      [103, 'o', '4567'],
      [104, 'o', '89abcdef\r\n' + PROMPT],
    ]);
    const [t] = turns(events);
    expect([decode(t!.content), t!.truncated]).toEqual(['0123456789ab', true]);
    // The pipeline worker hands this buffer to the main thread: it must hold nothing else.
    expect(t!.content.byteOffset).toBe(0);
    expect(t!.content.buffer.byteLength).toBe(12);
  });

  it('keeps the session pattern fixed: changing the preset object later has no effect', () => {
    const preset: Preset = { ...BUILTIN_PRESETS.bash!, checkedOn: [] };
    const d = new TurnDetector({ preset });
    preset.pattern = '^never$';
    expect(play(d, [[0, 'o', PROMPT]]).map((e) => e.type)).toContain('ready');
    expect(d.preset.pattern).toBe(BUILTIN_PRESETS.bash!.pattern);
  });

  it('does not start a turn for input submitted before the first prompt', () => {
    const d = bash();
    const events = play(d, [
      [0, 'i', 'early\r'],
      [1, 'o', 'loading\r\n'],
      [50, 'o', PROMPT],
    ]);
    expect(turns(events)).toEqual([]);
    expect(d.state).toBe('idle');
  });

  it('treats newlines inside a bracketed paste as text, not as Enter', () => {
    const d = readyBash();
    const events = play(d, [
      [200, 'i', '\x1b[200~echo a\necho b\x1b[201~'],
      [201, 'o', 'echo a\r\n> echo b'],
      [300, 'i', '\r'],
      [301, 'o', '\r\na\r\nb\r\n' + PROMPT],
    ]);
    expect(events.filter((e) => e.type === 'state' && e.state === 'busy')).toHaveLength(1);
    expect(turns(events).map((t) => t.text)).toEqual(['a\nb']);
  });

  it('resolves redraws in text (\\r overwrites, erase-line) while content stays raw', () => {
    const out = 'fetch\r\n 10%\r 50%\r\x1b[2Kdone\r\n';
    const [t] = turns(
      play(readyBash(), [
        [200, 'i', 'fetch\r'],
        [201, 'o', out + PROMPT],
      ]),
    );
    expect(decode(t!.content)).toBe(out.slice('fetch\r\n'.length));
    expect(t!.text).toBe('done');
  });

  it('reports a question (a blocked marker on the last line) as a state, then continues the turn', () => {
    const d = new TurnDetector({ preset: BUILTIN_PRESETS.aider! });
    const events = play(d, [
      [0, 'o', '> '],
      [100, 'i', 'fix it\r'],
      [101, 'o', 'fix it\r\nAdd app.py to the chat? (Y)es/(N)o [Yes]: '],
      [500, 'i', 'y\r'],
      [501, 'o', 'y\r\nDone.\r\n> '],
    ]);
    const states = events
      .filter((e) => e.type === 'state')
      .map((e) => (e as { state: string }).state);
    expect(states).toEqual(['idle', 'busy', 'blocked', 'busy', 'idle']);
    expect(turns(events)).toHaveLength(1);
    expect(turns(events)[0]!.text).toContain('Done.');
  });

  it("reads a line program's question: its choices, and the output above it as detail", () => {
    const d = new TurnDetector({ preset: BUILTIN_PRESETS.aider! });
    const events = play(d, [
      [0, 'o', '> '],
      [100, 'i', 'run the tests\r'],
      [
        101,
        'o',
        "run the tests\r\nI will run them.\r\n\r\n\x1b[1mnpm test\x1b[0m\r\nRun shell command? (Y)es/(N)o/(D)on't ask again [Yes]: ",
      ],
    ]);
    const at = events.findIndex((e) => e.type === 'menu');
    expect(events[at + 1]).toMatchObject({ type: 'state', state: 'blocked' });
    expect(events[at]).toMatchObject({
      type: 'menu',
      menu: {
        question: 'Run shell command?',
        detail: ['npm test'],
        style: 'letters',
        options: [
          { label: 'Yes', keys: ['y', 'Enter'], selected: true },
          { label: 'No', keys: ['n', 'Enter'], selected: false },
          { label: "Don't ask again", keys: ['d', 'Enter'], selected: false },
        ],
      },
    });
  });

  it('shows the text of a turn while it grows, as it will be when it completes', () => {
    const d = new TurnDetector({ preset: BUILTIN_PRESETS.aider! });
    play(d, [[0, 'o', '> ']]);
    expect(d.partialText()).toBeNull(); // no turn open
    play(d, [
      [100, 'i', 'hi\r'],
      [101, 'o', 'hi\r\n'],
    ]);
    expect(d.partialText()).toBe('');
    play(d, [[200, 'o', 'First line.\r\nSecond']]);
    expect(d.partialText()).toBe('First line.\nSecond');
    const events = play(d, [[300, 'o', ' line.\r\n\r\nTokens: 1k sent, 2 received.\r\n> ']]);
    const [t] = turns(events);
    expect(t!.text).toBe('First line.\nSecond line.');
    expect(d.partialText()).toBeNull();
  });

  it('ends the text of an aider turn at its rule: the files in the chat below it are prompt area', () => {
    const d = new TurnDetector({ preset: BUILTIN_PRESETS.aider! });
    const events = play(d, [
      [0, 'o', '> '],
      [100, 'i', 'hi\r'],
      [
        101,
        'o',
        'hi\r\nHello!\r\n\r\nTokens: 1k sent, 5 received.\r\n' +
          '─'.repeat(40) +
          '\r\napp.py\r\n> ',
      ],
    ]);
    expect(turns(events).map((t) => t.text)).toEqual(['Hello!']);
  });

  it('keeps detector memory bounded when an agent prints a huge line without a newline', () => {
    const d = readyBash();
    d.onInput(bytes('yes\r'), 200);
    const chunk = bytes('y'.repeat(64 * 1024));
    for (let i = 0; i < 64; i++) d.onOutput(chunk, 201 + i);
    const line = (d as unknown as { watcher: { lineText: string } }).watcher.lineText;
    expect(line.length).toBeLessThanOrEqual(2 * MAX_LINE_CHARS);
  });

  it('handles real bash, Python and Node sessions captured on a PTY', () => {
    const summary = (events: DetectorEvent[]): [string, boolean][] =>
      turns(events).map((t) => [t.text, t.interrupted]);
    expect(
      summary(play(new TurnDetector({ preset: BUILTIN_PRESETS.bash! }), BASH_SESSION)),
    ).toEqual([
      ['hi', false],
      ['a\nb', false], // "b" shares the prompt's line, before the prompt: part of the answer
      ['', true], // the terminal's ^C echo is input, not answer (the raw content keeps it)
    ]);
    expect(
      summary(play(new TurnDetector({ preset: BUILTIN_PRESETS.python! }), PYTHON_SESSION)),
    ).toEqual([
      ['2', false],
      ['héllo', false],
      [
        'Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\nKeyboardInterrupt',
        true,
      ],
    ]);
    expect(
      summary(play(new TurnDetector({ preset: BUILTIN_PRESETS.node! }), NODE_SESSION)),
    ).toEqual([
      ['2', false],
      ['x\nundefined', false],
    ]);
    // The generic fallback finds the same turns in all three.
    for (const [session, specific] of [
      [BASH_SESSION, 'bash'],
      [PYTHON_SESSION, 'python'],
      [NODE_SESSION, 'node'],
    ] as const) {
      const generic = summary(
        play(new TurnDetector({ preset: BUILTIN_PRESETS.generic! }), session),
      );
      expect(generic).toEqual(
        summary(play(new TurnDetector({ preset: BUILTIN_PRESETS[specific]! }), session)),
      );
    }
  });
});

/** A screen snapshot of the given viewport lines (no scrollback). */
function snap(lines: string[]): ScreenSnapshot {
  return { lines, viewportTop: 0, rows: lines.length, cols: 80 };
}

const CLAUDE_EMPTY = [
  ' ▐▛███▜▌   Claude Code v2.1.40',
  '',
  '─'.repeat(60),
  '❯ ',
  '─'.repeat(60),
  '  ? for shortcuts',
];

describe('TurnDetector (screen presets)', () => {
  const claude = (): TurnDetector => new TurnDetector({ preset: BUILTIN_PRESETS.claude! });
  const settle = BUILTIN_PRESETS.claude!.settleMs ?? 200;

  /** A Claude session that became ready at t=0..settle. */
  function readyClaude(): TurnDetector {
    const d = claude();
    expect(d.needsScreen).toBe(true);
    d.onOutput(bytes('\x1b[?2026hbanner'), 0);
    d.onScreen(snap(CLAUDE_EMPTY), 1);
    expect(d.nextDeadline()).toBe(1 + 200);
    expect(d.tick(1 + 200).map((e) => e.type)).toEqual(['ready', 'state']);
    return d;
  }

  it('asks for no deadline it has already looked at: a submit still in the input box waits for output, not for a tick', () => {
    const d = readyClaude();
    d.onInput(bytes('What is the capital of France?\r'), 1000);
    // The agent redraws its box still holding the text (it has not taken the Enter yet).
    const held = [...CLAUDE_EMPTY];
    held[3] = '❯ What is the capital of France?';
    d.onOutput(bytes('redraw'), 1010);
    d.onScreen(snap(held), 1020);
    const deadline = d.nextDeadline();
    expect(deadline).toBe(1020 + settle);
    expect(turns(d.tick(deadline!))).toEqual([]); // not taken: no turn
    // Looked at, and nothing changed since: the same deadline again would have the caller
    // tick at once, for good (the daemon's timer spun, and a replay loop never ended).
    expect(d.nextDeadline()).toBeNull();
    d.onOutput(bytes('answer'), 1500);
    d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 1510);
    expect(d.nextDeadline()).toBe(1510 + settle);
  });

  it('is ready once the idle screen has settled, not before', () => {
    const d = claude();
    d.onOutput(bytes('x'), 0);
    expect(d.onScreen(snap(CLAUDE_EMPTY), 5)).toEqual([]);
    expect(d.tick(5 + settle - 1)).toEqual([]);
    expect(d.tick(5 + settle)[0]).toEqual({ type: 'ready', at: 5 + settle });
  });

  it('completes a turn when the screen is idle and settled after output, with all output bytes as content', () => {
    const d = readyClaude();
    expect(d.onInput(bytes('What is the capital of France?\r'), 1000)).toEqual([
      { type: 'state', state: 'busy', at: 1000 },
    ]);
    d.onOutput(bytes('\x1b[2Kspinner'), 1010);
    d.onScreen(snap(CLAUDE_BUSY), 1020);
    expect(d.tick(5000)).toEqual([]); // busy: no completion by time
    d.onOutput(bytes('\x1b[1Aanswer'), 5100);
    d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 5110);
    expect(d.tick(5110 + settle - 1)).toEqual([]);
    const events = d.tick(5110 + settle);
    expect(turns(events)).toHaveLength(1);
    const [t] = turns(events);
    expect(decode(t!.content)).toBe('\x1b[2Kspinner\x1b[1Aanswer');
    expect(t).toMatchObject({
      text: 'The capital of France is Paris.\n\nIt sits on the Seine.',
      prompt: '❯',
      interrupted: false,
      startedAt: 1000,
      endedAt: 5110 + settle,
    });
    expect(d.state).toBe('idle');
  });

  it('a submit is taken on evidence only: a redraw read half-way is none; the text gone from the box counts once that screen stayed', () => {
    const d = readyClaude();
    const rule = '─'.repeat(60);
    const box = (...lines: string[]) => [
      ...CLAUDE_EMPTY.slice(0, 2),
      rule,
      ...lines,
      rule,
      '  ? for shortcuts',
    ];
    d.onInput(bytes('\x1b[200~What is 2+2?\x1b[201~'), 1000);
    d.onOutput(bytes('a'), 1001);
    d.onScreen(snap(box('❯ What is 2+2?')), 1002);
    d.onInput(bytes('\r'), 1100);
    // The TUI erases its box to draw it again; a loaded machine reads that in two pieces.
    d.onOutput(bytes('b'), 1110);
    d.onScreen(snap(CLAUDE_EMPTY.slice(0, 2)), 1111);
    expect(d.submits).toEqual({ sent: 1, taken: 0 });
    // Drawn again: it took the Enter as a newline, the text waits in the box.
    d.onOutput(bytes('c'), 1120);
    d.onScreen(snap(box('❯ What is 2+2?', '')), 1121);
    expect(d.tick(1121 + settle)).toEqual([]);
    expect(d.submits).toEqual({ sent: 1, taken: 0 });
    // Enter again: the box is empty, the message above it; taken once that screen stayed.
    d.onInput(bytes('\r'), 2000);
    d.onOutput(bytes('d'), 2010);
    d.onScreen(snap([...CLAUDE_EMPTY.slice(0, 2), '❯ What is 2+2?', '', ...box('❯ ')]), 2011);
    expect(d.submits).toEqual({ sent: 2, taken: 0 });
    d.tick(2011 + settle);
    expect(d.submits).toEqual({ sent: 2, taken: 2 });
  });

  it('completes a first answer drawn in one frame at the top of a tall terminal (no busy screen seen)', () => {
    // Seen with Claude Code 2.1.197 under load, 100x40: the question pasted into the box near the
    // top, then one frame with the answer and the prompt below it, no spinner, no title change.
    // The blank rows under the box had pushed it out of the bottom region, its text was taken
    // for an old echo of the question, and the turn waited for a newer echo for good.
    const tall = (lines: string[]): ScreenSnapshot => {
      const padded = [...lines, ...Array<string>(40 - lines.length).fill('')];
      return { lines: padded, viewportTop: 0, rows: 40, cols: 100 };
    };
    const d = claude();
    d.onOutput(bytes('banner'), 0);
    d.onScreen(tall(CLAUDE_EMPTY), 1);
    d.tick(1 + settle);
    expect(d.state).toBe('idle');
    const q = 'Please give the list answer.';
    const boxWith = (text: string) => [
      ...CLAUDE_EMPTY.slice(0, 3),
      `❯ ${text}`,
      '─'.repeat(60),
      '',
    ];
    d.onInput(bytes(`\x1b[200~${q}\x1b[201~`), 1000);
    d.onOutput(bytes('paste'), 1010);
    d.onScreen(tall(boxWith(q)), 1020);
    d.onInput(bytes('\r'), 1100);
    d.onOutput(bytes('answer'), 1500);
    const answered = [
      ...CLAUDE_EMPTY.slice(0, 2),
      `❯ ${q}`,
      '',
      '● Steps:',
      '  1. Read the file.',
      '',
      '✻ Sautéed for 0s',
      '',
      ...CLAUDE_EMPTY.slice(2),
    ];
    d.onScreen(tall(answered), 1510);
    const [t] = turns(d.tick(1510 + settle));
    expect(t).toMatchObject({ input: q, text: 'Steps:\n1. Read the file.' });
    expect(d.state).toBe('idle');
  });

  describe("the agent's record says the turn ended (recordedEnd)", () => {
    it('completes the turn RECORDED_SETTLE_MS after the idle screen last changed, not the settle window', () => {
      const d = readyClaude();
      d.onInput(bytes('What is the capital of France?\r'), 1000);
      expect(d.currentTurn).toEqual({ input: 'What is the capital of France?', startedAt: 1000 });
      d.onOutput(bytes('spinner'), 1010);
      d.onScreen(snap(CLAUDE_BUSY), 1020);
      d.onOutput(bytes('answer'), 5100);
      d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 5110);
      expect(d.recordedEnd(1000, 5120)).toEqual([]); // quiet for 10 ms only
      expect(d.nextDeadline()).toBe(5110 + RECORDED_SETTLE_MS);
      const [t] = turns(d.tick(5110 + RECORDED_SETTLE_MS));
      expect(t).toMatchObject({
        text: 'The capital of France is Paris.\n\nIt sits on the Seine.',
        startedAt: 1000,
        endedAt: 5110 + RECORDED_SETTLE_MS,
      });
      expect(d.currentTurn).toBeNull();
    });

    it('an idle screen quiet long enough already completes the turn at once', () => {
      const d = readyClaude();
      d.onInput(bytes('What is the capital of France?\r'), 1000);
      d.onOutput(bytes('spinner'), 1010);
      d.onScreen(snap(CLAUDE_BUSY), 1020);
      d.onOutput(bytes('answer'), 5100);
      d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 5110);
      expect(turns(d.recordedEnd(1000, 5110 + RECORDED_SETTLE_MS + 5))).toHaveLength(1);
    });

    it('the screen stays the authority: no turn ends while it shows work, a dialog, or output not yet read', () => {
      const d = readyClaude();
      d.onInput(bytes('What is the capital of France?\r'), 1000);
      d.onOutput(bytes('spinner'), 1010);
      d.onScreen(snap(CLAUDE_BUSY), 1020);
      expect(d.recordedEnd(1000, 1030)).toEqual([]);
      expect(d.tick(5000)).toEqual([]); // busy: the record changes nothing
      d.onOutput(bytes('dialog'), 5010);
      d.onScreen(snap(CLAUDE_DIALOG), 5020);
      expect(turns(d.tick(6000))).toEqual([]);
      expect(d.state).toBe('blocked');
      d.onOutput(bytes('answer'), 6100);
      d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 6110);
      d.onOutput(bytes('more'), 6120); // not read yet: the screen is not fresh
      expect(d.tick(6200)).toEqual([]);
      expect(turns(d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 6210))).toHaveLength(1);
    });

    it('a redraw after the prompt restarts the shorter wait: the turn ends after the last one', () => {
      const d = readyClaude();
      d.onInput(bytes('What is the capital of France?\r'), 1000);
      d.onOutput(bytes('spinner'), 1010);
      d.onScreen(snap(CLAUDE_BUSY), 1020);
      d.onOutput(bytes('answer'), 2000);
      d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 2010);
      d.recordedEnd(1000, 2020);
      const more = [...CLAUDE_IDLE_AFTER_ANSWER];
      more.splice(more.indexOf('  It sits on the Seine.') + 1, 0, '', '  A last line drawn late.');
      d.onOutput(bytes('late'), 2040);
      expect(d.onScreen(snap(more), 2050)).toEqual([]);
      expect(d.tick(2010 + RECORDED_SETTLE_MS)).toEqual([]);
      const [t] = turns(d.tick(2050 + RECORDED_SETTLE_MS));
      expect(t!.text).toContain('A last line drawn late.');
      expect(t!.endedAt).toBe(2050 + RECORDED_SETTLE_MS);
    });

    it("waits the usual settle while the screen does not show the record's answer's end: a frame drawn in pieces ends whole", () => {
      // Codex's long answer on its full screen, under load: the idle frame came in two pieces
      // 100 ms apart, and a wait of RECORDED_SETTLE_MS ended the turn on the first.
      const d = readyClaude();
      d.onInput(bytes('What is the capital of France?\r'), 1000);
      d.onOutput(bytes('spinner'), 1010);
      d.onScreen(snap(CLAUDE_BUSY), 1020);
      const half = CLAUDE_IDLE_AFTER_ANSWER.map((l) =>
        l === '  It sits on the Seine.' ? '  It si' : l,
      );
      d.onOutput(bytes('answer'), 2000);
      d.onScreen(snap(half), 2010);
      const tail = answerTail('The capital of France is Paris.\n\nIt sits on the Seine.');
      expect(d.recordedEnd(1000, 2020, tail)).toEqual([]);
      expect(d.tick(2010 + RECORDED_SETTLE_MS)).toEqual([]);
      d.onOutput(bytes('rest'), 2110);
      d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 2120);
      const [t] = turns(d.tick(2120 + RECORDED_SETTLE_MS));
      expect(t!.text).toBe('The capital of France is Paris.\n\nIt sits on the Seine.');
    });

    it('is ignored for another turn than the open one, and for line presets', () => {
      const d = readyClaude();
      d.onInput(bytes('What is the capital of France?\r'), 1000);
      d.onOutput(bytes('answer'), 1010);
      d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 1020);
      expect(d.recordedEnd(999, 1100)).toEqual([]); // an older turn's record
      expect(d.nextDeadline()).toBe(1020 + settle);
      const b = readyBash();
      b.onInput(bytes('echo hi\r'), 10);
      expect(b.recordedEnd(10, 20)).toEqual([]);
    });
  });

  it('waits for a fresh screen: output after the last snapshot blocks completion', () => {
    const d = readyClaude();
    d.onInput(bytes('What is the capital of France?\r'), 1000);
    d.onOutput(bytes('a'), 1001);
    d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 1002);
    d.onOutput(bytes('b'), 1100);
    expect(d.nextDeadline()).toBeNull();
    expect(d.tick(2000)).toEqual([]);
    // The fresh snapshot is the same screen, unchanged since 1002: settled, so the turn completes.
    expect(turns(d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 2001))).toHaveLength(1);
    expect(d.state).toBe('idle');
  });

  it("shows a screen turn's text while it grows, from the same extraction as the turn's", () => {
    const d = readyClaude();
    d.onInput(bytes('What is the capital of France?\r'), 1000);
    expect(d.partialText()).toBe(''); // nothing on screen yet
    d.onOutput(bytes('spinner'), 1010);
    d.onScreen(snap(CLAUDE_BUSY), 1020);
    expect(d.partialText()).toBe(''); // the spinner line is chrome
    const halfway = [...CLAUDE_BUSY];
    halfway.splice(3, 0, '', '⏺ The capital of France is Paris.');
    d.onOutput(bytes('half'), 1030);
    d.onScreen(snap(halfway), 1040);
    const growing = d.partialText();
    expect(growing).toBe('The capital of France is Paris.'); // the answer mark is chrome
    d.onOutput(bytes('answer'), 1100);
    d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 1110);
    const [t] = turns(d.tick(1110 + settle));
    expect(t!.text.startsWith(growing!)).toBe(true);
    expect(d.partialText()).toBeNull();
  });

  it('latches idle until new input: redraws that look busy make no new state or turn', () => {
    const d = readyClaude();
    d.onInput(bytes('What is the capital of France?\r'), 1000);
    d.onOutput(bytes('a'), 1001);
    d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 1002);
    expect(turns(d.tick(1002 + settle))).toHaveLength(1);
    d.onOutput(bytes('redraw'), 1500);
    expect(d.onScreen(snap(CLAUDE_BUSY), 1501)).toEqual([]);
    d.onOutput(bytes('redraw'), 1600);
    expect(d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 1601)).toEqual([]);
    expect(d.tick(9999)).toEqual([]);
    expect(d.state).toBe('idle');
  });

  it('reports a dialog as the blocked state with its menu, not as a turn, and goes on to complete the turn', () => {
    const d = readyClaude();
    d.onInput(bytes('Delete the build folder\r'), 1000);
    d.onOutput(bytes('dialog'), 1001);
    expect(d.onScreen(snap(CLAUDE_DIALOG), 1002)).toEqual([
      { type: 'menu', menu: readMenu(CLAUDE_DIALOG), at: 1002 },
      { type: 'state', state: 'blocked', at: 1002 },
    ]);
    expect(d.partialText()).toBeNull();
    // The same dialog drawn again: nothing new to report.
    d.onOutput(bytes('redraw'), 1003);
    expect(d.onScreen(snap(CLAUDE_DIALOG), 1004)).toEqual([]);
    expect(d.tick(9000)).toEqual([]);
    d.onInput(bytes('1'), 9001);
    d.onOutput(bytes('working'), 9002);
    expect(d.onScreen(snap(CLAUDE_BUSY), 9003)).toEqual([
      { type: 'state', state: 'busy', at: 9003 },
    ]);
    d.onOutput(bytes('done'), 9100);
    d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 9101);
    expect(turns(d.tick(9101 + settle))).toHaveLength(1);
  });

  it('a dialog answered with Enter and drawn once more before it closes is not asked again', () => {
    const d = readyClaude();
    d.onInput(bytes('Delete the build folder\r'), 1000);
    d.onOutput(bytes('dialog'), 1001);
    d.onScreen(snap(CLAUDE_DIALOG), 1002);
    expect(d.state).toBe('blocked');
    expect(d.onInput(bytes('\x1b[B\r'), 2000)).toEqual([
      { type: 'state', state: 'busy', at: 2000 },
    ]);
    // The agent draws the cursor's move before it closes the dialog: the same question.
    const moved = CLAUDE_DIALOG.map((l) =>
      l === ' ❯ 1. Yes' ? '   1. Yes' : l === '   2. No' ? ' ❯ 2. No' : l,
    );
    d.onOutput(bytes('cursor moved'), 2005);
    expect(d.onScreen(snap(moved), 2006)).toEqual([]);
    expect(d.state).toBe('busy');
    d.onOutput(bytes('working'), 2050);
    expect(d.onScreen(snap(CLAUDE_BUSY), 2051)).toEqual([]);
    // Asked again later (the agent worked in between): a question again.
    d.onOutput(bytes('dialog'), 3000);
    expect(d.onScreen(snap(CLAUDE_DIALOG), 3001).map((e) => e.type)).toEqual(['menu', 'state']);
    expect(d.state).toBe('blocked');
  });

  /** A Codex session at its prompt, asked to run a command: its approval dialog shows. */
  function codexAsking(): TurnDetector {
    const codex = new TurnDetector({ preset: BUILTIN_PRESETS.codex! });
    codex.onOutput(bytes('banner'), 0);
    codex.onScreen(snap(CODEX_ANSWER), 1);
    codex.tick(1 + (BUILTIN_PRESETS.codex!.settleMs ?? 200));
    expect(codex.state).toBe('idle');
    codex.onInput(bytes('Please create a file. APPROVE-ME 1\r'), 1000);
    codex.onOutput(bytes('dialog'), 1001);
    codex.onScreen(snap(CODEX_APPROVAL), 1002);
    expect(codex.state).toBe('blocked');
    return codex;
  }

  it("Codex's approval dialog read half-way while it closes after Enter is not asked again", () => {
    const codex = codexAsking();
    expect(codex.onInput(bytes('\r'), 2000)).toEqual([{ type: 'state', state: 'busy', at: 2000 }]);
    // Codex redraws the whole screen line by line: a read between two writes shows part of the
    // dialog (a choice gone, only its footer).
    let at = 2010;
    for (const screen of CODEX_APPROVAL_CLOSING) {
      codex.onOutput(bytes('redraw'), at++);
      expect(codex.onScreen(snap(screen), at++)).toEqual([]);
      expect(codex.state).toBe('busy');
    }
    codex.onOutput(bytes('working'), at++);
    expect(codex.onScreen(snap(CODEX_APPROVED_WORKING), at++)).toEqual([]);
    expect(codex.tick(at + 5000)).toEqual([]);
    expect(codex.state).toBe('busy');
  });

  it('a part of the answered dialog that stays a second after the screen last changed: blocked', () => {
    const codex = codexAsking();
    codex.onInput(bytes('\r'), 2000);
    const part = CODEX_APPROVAL_CLOSING[0]!;
    codex.onOutput(bytes('redraw'), 2500);
    expect(codex.onScreen(snap(part), 2501)).toEqual([]);
    expect(codex.nextDeadline()).toBe(3501);
    expect(codex.tick(3501)).toEqual([
      { type: 'menu', menu: readMenu(part), at: 3501 },
      { type: 'state', state: 'blocked', at: 3501 },
    ]);
  });

  it('a dialog that stays a second after Enter was not answered: blocked again', () => {
    const d = readyClaude();
    d.onInput(bytes('Delete the build folder\r'), 1000);
    d.onOutput(bytes('dialog'), 1001);
    d.onScreen(snap(CLAUDE_DIALOG), 1002);
    d.onInput(bytes('\r'), 2000);
    d.onOutput(bytes('redraw'), 2001);
    expect(d.onScreen(snap(CLAUDE_DIALOG), 2002)).toEqual([]);
    expect(d.nextDeadline()).toBe(3000);
    expect(d.tick(3000)).toEqual([
      { type: 'menu', menu: readMenu(CLAUDE_DIALOG), at: 3000 },
      { type: 'state', state: 'blocked', at: 3000 },
    ]);
  });

  it('flags a screen turn interrupted after Ctrl-C', () => {
    const d = readyClaude();
    d.onInput(bytes('What is the capital of France?\r'), 1000);
    d.onOutput(bytes('x'), 1001);
    d.onScreen(snap(CLAUDE_BUSY), 1002);
    d.onInput(bytes('\x03'), 1500);
    d.onOutput(bytes('y'), 1501);
    d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 1502);
    expect(turns(d.tick(1502 + settle))).toMatchObject([{ interrupted: true }]);
  });

  it('flags a screen turn interrupted after a lone Esc key press while busy', () => {
    const d = readyClaude();
    d.onInput(bytes('What is the capital of France?\r'), 1000);
    d.onOutput(bytes('x'), 1001);
    d.onScreen(snap(CLAUDE_BUSY), 1002);
    d.onInput(bytes('\x1b[A'), 1400); // an arrow key is not Esc
    d.onOutput(bytes('y'), 1401);
    d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 1402);
    expect(turns(d.tick(1402 + settle))).toMatchObject([{ interrupted: false }]);
    d.onInput(bytes('What is the capital of France?\r'), 3000);
    d.onOutput(bytes('x'), 3001);
    d.onScreen(snap(CLAUDE_BUSY), 3002);
    d.onInput(bytes('\x1b'), 3500);
    d.onOutput(bytes('y'), 3501);
    d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 3502);
    expect(turns(d.tick(3502 + settle))).toMatchObject([{ interrupted: true }]);
  });

  it('makes no turn when the agent did not react to Enter, and returns to idle', () => {
    const d = readyClaude();
    d.onInput(bytes('\r'), 1000);
    expect(d.nextDeadline()).toBe(1000 + NO_REACTION_MS);
    expect(d.tick(1000 + NO_REACTION_MS - 1)).toEqual([]);
    expect(d.tick(1000 + NO_REACTION_MS)).toEqual([
      { type: 'state', state: 'idle', at: 1000 + NO_REACTION_MS },
    ]);
  });

  it('Enter on a box still holding a submit the agent did not take submits that text (an injection tried again)', () => {
    const d = readyClaude();
    const held = [...CLAUDE_EMPTY];
    held[3] = '❯ What is the capital of France?';
    d.onInput(bytes('\x1b[200~What is the capital of France?\x1b[201~'), 1000);
    d.onOutput(bytes('a'), 1001);
    d.onScreen(snap(held), 1002);
    // Enter, which the agent does not take: the text stays in its box.
    d.onInput(bytes('\r'), 1100);
    d.onOutput(bytes('b'), 1101);
    d.onScreen(snap(held), 1102);
    expect(turns(d.tick(1102 + settle))).toEqual([]);
    expect(d.dropUntaken(2000)).toEqual([{ type: 'state', state: 'idle', at: 2000 }]);
    // Enter once more (nothing typed since): the agent takes it and answers.
    d.onInput(bytes('\r'), 3000);
    d.onOutput(bytes('answer'), 3010);
    d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 3020);
    expect(turns(d.tick(3020 + settle))).toMatchObject([
      {
        input: 'What is the capital of France?',
        text: 'The capital of France is Paris.\n\nIt sits on the Seine.',
      },
    ]);
  });

  it('a second submit before any output replaces the first: the answer is matched to the last input', () => {
    const d = readyClaude();
    d.onInput(bytes('\r'), 1000);
    d.onInput(bytes('What is the capital of France?\r'), 1100);
    d.onOutput(bytes('x'), 1101);
    d.onScreen(snap(CLAUDE_IDLE_AFTER_ANSWER), 1102);
    expect(turns(d.tick(1102 + settle))).toMatchObject([
      {
        startedAt: 1100,
        input: 'What is the capital of France?',
        text: expect.stringContaining('Paris'),
      },
    ]);
  });
});

describe('TurnDetector (line presets): a block continued at the continuation prompt', () => {
  // `clippy ask py 'print((1,'` leaves Python at "... " (its closing Enter included); the next
  // ask types "))". Whatever order the prompt's output and the typed-ahead line reach the
  // detector in (a loaded machine reorders nothing but delays output), the answer is alone.
  const opened: Step[] = [
    [200, 'i', 'print((1,'],
    [201, 'o', 'print((1,'],
    [300, 'i', '\r'],
    [301, 'o', '\r\n... '],
    [400, 'i', '\r'],
  ];
  const orders: [string, Step[]][] = [
    [
      'each prompt seen before the next line',
      [
        [401, 'o', '\r\n... '],
        [500, 'i', '))'],
        [501, 'o', '))'],
        [600, 'i', '\r'],
      ],
    ],
    [
      'the line typed onto the prompt before a quiet moment',
      [
        [500, 'i', '))'],
        [501, 'o', '\r\n... '],
        [502, 'o', '))'],
        [600, 'i', '\r'],
      ],
    ],
    [
      'all output after all input',
      [
        [500, 'i', '))'],
        [600, 'i', '\r'],
        [601, 'o', '\r\n... ))'],
      ],
    ],
    [
      'the closing prompt split across chunks',
      [
        [401, 'o', '\r\n'],
        [402, 'o', '... '],
        [500, 'i', '))'],
        [501, 'o', '))'],
        [600, 'i', '\r'],
      ],
    ],
  ];
  for (const [order, steps] of orders) {
    it(`answers with the result alone: ${order}`, () => {
      const d = new TurnDetector({ preset: BUILTIN_PRESETS.python! });
      play(d, [[0, 'o', '>>> ']], 100);
      const events = play(d, [...opened, ...steps, [700, 'o', '\r\n(1,)\r\n>>> ']], 2000);
      expect(turns(events).map((t) => t.text)).toEqual(['(1,)']);
    });
  }
});

describe('TurnDetector (line presets): the closing Enter of a one-line block', () => {
  // `clippy ask py 'for i in range(3): print(i)'`: Python shows "... " after the line, and
  // `ask` presses one more Enter there. Its echo is input, wherever it reaches the detector: an
  // Enter that came before the prompt was seen left "..." at the answer's head (CI, under load).
  const line = 'for i in range(3): print(i)';
  const opened: Step[] = [
    [200, 'i', line],
    [201, 'o', line],
    [300, 'i', '\r'],
  ];
  const answer = '\r\n0\r\n1\r\n2\r\n>>> ';
  const orders: [string, Step[]][] = [
    [
      'the prompt seen before the closing Enter',
      [
        [301, 'o', '\r\n... '],
        [400, 'i', '\r'],
        [401, 'o', answer],
      ],
    ],
    [
      'the closing Enter between the line’s end and the prompt',
      [
        [301, 'o', '\r\n'],
        [302, 'i', '\r'],
        [303, 'o', '... '],
        [304, 'o', answer],
      ],
    ],
    [
      'the closing Enter before any echo',
      [
        [302, 'i', '\r'],
        [303, 'o', '\r\n... '],
        [304, 'o', answer],
      ],
    ],
  ];
  for (const [order, steps] of orders) {
    it(`answers with the output alone: ${order}`, () => {
      const d = new TurnDetector({ preset: BUILTIN_PRESETS.python! });
      play(d, [[0, 'o', '>>> ']], 100);
      const events = play(d, [...opened, ...steps], 3000);
      expect(turns(events).map((t) => t.text)).toEqual(['0\n1\n2']);
    });
  }
});

describe('TurnDetector (screen presets): a loading screen in place of the input box', () => {
  const gemini = BUILTIN_PRESETS.gemini!;
  const settle = gemini.settleMs ?? 200;
  // Captured: Gemini CLI 0.61 `--resume` draws its box, then "⠋ Resuming session..." in its
  // place (every key read then dropped), then the box again.
  const idle = readScreen('gemini-idle.txt').split('\n');
  const resuming = readScreen('gemini-resuming.txt').split('\n');

  it('is busy, not idle, while Gemini CLI resumes (its box gone), and counts the loading screen', () => {
    const d = new TurnDetector({ preset: gemini });
    d.onOutput(bytes('box'), 0);
    d.onScreen(snap(idle), 1);
    expect(d.tick(1 + settle).map((e) => e.type)).toEqual(['ready', 'state']);
    expect([d.state, d.loads]).toEqual(['idle', 0]);
    d.onOutput(bytes('resuming'), 500);
    expect(d.onScreen(snap(resuming), 510)).toEqual([{ type: 'state', state: 'busy', at: 510 }]);
    expect(d.loads).toBe(1);
    // An Enter it dropped meanwhile is not taken: the screen is busy but took nothing.
    d.onInput(bytes('\x1b[200~question\x1b[201~\r'), 600);
    d.onOutput(bytes('spinner'), 700);
    d.onScreen(snap(resuming.map((l) => l.replace('⠋', '⠙'))), 710);
    expect(d.loads).toBe(1);
    expect(d.submits).toEqual({ sent: 1, taken: 0 });
    d.dropUntaken(5000);
    d.onOutput(bytes('box again'), 6000);
    d.onScreen(snap(idle), 6010);
    expect(d.state).toBe('busy');
    expect(d.tick(6010 + settle)).toEqual([{ type: 'state', state: 'idle', at: 6010 + settle }]);
  });
});
