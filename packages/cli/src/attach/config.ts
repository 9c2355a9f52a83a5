import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_DETACH_KEY, parseDetachKey, type DetachKey } from './detach-key.js';

/** `$XDG_CONFIG_HOME/clippy/config.json` (default `~/.config`). */
export function configFilePath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'clippy', 'config.json');
}

/**
 * A string setting of the config file, if the file exists and sets it. Bad JSON or a value of
 * another type is an error naming the file; `example` shows what the value looks like.
 */
export function configuredString(
  key: string,
  example: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const file = configFilePath(env);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const value = (parsed as Record<string, unknown> | null)?.[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw new Error(`${file}: ${key} must be a string like "${example}"`);
  return value;
}

/** The detach key: --detach-key, then CLIPPY_DETACH_KEY, then the config file, then Ctrl-]. */
export function resolveDetachKey(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): DetachKey {
  const spec =
    flag ||
    env.CLIPPY_DETACH_KEY ||
    configuredString('detachKey', 'ctrl-]', env) ||
    DEFAULT_DETACH_KEY;
  return parseDetachKey(spec);
}
