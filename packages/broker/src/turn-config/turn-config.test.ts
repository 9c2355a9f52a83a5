import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HandlerError } from '../errors.js';
import { DEFAULT_MAX_TURN_BYTES, DEFAULT_TURN_RING_DEPTH, loadTurnConfig } from './turn-config.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clippy-'));
  mkdirSync(join(dir, 'clippy'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The answer loadTurnConfig gives for a broken file (it throws HandlerError). */
function failure(): HandlerError {
  try {
    loadTurnConfig({ XDG_CONFIG_HOME: dir });
  } catch (err) {
    if (err instanceof HandlerError) return err;
    throw err;
  }
  throw new Error('loadTurnConfig accepted a broken file');
}

describe('loadTurnConfig', () => {
  it('uses the defaults when there are no files', () => {
    const c = loadTurnConfig({ XDG_CONFIG_HOME: dir });
    expect(c).toMatchObject({
      turnRingDepth: DEFAULT_TURN_RING_DEPTH,
      maxTurnBytes: DEFAULT_MAX_TURN_BYTES,
      userPresets: {},
    });
    expect(c.turnRingDepth).toBe(32);
    expect(c.maxTurnBytes).toBe(4 * 1024 * 1024);
  });

  it('reads turnRingDepth, maxTurnBytes and user presets, ignoring keys of other parts', () => {
    writeFileSync(
      join(dir, 'clippy', 'config.json'),
      JSON.stringify({ turnRingDepth: 5, maxTurnBytes: 65536, other: 1, term: 'screen' }),
    );
    writeFileSync(
      join(dir, 'clippy', 'presets.json'),
      JSON.stringify({ mysh: { extends: 'bash', pattern: '≫ $' } }),
    );
    const c = loadTurnConfig({ XDG_CONFIG_HOME: dir });
    expect(c.turnRingDepth).toBe(5);
    expect(c.maxTurnBytes).toBe(65536);
    expect(c.userPresets.mysh).toMatchObject({ extends: 'bash', pattern: '≫ $' });
  });

  it('answers a broken file with invalid_config naming the file, the line and the reason', () => {
    writeFileSync(join(dir, 'clippy', 'config.json'), '{\n  "turnRingDepth": 0\n}');
    let err = failure();
    expect(err.code).toBe('invalid_config');
    expect(err.message).toMatch(/config\.json:2: turnRingDepth: /);
    writeFileSync(join(dir, 'clippy', 'config.json'), '{}');
    writeFileSync(join(dir, 'clippy', 'presets.json'), '{\n  "x": {},\n  not json');
    err = failure();
    expect(err.code).toBe('invalid_config');
    expect(err.message).toMatch(/presets\.json:3: not valid JSON/);
  });

  it('historyLockWaitSeconds: the wait for a history lock still held, 5 s unless set, at most 600', () => {
    expect(loadTurnConfig({ XDG_CONFIG_HOME: dir }).historyLockWaitMs).toBe(5_000);
    writeFileSync(
      join(dir, 'clippy', 'config.json'),
      JSON.stringify({ historyLockWaitSeconds: 0.5 }),
    );
    expect(loadTurnConfig({ XDG_CONFIG_HOME: dir }).historyLockWaitMs).toBe(500);
    writeFileSync(join(dir, 'clippy', 'config.json'), '{\n  "historyLockWaitSeconds": 601\n}');
    expect(failure().message).toMatch(/config\.json:2: historyLockWaitSeconds: /);
  });

  it('rejects a preset with unknown fields', () => {
    writeFileSync(join(dir, 'clippy', 'presets.json'), JSON.stringify({ x: { patern: '> $' } }));
    const err = failure();
    expect(err.code).toBe('invalid_config');
    expect(err.message).toMatch(/presets\.json:1: x: /);
  });
});
