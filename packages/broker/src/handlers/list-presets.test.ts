import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { presetNames } from '@clippy/turns';
import { startTestBroker, type TestBroker } from '../test-support/fixtures.js';

// list_presets over the broker's real socket: what a New Session picker offers, read as spawn
// reads the user's presets.json (from the daemon's XDG_CONFIG_HOME).

let tb: TestBroker | null = null;
let config: string;
const saved = process.env.XDG_CONFIG_HOME;

beforeEach(() => {
  config = mkdtempSync(join(tmpdir(), 'clippy-presets-'));
  process.env.XDG_CONFIG_HOME = config;
});

afterEach(async () => {
  await tb?.stop();
  tb = null;
  if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = saved;
  rmSync(config, { recursive: true, force: true });
});

function writePresets(json: string): void {
  mkdirSync(join(config, 'clippy'), { recursive: true });
  writeFileSync(join(config, 'clippy', 'presets.json'), json);
}

it('lists the built-in presets with their kind and description, and the default', async () => {
  tb = await startTestBroker();
  const c = await tb.client();
  const r = await c.ok('list_presets', {});
  const presets = r.presets as { name: string; kind: string; description: string; user: boolean }[];
  expect(presets.map((p) => p.name)).toEqual(presetNames());
  expect(presets.find((p) => p.name === 'claude')).toMatchObject({ kind: 'screen', user: false });
  expect(presets.find((p) => p.name === 'bash')).toMatchObject({ kind: 'line', user: false });
  expect(presets.every((p) => p.description.length > 0)).toBe(true);
  expect(r.default).toBe('generic');
});

it("adds the user's presets.json as it is now; a broken file is invalid_config", async () => {
  tb = await startTestBroker();
  const c = await tb.client();
  writePresets(
    JSON.stringify({
      mine: { kind: 'line', pattern: 'mine> $', description: 'My REPL.' },
      claude: { extends: 'claude', idle: ['^> '] },
    }),
  );
  const { presets } = (await c.ok('list_presets', {})) as unknown as {
    presets: { name: string; user: boolean; description: string }[];
  };
  expect(presets.find((p) => p.name === 'mine')).toEqual({
    name: 'mine',
    kind: 'line',
    description: 'My REPL.',
    user: true,
  });
  expect(presets.find((p) => p.name === 'claude')?.user).toBe(true);

  writePresets('{ "mine": ');
  const broken = await c.request('list_presets', {});
  expect(broken.error).toBe('invalid_config');
  expect(broken.message).toMatch(/presets\.json:\d+/);
});
