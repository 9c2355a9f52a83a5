import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv } from '@clippy/testkit/daemon';

// End-to-end: bin/clippy.js runs the bundled CLI from V8's compile cache in
// $XDG_CACHE_HOME/clippy, and the full CLI (dist/cli.cjs) from a cache of its own. Whatever a
// cache holds, the command does what it always does.

/** Per test: a few CLI runs (one starting the daemon) on a loaded 2-core CI box. */
const E2E_TIMEOUT_MS = 60_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
}, E2E_TIMEOUT_MS);

/** The fast path's caches (`cli-v8-…`), or the full CLI's (`cli-full-v8-…`). */
function caches(e: DaemonEnv, prefix = 'cli-v8-'): string[] {
  const dir = path.join(e.env.XDG_CACHE_HOME!, 'clippy');
  return fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => f.startsWith(prefix))
        .map((f) => path.join(dir, f))
    : [];
}

describe('the compile cache', () => {
  it(
    'is written by the first command of the fast path, used after, and replaced when damaged',
    async () => {
      const e = new DaemonEnv();
      cleanups.push(() => e.dispose());
      // The full CLI (yargs) compiles little of the entry bundle: it leaves no cache of it, and
      // one of its own bundle.
      expect((await runClippy(['daemon', 'start'], e.env)).code).toBe(0);
      await e.discoverPid();
      expect(caches(e)).toEqual([]);
      expect(caches(e, 'cli-full-v8-')).toHaveLength(1);
      const first = await runClippy(['ls'], e.env);
      expect(first).toMatchObject({ code: 0, stderr: 'no sessions\n' });
      const [file] = caches(e);
      expect(caches(e)).toHaveLength(1);
      const written = fs.statSync(file!).mtimeMs;
      expect(await runClippy(['ls'], e.env)).toEqual(first);
      expect(fs.statSync(file!).mtimeMs, 'a usable cache is not written again').toBe(written);

      fs.writeFileSync(file!, 'not a V8 code cache');
      expect(await runClippy(['ls'], e.env)).toEqual(first);
      expect(fs.readFileSync(file!).length).toBeGreaterThan(1000);
      expect(caches(e)).toEqual([file]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    "the full CLI's is used after, and replaced when damaged",
    async () => {
      const e = new DaemonEnv();
      cleanups.push(() => e.dispose());
      expect((await runClippy(['daemon', 'start'], e.env)).code).toBe(0);
      await e.discoverPid();
      const [file] = caches(e, 'cli-full-v8-');
      const written = fs.statSync(file!).mtimeMs;
      const first = await runClippy(['kill', 'nosuch'], e.env);
      expect(first).toMatchObject({ code: 1, stdout: '' });
      expect(first.stderr).toContain("no session has the ID or name 'nosuch'");
      expect(fs.statSync(file!).mtimeMs, 'a usable cache is not written again').toBe(written);

      fs.writeFileSync(file!, 'not a V8 code cache');
      expect(await runClippy(['kill', 'nosuch'], e.env)).toEqual(first);
      expect(fs.readFileSync(file!).length).toBeGreaterThan(1000);
      expect(caches(e, 'cli-full-v8-')).toEqual([file]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'an unwritable cache directory only means compiling every time',
    async () => {
      const e = new DaemonEnv();
      cleanups.push(() => e.dispose());
      const blocked = path.join(e.root, 'not-a-dir');
      fs.writeFileSync(blocked, '');
      const r = await runClippy(['__complete', 'bash', '--', 'comp'], {
        ...e.env,
        XDG_CACHE_HOME: blocked,
      });
      expect(r).toEqual({ code: 0, stdout: 'completion\n', stderr: '' });
      // The full CLI too (a usage error: no daemon needed).
      const usage = await runClippy(['kill'], { ...e.env, XDG_CACHE_HOME: blocked });
      expect(usage.code).toBe(64);
      expect(usage.stderr).toContain('Not enough non-option arguments');
    },
    E2E_TIMEOUT_MS,
  );
});
