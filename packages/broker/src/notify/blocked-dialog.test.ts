import { describe, expect, it } from 'vitest';
import type { Menu } from '@clippy/protocol';
import { blockedDialog, sameQuestion, withRead } from './blocked-dialog.js';

const menu = (question: string, detail: string[]): Menu => ({
  question,
  detail,
  options: [{ label: 'Yes', keys: ['Enter'], selected: true }],
  style: 'numbered',
  cancel: null,
});

describe('blocked dialogs told', () => {
  it('the same dialog in the same turn is the same question; in another turn it is new', () => {
    const told = blockedDialog(3, menu('Allow it?', ['ls']));
    expect(sameQuestion(told, blockedDialog(3, menu('Allow it?', ['ls'])))).toBe(true);
    expect(sameQuestion(told, blockedDialog(4, menu('Allow it?', ['ls'])))).toBe(false);
    expect(sameQuestion(told, blockedDialog(3, menu('Allow it?', ['rm'])))).toBe(false);
  });

  it('a blocked screen with no question read is the same only as another such', () => {
    const told = blockedDialog(3, menu('Allow it?', ['ls']));
    expect(sameQuestion(told, blockedDialog(3, null))).toBe(false);
    expect(sameQuestion(blockedDialog(3, null), told)).toBe(false);
    expect(sameQuestion(blockedDialog(3, null), blockedDialog(3, undefined))).toBe(true);
  });

  it('a later read is compared with every read of the question told', () => {
    // Read once one way, then another (nobody answered between): either comes back the same.
    let told = blockedDialog(3, menu('Allow it?', ['ls']));
    told = withRead(told, blockedDialog(3, menu('Run ls?', ['cat'])));
    expect(sameQuestion(told, blockedDialog(3, menu('Allow it?', ['ls'])))).toBe(true);
    expect(sameQuestion(told, blockedDialog(3, menu('Run ls?', ['cat'])))).toBe(true);
    expect(sameQuestion(told, blockedDialog(3, menu('Allow it?', ['rm'])))).toBe(false);
  });
});
