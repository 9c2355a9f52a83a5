import { describe, expect, it } from 'vitest';
import { TurnIdSchema, TurnPositionSchema } from './schemas/common.js';
import { formatTurnId, parseTurnId, parseTurnPosition } from './turn-id.js';

describe('turn IDs', () => {
  it('round-trips and splits at the last colon', () => {
    expect(parseTurnId(formatTurnId('abc', 7))).toEqual({ session: 'abc', seq: 7 });
    expect(parseTurnId('claude:3')).toEqual({ session: 'claude', seq: 3 });
    expect(parseTurnId('a:b:12')).toEqual({ session: 'a:b', seq: 12 });
  });

  it('rejects what is not a turn ID', () => {
    for (const bad of [
      'claude',
      ':3',
      'claude:',
      'claude:0',
      'claude:03',
      'claude:x',
      'claude:-1',
      'claude:12345678901234567',
    ]) {
      expect(parseTurnId(bad), bad).toBeNull();
      expect(TurnIdSchema.safeParse(bad).success, bad).toBe(false);
    }
  });

  it('the schema accepts exactly what parseTurnId parses', () => {
    for (const good of ['abc:1', 'claude:3', 'a:b:12', 'x:1234567890123456']) {
      expect(TurnIdSchema.safeParse(good).success, good).toBe(true);
    }
  });

  it('a position may also be <session>:0, before the first turn', () => {
    expect(parseTurnPosition('sh:0')).toEqual({ session: 'sh', seq: 0 });
    expect(parseTurnPosition('sh:4')).toEqual({ session: 'sh', seq: 4 });
    expect(TurnPositionSchema.safeParse('sh:0').success).toBe(true);
    for (const bad of ['sh', ':0', 'sh:00', 'sh:-1']) {
      expect(parseTurnPosition(bad), bad).toBeNull();
      expect(TurnPositionSchema.safeParse(bad).success, bad).toBe(false);
    }
  });
});
