import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import {
  CONFIG_FILE_NAME,
  ConfigFileSchema,
  PRESETS_FILE_NAME,
  configDir,
  loadConfigFile,
  type ConfigFile,
  type ConfigIo,
} from '@clippy/protocol';
import { UserPresetsSchema, type UserPresets } from '@clippy/turns';

// The CLI's side of protocol's settings loader: only the file read is ours. A broken file
// throws ConfigFileError (`<file>:<line>: <reason>`), as it does in the broker.

function io(): ConfigIo {
  return { home: homedir(), readFile: (path) => readFileSync(path, 'utf8') };
}

/** `$XDG_CONFIG_HOME/clippy/config.json` (default `~/.config/clippy/config.json`). */
export function configFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return `${configDir(env, homedir())}/${CONFIG_FILE_NAME}`;
}

/** config.json, checked; empty when there is none. */
export function readConfigFile(env: NodeJS.ProcessEnv = process.env): ConfigFile {
  return loadConfigFile(CONFIG_FILE_NAME, ConfigFileSchema, env, io()) ?? {};
}

/** presets.json (the user's presets), checked; empty when there is none. */
export function readPresetsFile(env: NodeJS.ProcessEnv = process.env): UserPresets {
  return loadConfigFile(PRESETS_FILE_NAME, UserPresetsSchema, env, io()) ?? {};
}
