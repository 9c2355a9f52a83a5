import { existsSync } from 'node:fs';
import { installed } from './installed.js';

/**
 * What a group of tests needs from the machine (a program, the real agent CLIs, Chromium, the
 * corpus, a build), and what happens when it is missing: on a user's machine the tests skip and
 * say why; in CI (`CI=true`, which `.ci/run` sets) the file fails, naming what is missing — a
 * run that skipped its real agents or its browser must not go green.
 */

/** Whether this is a CI run: `CI` set to `true` or `1`, as `.ci/run` and CI services set it. */
export function inCI(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(?:true|1)$/i.test(env.CI ?? '');
}

/** A requirement missing in CI: the message names it and where it should have come from. */
export class MissingInCI extends Error {
  constructor(why: string) {
    super(`CI must run these tests, but ${why}`);
    this.name = 'MissingInCI';
  }
}

/**
 * `why` the tests cannot run here (null: they can). Outside CI the reason is printed and
 * returned, for `describe.skipIf(unavailable(…) !== null)` or `ctx.skip(reason)`; in CI it
 * throws MissingInCI.
 */
export function unavailable(
  why: string | null,
  env: NodeJS.ProcessEnv = process.env,
): string | null {
  if (why === null) return null;
  if (inCI(env)) throw new MissingInCI(why);
  console.warn(`skipped: ${why}`);
  return why;
}

/** unavailable() for a program on the PATH (Debian packages `.ci/run` installs). */
export function programMissing(program: string, pkg = program): string | null {
  return unavailable(
    installed(program)
      ? null
      : `${program} is not installed (.ci/run installs it: apt-get install ${pkg})`,
  );
}

/** unavailable() for a file or folder beside the clone (`../shared`: in CI, not in a user's clone). */
export function sharedMissing(file: string, what: string): string | null {
  return unavailable(existsSync(file) ? null : `${what} (${file}) is not beside the clone`);
}

/** unavailable() for a built entry point (`npm run build`, which `.ci/run` runs first). */
export function buildMissing(file: string): string | null {
  return unavailable(existsSync(file) ? null : `${file} is not built (npm run build)`);
}

/** unavailable() for a platform fact (Linux only: CI runs on Linux). */
export function platformMissing(ok: boolean, what: string): string | null {
  return unavailable(
    ok ? null : `${what} needs Linux (this is ${process.platform}/${process.arch})`,
  );
}
