import { describe, expect, it } from 'vitest';
import { bindFreeTextValues } from './free-text-options.js';

describe('free-text option values', () => {
  it('keeps a goal that starts with "-" as the goal', () => {
    expect(
      bindFreeTextValues(['navigate', '.', '--goal', '- add new tool() api'], 'navigate'),
    ).toEqual(['navigate', '.', '--goal=- add new tool() api']);
    expect(bindFreeTextValues(['navigate', '-g', '-x', '-q'], 'navigate')).toEqual([
      'navigate',
      '--goal=-x',
      '-q',
    ]);
  });

  it('leaves other commands, ordinary values and everything after -- alone', () => {
    expect(bindFreeTextValues(['ls', '-g', '-a'], 'ls')).toEqual(['ls', '-g', '-a']);
    expect(bindFreeTextValues(['navigate', '--goal', 'fix it', '-q'], 'navigate')).toEqual([
      'navigate',
      '--goal',
      'fix it',
      '-q',
    ]);
    expect(bindFreeTextValues(['navigate', '--', '--goal', '-x'], 'navigate')).toEqual([
      'navigate',
      '--',
      '--goal',
      '-x',
    ]);
  });
});
