import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import {
  CONFIG_FILE_NAME,
  ConfigFileError,
  ConfigFileSchema,
  PRESETS_FILE_NAME,
  loadConfigFile,
  type ConfigIo,
} from '@clippy/protocol';
import { UserPresetsSchema, type UserPresets } from '@clippy/turns';
import { HandlerError } from '../errors.js';

/** Turns kept per session by default (clippy's registry default). */
export const DEFAULT_TURN_RING_DEPTH = 32;
/** Content bytes kept per turn by default (clippy's registry default): 4 MiB. */
export const DEFAULT_MAX_TURN_BYTES = 4 * 1024 * 1024;

export interface TurnConfig {
  turnRingDepth: number;
  maxTurnBytes: number;
  /** User presets from `presets.json`, by name (they may override built-in ones). */
  userPresets: UserPresets;
  /** config.json `persist`: every session (true), none (false), or those with these presets. */
  persist: boolean | string[];
  /** Retention of the history (config.json), undefined: the defaults. */
  historyMaxBytes: number | undefined;
  historyMaxAgeMs: number | undefined;
}

/** Whether a new session with this preset is persisted when `spawn` does not say. */
export function persistByDefault(config: TurnConfig, preset: string): boolean {
  return Array.isArray(config.persist) ? config.persist.includes(preset) : config.persist;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The broker's side of protocol's settings loader: only the file read is ours. */
function io(): ConfigIo {
  return { home: homedir(), readFile: (path) => readFileSync(path, 'utf8') };
}

/**
 * Reads the turn settings: `config.json` (`turnRingDepth`, `maxTurnBytes`) and `presets.json`
 * (the engine's UserPresetsSchema), through protocol's loader as the CLI does. A missing file
 * means defaults; a broken one is an `invalid_config` answer naming the file and line (the
 * request that needed it, e.g. spawn, fails: nothing runs on settings the user did not write).
 */
export function loadTurnConfig(env: Record<string, string | undefined>): TurnConfig {
  try {
    const file = loadConfigFile(CONFIG_FILE_NAME, ConfigFileSchema, env, io()) ?? {};
    const userPresets = loadConfigFile(PRESETS_FILE_NAME, UserPresetsSchema, env, io()) ?? {};
    return {
      turnRingDepth: file.turnRingDepth ?? DEFAULT_TURN_RING_DEPTH,
      maxTurnBytes: file.maxTurnBytes ?? DEFAULT_MAX_TURN_BYTES,
      userPresets,
      persist: file.persist ?? false,
      historyMaxBytes: file.historyMaxBytes,
      historyMaxAgeMs:
        file.historyMaxAgeDays === undefined ? undefined : file.historyMaxAgeDays * DAY_MS,
    };
  } catch (err) {
    if (err instanceof ConfigFileError) throw new HandlerError('invalid_config', err.message);
    throw err;
  }
}
