import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_TURN_BYTES, DEFAULT_TURN_RING_DEPTH, loadTurnConfig } from './config.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clippy-'));
  mkdirSync(join(dir, 'clippy'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('loadTurnConfig', () => {
  it('uses the defaults when there are no files', () => {
    const c = loadTurnConfig({ XDG_CONFIG_HOME: dir });
    expect(c).toMatchObject({
      turnRingDepth: DEFAULT_TURN_RING_DEPTH,
      maxTurnBytes: DEFAULT_MAX_TURN_BYTES,
      problems: [],
    });
    expect(c.turnRingDepth).toBe(32);
    expect(c.maxTurnBytes).toBe(4 * 1024 * 1024);
  });

  it('reads turnRingDepth, maxTurnBytes and user presets, ignoring keys of other parts', () => {
    writeFileSync(
      join(dir, 'clippy', 'config.json'),
      JSON.stringify({ turnRingDepth: 5, maxTurnBytes: 65536, other: 1 }),
    );
    writeFileSync(
      join(dir, 'clippy', 'presets.json'),
      JSON.stringify({ mysh: { extends: 'bash', pattern: '≫ $' } }),
    );
    const c = loadTurnConfig({ XDG_CONFIG_HOME: dir });
    expect(c.problems).toEqual([]);
    expect(c.turnRingDepth).toBe(5);
    expect(c.maxTurnBytes).toBe(65536);
    expect(c.userPresets.mysh).toMatchObject({ extends: 'bash', pattern: '≫ $' });
  });

  it('reports broken files with their path and keeps the defaults', () => {
    writeFileSync(join(dir, 'clippy', 'config.json'), JSON.stringify({ turnRingDepth: 0 }));
    writeFileSync(join(dir, 'clippy', 'presets.json'), '{ not json');
    const c = loadTurnConfig({ XDG_CONFIG_HOME: dir });
    expect(c.turnRingDepth).toBe(DEFAULT_TURN_RING_DEPTH);
    expect(c.problems).toHaveLength(2);
    expect(c.problems[0]).toMatch(/config\.json: .*turnRingDepth/s);
    expect(c.problems[1]).toMatch(/presets\.json: not valid JSON/);
  });

  it('rejects a preset with unknown fields', () => {
    writeFileSync(join(dir, 'clippy', 'presets.json'), JSON.stringify({ x: { patern: '> $' } }));
    const c = loadTurnConfig({ XDG_CONFIG_HOME: dir });
    expect(c.userPresets).toEqual({});
    expect(c.problems[0]).toMatch(/presets\.json/);
  });
});
