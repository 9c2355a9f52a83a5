import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { runClippy } from '@clippy/testkit/cli-pty';
import { TestDaemon } from '@clippy/testkit/daemon';

// End-to-end: the real clippyd and `clippy` (needs `npm run build`). The settings files are
// read by one loader (protocol's config-file.ts) in the CLI and in the daemon alike: a broken
// file is an error naming the file and the line, never silently replaced by defaults.

/** Per test: a daemon on a loaded 2-core CI box. */
const E2E_TIMEOUT_MS = 60_000;

let daemon: TestDaemon;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  daemon = await TestDaemon.start();
  env = daemon.env.env;
}, E2E_TIMEOUT_MS);

afterEach(async () => {
  await daemon.stop();
}, E2E_TIMEOUT_MS);

describe('broken settings files', () => {
  it(
    'a broken presets.json (read by the daemon) makes new fail with its file and line',
    async () => {
      const file = path.join(env.XDG_CONFIG_HOME!, 'clippy', 'presets.json');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, '{\n  "mysh": { "extends": "bash", "patern": "> $" }\n}\n');
      const r = await runClippy(['new', '-d', '--', 'sleep', '9'], env);
      expect(r.stderr).toContain(`${file}:2: mysh: `);
      expect(r.stderr).toContain('(invalid_config)');
      expect(r.code).toBe(64);
      const ls = await runClippy(['ls', '--json'], env);
      expect(JSON.parse(ls.stdout).sessions).toEqual([]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'a config.json that is not JSON is refused by the CLI with its file and line',
    async () => {
      const file = path.join(env.XDG_CONFIG_HOME!, 'clippy', 'config.json');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, '{\n  "term": "screen",\n}\n');
      const r = await runClippy(['new', '-d', '--', 'sleep', '9'], env);
      expect(r.stderr).toMatch(
        new RegExp(`^clippy: ${file.replace(/[.]/g, '\\.')}:3: not valid JSON`),
      );
      expect(r.code).toBe(64);
    },
    E2E_TIMEOUT_MS,
  );
});
