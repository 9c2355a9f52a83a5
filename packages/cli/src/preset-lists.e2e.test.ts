import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv } from '@clippy/testkit/daemon';
import { BUILTIN_PRESETS } from '@clippy/turns';

// The presets a user is told about are the presets that exist: `new --help`, completion and the
// docs list exactly the names of the one table (BUILTIN_PRESETS), nothing `new` would refuse.

/** A few runs of the real CLI on a loaded 2-core box. */
const E2E_TIMEOUT_MS = 60_000;
const TABLE = Object.keys(BUILTIN_PRESETS);
const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

let e: DaemonEnv;
beforeAll(() => {
  // No presets.json: only the built-in presets.
  e = new DaemonEnv();
});
afterAll(async () => {
  await e?.dispose();
});

/** The backquoted names in `text` between `start` and `end`. */
function quotedNames(text: string, start: string, end: string): string[] {
  const from = text.indexOf(start);
  expect(from, `"${start}" is in the file`).toBeGreaterThanOrEqual(0);
  const part = text.slice(from + start.length, text.indexOf(end, from + start.length));
  return [...part.matchAll(/`([a-z][\w-]*)`/gu)].map((m) => m[1]!);
}

describe('the presets listed', { timeout: E2E_TIMEOUT_MS }, () => {
  it('new --help lists the table, and no preset new refuses', async () => {
    const r = await runClippy(['new', '--help'], e.env);
    expect(r.code).toBe(0);
    const help = r.stdout.replace(/\s+/gu, ' ');
    const listed = /--preset turn preset: ([^(]*) \(default generic\)/u.exec(help)?.[1];
    expect(listed?.split(', ')).toEqual(TABLE);
    expect(help).not.toMatch(/\bshell\b.*--pattern/u);
    // What the help does not offer, new refuses, naming the ones it knows.
    const refused = await runClippy(['new', '-d', '--preset', 'shell', '--', 'true'], e.env);
    expect(refused.stderr).toBe(
      `clippy: unknown preset "shell"; known presets: ${[...TABLE].sort().join(', ')} (unknown_preset)\n`,
    );
    expect(refused.code).toBe(64);
  });

  it('completion offers the table', async () => {
    const r = await runClippy(['__complete', 'bash', '--', 'new', '--preset', ''], e.env);
    expect(r.stdout.trim().split('\n').sort()).toEqual([...TABLE].sort());
  });

  it('the README and docs/presets.md list the table', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(quotedNames(readme, 'the preset that knows its screen (', '; or')).toEqual(TABLE);
    const presetsDoc = fs.readFileSync(path.join(ROOT, 'docs', 'presets.md'), 'utf8');
    const sections = [...presetsDoc.matchAll(/^### `([\w-]+)` \((?:line|screen)\)$/gmu)];
    expect(sections.map((m) => m[1])).toEqual(TABLE);
  });
});
