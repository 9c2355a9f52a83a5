import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUILTIN_PRESETS } from './builtin-presets.js';
import { UserPresetsSchema } from './preset-types.js';
import {
  compilePreset,
  parseUserPresets,
  PresetError,
  presetNames,
  resolvePreset,
} from './presets.js';

const REQUIRED = [
  'aider',
  'bash',
  'claude',
  'codex',
  'copilot',
  'fish',
  'gemini',
  'generic',
  'node',
  'opencode',
  'python',
  'qwen',
  'zsh',
];

describe('presets', () => {
  it('ships exactly the required presets, each valid, documented and with the versions checked', () => {
    expect(Object.keys(BUILTIN_PRESETS).sort()).toEqual(REQUIRED);
    for (const [name, p] of Object.entries(BUILTIN_PRESETS)) {
      expect(p.name).toBe(name);
      expect(p.description.length).toBeGreaterThan(10);
      expect(p.checkedOn.length).toBeGreaterThan(0);
      expect(p.model).toBeTypeOf('string');
      expect(p.provider).toBeTypeOf('string');
      const c = compilePreset(p);
      if (p.kind === 'line') expect(c.pattern).toBeInstanceOf(RegExp);
      else expect(c.idle.length).toBeGreaterThan(0);
    }
  });

  it('falls back to generic when no preset is named', () => {
    expect(resolvePreset(undefined).name).toBe('generic');
  });

  it('rejects an unknown preset with a message listing every known preset', () => {
    expect(() => resolvePreset('clade')).toThrow(PresetError);
    expect(() => resolvePreset('clade')).toThrow(
      `unknown preset "clade"; known presets: ${REQUIRED.join(', ')}`,
    );
  });

  it('rejects a pattern containing a literal newline, with a diagnostic', () => {
    expect(() => resolvePreset(undefined, { pattern: '\\$ \n> ' })).toThrow(
      /contains a literal newline/,
    );
  });

  it("rejects an invalid regex with the regex engine's own message", () => {
    const bad = '([a-';
    let engine = '';
    try {
      new RegExp(bad, 'u');
    } catch (err) {
      engine = (err as Error).message;
    }
    expect(engine).not.toBe('');
    expect(() => resolvePreset(undefined, { pattern: bad })).toThrow(engine);
  });

  it('makes a custom --pattern a line preset, alone or over a named preset', () => {
    const alone = resolvePreset(undefined, { pattern: '^λ $' });
    expect(alone).toMatchObject({ name: 'custom', kind: 'line', pattern: '^λ $' });
    const over = resolvePreset('bash', { pattern: '^% $' });
    expect(over).toMatchObject({ name: 'bash', kind: 'line', pattern: '^% $' });
  });

  it('lets user presets override a built-in field by field and add new presets that extend one', () => {
    const userPresets = UserPresetsSchema.parse({
      claude: { settleMs: 500 },
      'my-claude': { extends: 'claude', busy: ['Thinking hard'], description: 'mine' },
      repl: { kind: 'line', pattern: '^λ> $' },
    });
    const claude = resolvePreset('claude', { userPresets });
    expect(claude.settleMs).toBe(500);
    expect(claude.idle).toEqual(BUILTIN_PRESETS.claude!.idle);
    const mine = resolvePreset('my-claude', { userPresets });
    expect(mine).toMatchObject({
      name: 'my-claude',
      kind: 'screen',
      busy: ['Thinking hard'],
      description: 'mine',
    });
    expect(mine.blocked).toEqual(BUILTIN_PRESETS.claude!.blocked);
    expect(resolvePreset('repl', { userPresets }).pattern).toBe('^λ> $');
    expect(presetNames(userPresets)).toContain('my-claude');
  });

  it('rejects user presets that are malformed: unknown field, no kind, bad regex, cycle', () => {
    expect(UserPresetsSchema.safeParse({ x: { patern: '$ ' } }).success).toBe(false);
    expect(UserPresetsSchema.safeParse({ 'bad name': { kind: 'line' } }).success).toBe(false);
    expect(() => resolvePreset('x', { userPresets: { x: { pattern: '> $' } } })).toThrow(
      /needs "kind"/,
    );
    expect(() =>
      resolvePreset('x', { userPresets: { x: { kind: 'screen', idle: ['('] } } }),
    ).toThrow(/preset "x" idle\[0\] is not a valid regular expression/);
    expect(() =>
      resolvePreset('a', { userPresets: { a: { extends: 'b' }, b: { extends: 'a' } } }),
    ).toThrow(/extends itself/);
  });

  it('returns a frozen preset: a session pattern cannot be changed afterwards', () => {
    const p = resolvePreset('bash');
    expect(Object.isFrozen(p)).toBe(true);
    expect(() => {
      (p as { pattern?: string }).pattern = 'x';
    }).toThrow(TypeError);
  });

  it('accepts the presets.json example of docs/presets.md, and every preset in it resolves', () => {
    const doc = path.resolve(
      path.dirname(fileURLToPath(import.meta.url)),
      '..',
      '..',
      '..',
      'docs',
      'presets.md',
    );
    const block = /```json\n([\s\S]*?)```/u.exec(fs.readFileSync(doc, 'utf8'));
    expect(block).not.toBeNull();
    const userPresets = parseUserPresets(JSON.parse(block![1]!));
    for (const name of Object.keys(userPresets))
      expect(resolvePreset(name, { userPresets }).name).toBe(name);
    expect(() => parseUserPresets({ x: { kind: 'weird' } })).toThrow(PresetError);
  });
});
