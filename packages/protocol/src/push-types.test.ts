import { describe, expect, it } from 'vitest';
import { PUSH_SCHEMAS } from './messages.js';
import { PUSH_TYPE_NAMES } from './push-types.js';

describe('PUSH_TYPE_NAMES', () => {
  it('names exactly the pushes PUSH_SCHEMAS defines (a new push goes in both)', () => {
    expect([...PUSH_TYPE_NAMES].sort()).toEqual(Object.keys(PUSH_SCHEMAS).sort());
  });
});
