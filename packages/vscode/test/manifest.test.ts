import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/commands/index.js';
import { CONTEXT_KEYS } from '../src/context-keys.js';

// package.json is the extension's manifest: VS Code shows what it contributes, the extension
// registers the handlers. The two must name the same commands and settings, and every command
// must be offered only where it can work.

const root = path.join(import.meta.dirname, '..');
const repo = path.join(root, '..', '..');

interface Contributed {
  command: string;
  title: string;
  category: string;
  icon?: string;
  enablement?: string;
}
interface MenuItem {
  command: string;
  when?: string;
  group?: string;
}
interface Keybinding {
  command: string;
  key: string;
  mac?: string;
  when?: string;
}

const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  icon: string;
  license: string;
  repository: { type: string; url: string; directory: string };
  categories: string[];
  keywords: string[];
  contributes: {
    commands: Contributed[];
    menus: Record<string, MenuItem[]>;
    keybindings: Keybinding[];
    configuration: { properties: Record<string, unknown> };
    views: Record<string, { id: string; name: string; icon?: string }[]>;
    viewsContainers: { activitybar: { id: string; title: string; icon: string }[] };
    viewsWelcome: { view: string; contents: string; when?: string }[];
  };
};
const { contributes } = manifest;

/**
 * What each command needs before it can do anything, as `enablement` (a context key of
 * context-keys.ts: greyed out in menus, silent on its keys) and as the palette's `when` (an
 * editor's state: hidden from the palette). Commands that start the daemon, ask for everything
 * or read the workspace need nothing more.
 */
const PRECONDITIONS: Record<string, { enablement?: string; palette?: string }> = {
  'clippy.newSession': {},
  'clippy.sendSelection': { enablement: 'clippy.hasLiveSessions', palette: 'editorHasSelection' },
  'clippy.sendFile': { enablement: 'clippy.hasLiveSessions', palette: 'editorIsOpen' },
  'clippy.ask': { enablement: 'clippy.hasLiveSessions', palette: 'editorHasSelection' },
  'clippy.relay': { enablement: 'clippy.hasTurns && clippy.hasLiveSessions' },
  'clippy.capture': { enablement: 'clippy.hasTurns' },
  'clippy.paste': { enablement: 'clippy.hasLiveSessions' },
  'clippy.showTurn': { enablement: 'clippy.hasTurns' },
  'clippy.diff': { enablement: 'clippy.hasWorktrees' },
  'clippy.attach': { enablement: 'clippy.hasLiveSessions' },
  'clippy.kill': { enablement: 'clippy.hasLiveSessions' },
  'clippy.remove': { enablement: 'clippy.hasExitedSessions' },
  'clippy.navigate': { palette: 'workspaceFolderCount > 0' },
  'clippy.openWeb': {},
  'clippy.refresh': {},
};

/** The clippy.* names a `when` or `enablement` clause reads. */
function clippyKeys(clause: string): string[] {
  return [...clause.matchAll(/\bclippy\.[\w.]+/g)].map((m) => m[0]);
}

describe('the manifest', () => {
  it('contributes exactly the commands the extension registers, each titled, in the clippy category', () => {
    const contributed = contributes.commands.map((c) => c.command).sort();
    expect(contributed).toEqual(COMMANDS.map((c) => c.id).sort());
    for (const c of contributes.commands) {
      expect(c.category, c.command).toBe('clippy');
      expect(c.title.length, c.command).toBeGreaterThan(0);
      // View title bars and inline buttons show the icon.
      expect(c.icon, c.command).toMatch(/^\$\([\w-]+\)$/);
    }
  });

  it("each command's enablement and palette condition are its preconditions", () => {
    expect(Object.keys(PRECONDITIONS).sort()).toEqual(COMMANDS.map((c) => c.id).sort());
    const palette = new Map(contributes.menus.commandPalette!.map((m) => [m.command, m.when]));
    for (const c of contributes.commands) {
      const want = PRECONDITIONS[c.command]!;
      expect({ enablement: c.enablement, palette: palette.get(c.command) }, c.command).toEqual({
        enablement: want.enablement,
        palette: want.palette,
      });
    }
  });

  it('every clippy.* context key a clause reads is one the extension sets (or a view or row)', () => {
    const known = new Set<string>([
      ...Object.values(CONTEXT_KEYS),
      'clippy.sessions', // the view's id (`view == clippy.sessions`)
      'clippy.session.live', // the rows' contextValue (session-tree.ts)
      'clippy.session.exited',
      'clippy.turn',
    ]);
    const clauses = [
      ...contributes.commands.map((c) => c.enablement ?? ''),
      ...Object.values(contributes.menus).flatMap((items) => items.map((i) => i.when ?? '')),
      ...contributes.keybindings.map((k) => k.when ?? ''),
      ...contributes.viewsWelcome.map((w) => w.when ?? ''),
    ];
    for (const clause of clauses) {
      for (const key of clippyKeys(clause))
        expect(known.has(key), `${key} in ${clause}`).toBe(true);
    }
  });

  it('menus and keybindings name contributed commands only', () => {
    const known = new Set(contributes.commands.map((c) => c.command));
    for (const [menu, items] of Object.entries(contributes.menus)) {
      for (const item of items)
        expect(known.has(item.command), `${menu}: ${item.command}`).toBe(true);
    }
    for (const k of contributes.keybindings) expect(known.has(k.command), k.key).toBe(true);
  });

  it('keybindings: one chord prefix, distinct keys, the selection commands only with a selection', () => {
    expect(contributes.keybindings.map((k) => [k.key, k.command])).toEqual([
      ['ctrl+alt+k s', 'clippy.sendSelection'],
      ['ctrl+alt+k a', 'clippy.ask'],
      ['ctrl+alt+k r', 'clippy.relay'],
      ['ctrl+alt+k c', 'clippy.capture'],
      ['ctrl+alt+k p', 'clippy.paste'],
    ]);
    for (const k of contributes.keybindings) {
      const palette = PRECONDITIONS[k.command]!.palette;
      // A key works where the palette would offer the command, in an editor for the selection.
      if (palette === 'editorHasSelection') {
        expect(k.when, k.key).toBe('editorTextFocus && editorHasSelection');
      } else expect(k.when, k.key).toBeUndefined();
    }
    // docs/editors.md lists each of them.
    const doc = fs.readFileSync(path.join(repo, 'docs', 'editors.md'), 'utf8');
    for (const k of contributes.keybindings) {
      const shown = k.key
        .split(' ')
        .map((part) =>
          part
            .split('+')
            .map((p) => (p.length === 1 ? p.toUpperCase() : p[0]!.toUpperCase() + p.slice(1)))
            .join('+'),
        )
        .join(' ');
      expect(doc, k.key).toContain(`\`${shown}\``);
    }
  });

  it('contributes every setting the extension reads', () => {
    const source = fs.readFileSync(path.join(root, 'src', 'settings.ts'), 'utf8');
    const read = [...source.matchAll(/c\.get<[^>]+>\('([\w.]+)'\)/g)].map((m) => `clippy.${m[1]}`);
    expect(read.sort()).toEqual(Object.keys(contributes.configuration.properties).sort());
  });

  it('the view the extension fills lives in its own activity bar container, with its own icon', () => {
    expect(contributes.viewsContainers.activitybar).toEqual([
      { id: 'clippy', title: 'clippy', icon: 'media/activity-bar.svg' },
    ]);
    expect(contributes.views).toEqual({
      clippy: [
        {
          id: 'clippy.sessions',
          name: 'Sessions',
          contextualTitle: 'clippy',
          icon: 'media/activity-bar.svg',
        },
      ],
    });
    const svg = fs.readFileSync(path.join(root, 'media', 'activity-bar.svg'), 'utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="24" height="24"/);
    // With no session the view shows its welcome: a New Session button.
    expect(contributes.viewsWelcome).toEqual([
      expect.objectContaining({
        view: 'clippy.sessions',
        when: 'clippy.connected && !clippy.hasSessions',
      }),
    ]);
    expect(contributes.viewsWelcome[0]!.contents).toContain('(command:clippy.newSession)');
  });

  it('is ready for the Marketplace and Open VSX: licence, icon, repository, categories, keywords', () => {
    expect(manifest.license).toBe('MIT');
    expect(fs.existsSync(path.join(root, manifest.icon))).toBe(true);
    expect(manifest.repository).toMatchObject({ type: 'git', directory: 'packages/vscode' });
    expect(manifest.repository.url).toMatch(/^https:\/\//);
    expect(manifest.categories).toEqual(['AI', 'Other']);
    expect(manifest.keywords.length).toBeGreaterThan(0);
    // The Marketplace takes at most 30 keywords.
    expect(manifest.keywords.length).toBeLessThanOrEqual(30);
  });
});

describe('the licence', () => {
  it('is MIT: LICENSE at the root, and every package.json of the repository says so', () => {
    const text = fs.readFileSync(path.join(repo, 'LICENSE'), 'utf8');
    expect(text.split('\n').slice(0, 3)).toEqual([
      'MIT License',
      '',
      'Copyright (c) 2026 clippy contributors',
    ]);
    const files = [
      path.join(repo, 'package.json'),
      ...fs
        .readdirSync(path.join(repo, 'packages'))
        .map((p) => path.join(repo, 'packages', p, 'package.json'))
        .filter((f) => fs.existsSync(f)),
    ];
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      expect((JSON.parse(fs.readFileSync(f, 'utf8')) as { license?: string }).license, f).toBe(
        'MIT',
      );
    }
  });
});
