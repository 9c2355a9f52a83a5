import { describe, expect, it } from 'vitest';
import { applyMultiline, MultilineError, multilineForm, unwrapMultiline } from './multiline.js';
import { parseUserPresets, PresetError, resolvePreset } from './presets.js';

const TEXT = 'Review this:\r\n\n  if x:\n    y()\n\n';

describe('multi-line text into a program without bracketed paste', () => {
  it('lines (the default) types the text as it is', () => {
    const form = multilineForm(resolvePreset('bash'));
    expect(form).toEqual({ mode: 'lines' });
    expect(applyMultiline(TEXT, form)).toBe(TEXT);
  });

  it("block wraps the lines in the program's opening and closing lines (aider's built-in)", () => {
    const form = multilineForm(resolvePreset('aider'));
    expect(form).toEqual({ mode: 'block', open: '{clippy', close: 'clippy}' });
    expect(applyMultiline(TEXT, form)).toBe('{clippy\nReview this:\n\n  if x:\n    y()\nclippy}');
    expect(() => applyMultiline('a\nclippy}\nb', form)).toThrow(MultilineError);
    expect(() => applyMultiline('a\nclippy}\nb', form)).toThrow(/line 2 of the text is "clippy}"/);
  });

  it('join makes one line, blank lines dropped; continuation ends every line but the last', () => {
    expect(applyMultiline(TEXT, multilineForm({ multiline: 'join' }))).toBe(
      'Review this:   if x:     y()',
    );
    expect(
      applyMultiline('a\nb', multilineForm({ multiline: { mode: 'join', separator: ' / ' } })),
    ).toBe('a / b');
    expect(applyMultiline('a\nb\nc\n', multilineForm({ multiline: 'continuation' }))).toBe(
      'a\\\nb\\\nc',
    );
    expect(
      applyMultiline('a\nb', multilineForm({ multiline: { mode: 'continuation', lineEnd: ' ^' } })),
    ).toBe('a ^\nb');
  });

  it("a turn's recorded input is the user's text: the block's lines and the line ends are the delivery's", () => {
    const block = multilineForm(resolvePreset('aider'));
    const sent = applyMultiline(TEXT, block);
    expect(unwrapMultiline(sent, block)).toBe('Review this:\n\n  if x:\n    y()');
    const cont = multilineForm({ multiline: 'continuation' });
    expect(unwrapMultiline(applyMultiline('a\nb\nc', cont), cont)).toBe('a\nb\nc');
    // A block still open keeps its lines; what only looks like the form is the user's.
    expect(unwrapMultiline('{clippy\nno close yet', block)).toBe('no close yet');
    expect(unwrapMultiline('{other\nx\nclippy}', block)).toBe('{other\nx\nclippy}');
    expect(unwrapMultiline('a\\\nb', multilineForm(resolvePreset('bash')))).toBe('a\\\nb');
  });

  it('leaves a text of one line alone, in every form', () => {
    for (const multiline of [
      'join',
      'continuation',
      { mode: 'block', open: '{', close: '}' },
    ] as const)
      expect(applyMultiline('one line', multilineForm({ multiline }))).toBe('one line');
  });

  it('presets.json sets it per preset, and a bad form is refused with the field named', () => {
    const userPresets = parseUserPresets({
      aider: { multiline: 'join' },
      mine: { extends: 'bash', multiline: { mode: 'block', open: '<<EOF', close: 'EOF' } },
    });
    expect(multilineForm(resolvePreset('aider', { userPresets }))).toEqual({
      mode: 'join',
      separator: ' ',
    });
    expect(multilineForm(resolvePreset('mine', { userPresets }))).toEqual({
      mode: 'block',
      open: '<<EOF',
      close: 'EOF',
    });
    expect(() => parseUserPresets({ x: { extends: 'bash', multiline: 'paste' } })).toThrow(
      PresetError,
    );
    expect(() =>
      parseUserPresets({ x: { extends: 'bash', multiline: { mode: 'block', open: '{' } } }),
    ).toThrow(/multiline/);
    expect(() =>
      parseUserPresets({
        x: { extends: 'bash', multiline: { mode: 'block', open: '{\n', close: '}' } },
      }),
    ).toThrow(/control character or line break/);
  });
});
