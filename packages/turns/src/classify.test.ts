import { describe, expect, it } from 'vitest';
import { BUILTIN_PRESETS } from './builtin-presets.js';
import { classifyScreen } from './classify.js';
import {
  AIDER_ANSWER,
  AIDER_QUESTION,
  CLAUDE_BUSY,
  CLAUDE_DIALOG,
  CLAUDE_DIALOG_ANSWERED,
  CLAUDE_IDLE_AFTER_ANSWER,
  CLAUDE_STALE_SPINNER_TEXT,
  CODEX_ANSWER,
  CODEX_WORKING,
  COPILOT_ANSWER,
  GEMINI_ANSWER,
} from './fixtures/screens.js';
import { resolvePreset } from './presets.js';

const P = BUILTIN_PRESETS;

describe('classifyScreen', () => {
  it('says idle for an input box with nothing working above it', () => {
    const r = classifyScreen(CLAUDE_IDLE_AFTER_ANSWER, P.claude!);
    expect(r).toMatchObject({ state: 'idle', line: 12 });
    expect(r.reason).toMatch(/input line 12/);
  });

  it('says busy while the input box stays visible under a spinner line', () => {
    expect(classifyScreen(CLAUDE_BUSY, P.claude!)).toMatchObject({
      state: 'busy',
      marker: P.claude!.busy![1],
    });
  });

  it('says blocked for a numbered dialog below the last input line', () => {
    expect(classifyScreen(CLAUDE_DIALOG.join('\n'), P.claude!)).toMatchObject({
      state: 'blocked',
      line: 15,
    });
  });

  it('never counts a dialog left above the current input box (stale marker)', () => {
    expect(classifyScreen(CLAUDE_DIALOG_ANSWERED, P.claude!).state).toBe('idle');
  });

  it('never counts busy-looking text far above the input box', () => {
    expect(classifyScreen(CLAUDE_STALE_SPINNER_TEXT, P.claude!).state).toBe('idle');
  });

  it('looks only at the bottom lines: markers that scrolled higher up do not count', () => {
    const screen = [...CLAUDE_DIALOG, ...Array.from({ length: 40 }, (_, i) => `output ${i}`)];
    expect(classifyScreen(screen, P.claude!)).toMatchObject({ state: 'unknown' });
  });

  it('classifies the other TUIs from their own markers', () => {
    expect(classifyScreen(GEMINI_ANSWER, P.gemini!).state).toBe('idle');
    expect(classifyScreen(CODEX_ANSWER, P.codex!).state).toBe('idle');
    expect(classifyScreen(CODEX_WORKING, P.codex!).state).toBe('busy');
    expect(classifyScreen(COPILOT_ANSWER, P.copilot!).state).toBe('idle');
  });

  it('for line presets: idle when the last line is a prompt (right-trimmed screens too), else busy', () => {
    expect(classifyScreen(AIDER_ANSWER, P.aider!).state).toBe('idle');
    expect(classifyScreen(['$ ls', 'a b', 'user@host:~$'], P.bash!).state).toBe('idle');
    expect(classifyScreen(['$ sleep 10'], P.python!)).toMatchObject({ state: 'busy' });
    expect(classifyScreen(AIDER_QUESTION, P.aider!).state).toBe('blocked');
  });

  it('uses a custom pattern, and says unknown for an empty screen', () => {
    expect(classifyScreen(['λ> '], resolvePreset(undefined, { pattern: '^λ> $' })).state).toBe(
      'idle',
    );
    expect(classifyScreen('\n\n', P.claude!)).toMatchObject({
      state: 'unknown',
      reason: 'the screen is empty',
    });
  });
});
