import { describe, expect, it } from 'vitest';
import { blockedKey } from './blocked-key.js';

describe('blockedKey', () => {
  it('is the same for two draws of one dialog, one with the agent cursor at the question’s end', () => {
    const a = blockedKey(3, { question: 'Allow it to run `ls`? Why?   █', detail: ['ls -la  '] });
    const b = blockedKey(3, { question: 'Allow it to run `ls`? Why?', detail: ['ls -la'] });
    expect(a).toBe(b);
  });

  it('differs for another question, other detail, or another turn', () => {
    const key = blockedKey(3, { question: 'Allow it?', detail: ['ls'] });
    expect(blockedKey(3, { question: 'Allow this?', detail: ['ls'] })).not.toBe(key);
    expect(blockedKey(3, { question: 'Allow it?', detail: ['rm'] })).not.toBe(key);
    expect(blockedKey(4, { question: 'Allow it?', detail: ['ls'] })).not.toBe(key);
    expect(blockedKey(3, null)).not.toBe(key);
  });
});
