import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import {
  CONFIG_FILE_NAME,
  ConfigFileError,
  ConfigFileSchema,
  PRESETS_FILE_NAME,
  configDir,
  loadConfigFile,
  type ConfigFile,
  type ConfigIo,
} from '@clippy/protocol';
import { UserPresetsSchema, type UserPresets } from '@clippy/turns';
import { CliError } from './errors.js';
import { EXIT } from './exit-codes.js';

// The CLI's side of protocol's settings loader: only the file read is ours. A broken file is an
// InvalidConfigError, printed as the daemon's answer to a spawn is:
// `clippy: <file>:<line>: <reason> (invalid_config)`, exit 64, whichever command read it.

/** A settings file that cannot be used: the same words and exit code for every command. */
export class InvalidConfigError extends CliError {
  constructor(readonly configError: ConfigFileError) {
    super(`${configError.message} (invalid_config)`, EXIT.usage);
  }
}

function io(): ConfigIo {
  return { home: homedir(), readFile: (path) => readFileSync(path, 'utf8') };
}

function load<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ConfigFileError) throw new InvalidConfigError(err);
    throw err;
  }
}

/** `$XDG_CONFIG_HOME/clippy/config.json` (default `~/.config/clippy/config.json`). */
export function configFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return `${configDir(env, homedir())}/${CONFIG_FILE_NAME}`;
}

/** `$XDG_CONFIG_HOME/clippy/presets.json`. */
export function presetsFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return `${configDir(env, homedir())}/${PRESETS_FILE_NAME}`;
}

/** config.json, checked; empty when there is none. */
export function readConfigFile(env: NodeJS.ProcessEnv = process.env): ConfigFile {
  return load(() => loadConfigFile(CONFIG_FILE_NAME, ConfigFileSchema, env, io()) ?? {});
}

/** presets.json (the user's presets), checked; empty when there is none. */
export function readPresetsFile(env: NodeJS.ProcessEnv = process.env): UserPresets {
  return load(() => loadConfigFile(PRESETS_FILE_NAME, UserPresetsSchema, env, io()) ?? {});
}
