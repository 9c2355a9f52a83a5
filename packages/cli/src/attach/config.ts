import { readConfigFile } from '../config-files.js';
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
