import { describe, expect, it } from 'vitest';
import { MOD, parseKeySpec } from './key-spec.js';

describe('hotkey specs', () => {
  it('reads the defaults and the usual spellings', () => {
    expect(parseKeySpec('super+shift+c')).toEqual({
      label: 'super+shift+c',
      keysym: 0x63,
      modifiers: MOD.mod4 | MOD.shift,
    });
    expect(parseKeySpec('Shift-Super-V').label).toBe('super+shift+v');
    expect(parseKeySpec('ctrl+alt+F5')).toMatchObject({
      keysym: 0xffc2,
      modifiers: MOD.control | MOD.mod1,
    });
    expect(parseKeySpec('win+space').keysym).toBe(0x20);
  });

  it('refuses keys without a modifier that keeps them from other programs', () => {
    expect(() => parseKeySpec('c')).toThrow(/needs a modifier/);
    expect(() => parseKeySpec('shift+c')).toThrow(/needs a modifier/);
    expect(() => parseKeySpec('hyper+c')).toThrow(/'hyper' is not a modifier/);
    expect(() => parseKeySpec('super+banana')).toThrow(/unknown key 'banana'/);
    expect(() => parseKeySpec('')).toThrow(/empty/);
  });
});
