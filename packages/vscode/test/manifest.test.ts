import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/commands/index.js';

// package.json is the extension's manifest: VS Code shows what it contributes, the extension
// registers the handlers. The two must name the same commands and settings.

const manifest = JSON.parse(
  fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
) as {
  contributes: {
    commands: { command: string; title: string; category: string }[];
    menus: Record<string, { command: string }[]>;
    configuration: { properties: Record<string, unknown> };
    views: Record<string, { id: string }[]>;
  };
};

describe('the manifest', () => {
  it('contributes exactly the commands the extension registers, each titled', () => {
    const contributed = manifest.contributes.commands.map((c) => c.command).sort();
    expect(contributed).toEqual(COMMANDS.map((c) => c.id).sort());
    for (const c of manifest.contributes.commands) {
      expect(c.category).toBe('clippy');
      expect(c.title.length).toBeGreaterThan(0);
    }
  });

  it('menus name contributed commands only', () => {
    const known = new Set(manifest.contributes.commands.map((c) => c.command));
    for (const [menu, items] of Object.entries(manifest.contributes.menus)) {
      for (const item of items)
        expect(known.has(item.command), `${menu}: ${item.command}`).toBe(true);
    }
  });

  it('contributes every setting the extension reads', () => {
    const source = fs.readFileSync(new URL('../src/settings.ts', import.meta.url), 'utf8');
    const read = [...source.matchAll(/c\.get<[^>]+>\('([\w.]+)'\)/g)].map((m) => `clippy.${m[1]}`);
    expect(read.sort()).toEqual(Object.keys(manifest.contributes.configuration.properties).sort());
  });

  it('contributes the view the extension fills', () => {
    expect(manifest.contributes.views.explorer?.map((v) => v.id)).toEqual(['clippy.sessions']);
  });
});
