import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mayCarryHost } from './host-peek.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** An environment whose config.json holds `text` (none when undefined). */
function envWith(text: string | undefined): NodeJS.ProcessEnv {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-peek-'));
  dirs.push(dir);
  if (text !== undefined) {
    fs.mkdirSync(path.join(dir, 'clippy'));
    fs.writeFileSync(path.join(dir, 'clippy', 'config.json'), text);
  }
  return { XDG_CONFIG_HOME: dir };
}

describe('mayCarryHost', () => {
  it('is false for a turn ID or a plain name when no host could be meant', () => {
    expect(mayCarryHost('claude', envWith(undefined))).toBe(false);
    expect(mayCarryHost('claude:3', envWith(undefined))).toBe(false);
    expect(mayCarryHost('claude:3', envWith('{"term": "screen"}'))).toBe(false);
    expect(mayCarryHost('claude:3', envWith('{"hosts": {"build": "me@b"}}'))).toBe(false);
  });

  it('is true for local:, user@host:, a configured name, or a file the schema must judge', () => {
    expect(mayCarryHost('local:claude', envWith(undefined))).toBe(true);
    expect(mayCarryHost('me@b:claude', envWith(undefined))).toBe(true);
    expect(mayCarryHost('build:claude', envWith('{"hosts": {"build": "me@b"}}'))).toBe(true);
    expect(mayCarryHost('build:claude', envWith('{"hosts": ["build"]}'))).toBe(true);
    expect(mayCarryHost('claude:3', envWith('{"hosts": {'))).toBe(true);
  });
});
