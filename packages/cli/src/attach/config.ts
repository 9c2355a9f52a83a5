import { readConfigFile } from '../config-files.js';
import { DEFAULT_DETACH_KEY, parseDetachKey, type DetachKey } from './detach-key.js';

export { configFilePath } from '../config-files.js';

/** The detach key: --detach-key, then CLIPPY_DETACH_KEY, then the config file, then Ctrl-]. */
export function resolveDetachKey(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): DetachKey {
  const spec = flag || env.CLIPPY_DETACH_KEY || readConfigFile(env).detachKey || DEFAULT_DETACH_KEY;
  return parseDetachKey(spec);
}
