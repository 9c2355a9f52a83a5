// The first-run, trust and sign-in screens of the real Gemini CLI, Codex CLI and Claude Code,
// captured with tmux (see ../test/screens/README.md): every dialog must classify `blocked` (it
// waits for an answer), never `idle`, and a session showing one must say so instead of
// staying `starting`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stripAnsi } from './ansi-stripper.js';
import { BUILTIN_PRESETS } from './builtin-presets.js';
import { classifyScreen, type ScreenState } from './classify.js';
import { TurnDetector, type ScreenSnapshot } from './detector.js';
import { extractAnswer } from './extract.js';

const SCREENS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'test',
  'screens',
);

/** Each captured screen and its state, decided by reading it (the preset is the name's prefix). */
const TRUTH: Record<string, ScreenState> = {
  'gemini-trust-folder': 'blocked',
  'gemini-auth': 'blocked',
  'gemini-api-key': 'blocked',
  'gemini-idle': 'idle',
  'gemini-busy': 'busy',
  'codex-sign-in': 'blocked',
  'codex-sign-in-other': 'blocked',
  'codex-api-key': 'blocked',
  'codex-trust': 'blocked',
  'codex-idle': 'idle',
  'claude-trust-folder': 'blocked',
  'claude-api-key': 'blocked',
  'claude-login-method': 'blocked',
  'claude-idle': 'idle',
  'claude-no-network': 'unknown', // Claude printed why it cannot start and exited
  // Approval dialogs, reached with a local fake model server asking for a tool call.
  'gemini-approve-shell': 'blocked',
  'gemini-approve-edit': 'blocked',
  'gemini-answered-after-approval': 'idle',
  'codex-approve-command': 'blocked',
  'codex-answered-after-approval': 'idle',
  // Constructed from issue 21's description (not captured): a busy marker above a live region
  // of any length (task list, tool output, hook messages) still counts; a finished one does not.
  'claude-busy-task-list': 'busy',
  'claude-idle-task-list': 'idle',
  'claude-busy-tool-output': 'busy',
  'claude-busy-hook': 'busy',
  'claude-idle-hook': 'idle',
  // Constructed in a headless xterm: an input box whose borders are wider than the terminal,
  // their tails wrapped onto the next row (see ../test/screens/README.md).
  'claude-idle-narrowed-rule': 'idle',
  'claude-idle-rule-one-wider': 'idle',
  'copilot-idle-box-one-wider': 'idle',
};

const read = (file: string): string => fs.readFileSync(path.join(SCREENS_DIR, file), 'utf8');
const presetOf = (name: string) => BUILTIN_PRESETS[name.split('-')[0]!]!;

describe('first-run and approval screens of the real agents', () => {
  it('has a truth for every captured screen, and a screen for every truth', () => {
    const names = fs
      .readdirSync(SCREENS_DIR)
      .filter((f) => f.endsWith('.txt'))
      .map((f) => f.replace(/(?:\.ansi)?\.txt$/u, ''));
    expect([...new Set(names)].sort()).toEqual(Object.keys(TRUTH).sort());
  });

  for (const [name, want] of Object.entries(TRUTH)) {
    it(`${name}: ${want}`, () => {
      const got = classifyScreen(read(`${name}.txt`), presetOf(name));
      expect([name, got.state]).toEqual([name, want]);
      if (want === 'blocked') {
        expect(presetOf(name).blocked).toContain(got.marker);
        expect(got.reason).toMatch(/question marker on line \d+/u);
      }
    });
  }

  it('classifies the colour captures (tmux capture-pane -e) like the plain ones', () => {
    const ansi = fs.readdirSync(SCREENS_DIR).filter((f) => f.endsWith('.ansi.txt'));
    expect(ansi.length).toBeGreaterThanOrEqual(8);
    for (const file of ansi) {
      const name = file.replace(/\.ansi\.txt$/u, '');
      const text = stripAnsi(new TextEncoder().encode(read(file)));
      expect([name, classifyScreen(text, presetOf(name)).state]).toEqual([name, TRUTH[name]]);
    }
  });

  it("keeps Gemini's approved tool call and its answer as the turn, without the prompt's echo", () => {
    const lines = read('gemini-answered-after-approval.txt').split('\n');
    const answer = extractAnswer(
      lines,
      'rebuild the project from scratch',
      BUILTIN_PRESETS.gemini!,
    );
    expect(answer.split('\n')[1]).toMatch(/^│ ✓ {2}Shell rm -rf build && make +│$/u);
    expect(answer).toContain('make: *** No targets specified and no makefile found.  Stop.');
    expect(answer.endsWith('\n✦ Done. The build finished.')).toBe(true);
    expect(answer).not.toContain('> rebuild the project');
  });

  it("cuts an answer above Gemini 0.61's borderless input band, without the rule and mode line", () => {
    // The real input screen, with a question's echo and an answer where the tips were.
    const lines = read('gemini-idle.txt').split('\n');
    const tips = lines.findIndex((l) => l.startsWith('Tips for getting started'));
    lines.splice(tips, 6, ' > What is 2+2?', '', '✦ 4', '');
    expect(extractAnswer(lines, 'What is 2+2?', BUILTIN_PRESETS.gemini!)).toBe('✦ 4');
  });

  it("keeps a wrapped border of the input box out of the answer, and the answer's dashes in", () => {
    const table = [
      '⏺ Two files changed:',
      '',
      '  | file      | lines |',
      '  |-----------|-------|',
      '  | parse.ts  | +12   |',
      '  | index.ts  | -3    |',
      '',
      '  ---',
      '',
      '  Both are covered by the new tests.',
    ].join('\n');
    for (const name of ['claude-idle-narrowed-rule', 'claude-idle-rule-one-wider']) {
      const lines = read(`${name}.txt`).split('\n');
      expect([name, extractAnswer(lines, 'summarise the changes in src/', presetOf(name))]).toEqual(
        [name, table],
      );
    }
    const copilot = read('copilot-idle-box-one-wider.txt').split('\n');
    expect(extractAnswer(copilot, 'fix the typo in README.md', BUILTIN_PRESETS.copilot!)).toBe(
      ' ● Fixed: "teh" → "the" in README.md.',
    );
  });

  it('a Gemini session is blocked at the trust and auth dialogs, then ready at its input', () => {
    const d = new TurnDetector({ preset: BUILTIN_PRESETS.gemini! });
    const settle = BUILTIN_PRESETS.gemini!.settleMs ?? 200;
    const snap = (name: string): ScreenSnapshot => {
      const lines = read(`${name}.txt`).replace(/\n$/u, '').split('\n');
      return { lines, viewportTop: 0, rows: lines.length, cols: 120 };
    };
    const seen: string[] = [];
    let t = 0;
    for (const name of ['gemini-trust-folder', 'gemini-auth', 'gemini-api-key', 'gemini-idle']) {
      t += 1000;
      d.onOutput(new TextEncoder().encode(name), t);
      const events = [...d.onScreen(snap(name), t), ...d.tick(t + settle)];
      for (const e of events) seen.push(`${name}:${e.type === 'state' ? e.state : e.type}`);
    }
    expect(seen).toEqual(['gemini-trust-folder:blocked', 'gemini-idle:ready', 'gemini-idle:idle']);
  });
});
