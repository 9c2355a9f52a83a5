import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { CONFIG_FILE_NAME, configDir } from '@clippy/protocol';

/**
 * Whether a name given to relay may carry a machine (`build:claude`), decided without loading
 * the config file's schemas (zod and the turn engine: most of a `clippy relay`'s start) in the
 * common case, a turn ID such as `claude:3`: false when no host could be meant — no config
 * file, or one whose `hosts` does not name the prefix. Whenever a host may be meant, or the
 * file is not even JSON, the answer is true and host-ref.ts reads the file with its schema (a
 * broken file is then the error every command gives).
 */
export function mayCarryHost(text: string, env: NodeJS.ProcessEnv): boolean {
  const colon = text.indexOf(':');
  if (colon <= 0 || colon === text.length - 1) return false;
  const prefix = text.slice(0, colon);
  if (prefix === 'local' || prefix.includes('@')) return true;
  let raw: string;
  try {
    raw = readFileSync(`${configDir(env, homedir())}/${CONFIG_FILE_NAME}`, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
  let hosts: unknown;
  try {
    hosts = (JSON.parse(raw) as { hosts?: unknown } | null)?.hosts;
  } catch {
    return true;
  }
  if (hosts === undefined) return false;
  const plain = typeof hosts === 'object' && hosts !== null && !Array.isArray(hosts);
  return !plain || Object.hasOwn(hosts as object, prefix);
}
