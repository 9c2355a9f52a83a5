import { configFilePath, InvalidConfigError, readConfigFile } from '../config-files.js';
import { DEFAULT_DETACH_KEY, parseDetachKey, type DetachKey } from '@clippy/protocol';

export { configFilePath } from '../config-files.js';

/** The detach key: --detach-key, then CLIPPY_DETACH_KEY, then the config file, then Ctrl-]. */
export function resolveDetachKey(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): DetachKey {
  const spec = flag || env.CLIPPY_DETACH_KEY || readConfigFile(env).detachKey || DEFAULT_DETACH_KEY;
  return parseDetachKey(spec);
}

/**
 * Why the detach key in force (CLIPPY_DETACH_KEY, else config.json's `detachKey`) would be
 * refused by `new`, `attach` and `revive`, checked by the same resolveDetachKey: for `clippy
 * config` and `clippy doctor`, which must not pass what those commands refuse. null: none (or
 * the file itself is broken, which is reported as such).
 */
export function detachKeyProblem(
  env: NodeJS.ProcessEnv = process.env,
): { from: string; message: string } | null {
  try {
    resolveDetachKey(undefined, env);
    return null;
  } catch (err) {
    if (err instanceof InvalidConfigError) return null;
    const from = env.CLIPPY_DETACH_KEY
      ? 'CLIPPY_DETACH_KEY'
      : `detachKey in ${configFilePath(env)}`;
    return { from, message: (err as Error).message };
  }
}

/**
 * Whether `clippy attach` may offer the daemon its terminal (direct attach): only to a daemon on
 * this machine (never through --host: a daemon elsewhere cannot open this terminal), and not
 * with CLIPPY_ATTACH_RELAY=1, which keeps every byte going through the attach process.
 */
export function directAttachAllowed(
  remote: boolean,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return !remote && env.CLIPPY_ATTACH_RELAY !== '1';
}
