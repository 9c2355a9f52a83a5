import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import {
  CONFIG_FILE_NAME,
  DEFAULT_PRICES,
  ConfigFileError,
  ConfigFileSchema,
  DEFAULT_HISTORY_LOCK_WAIT_SECONDS,
  DEFAULT_HISTORY_MAX_AGE_DAYS,
  DEFAULT_HISTORY_MAX_BYTES,
  DEFAULT_MAX_TURN_BYTES,
  DEFAULT_TURN_RING_DEPTH,
  PRESETS_FILE_NAME,
  loadConfigFile,
  type ConfigIo,
  type ModelPrice,
} from '@clippy/protocol';
import { UserPresetsSchema, type UserPresets } from '@clippy/turns';
import { HandlerError } from '../errors.js';

// The defaults sit beside the config file's schema (protocol), where `clippy config` reads them.
export { DEFAULT_MAX_TURN_BYTES, DEFAULT_TURN_RING_DEPTH };

export interface TurnConfig {
  turnRingDepth: number;
  maxTurnBytes: number;
  /** User presets from `presets.json`, by name (they may override built-in ones). */
  userPresets: UserPresets;
  /** config.json `persist`: every session (true), none (false), or those with these presets. */
  persist: boolean | string[];
  /** config.json `agentChannels`: wire agent channels for every preset with an agent (true), none, or these presets. */
  agentChannels: boolean | string[];
  /** Retention of the history (config.json, else the defaults). */
  historyMaxBytes: number;
  historyMaxAgeMs: number;
  /** How long a start waits for the history lock (config.json, else HISTORY_LOCK_WAIT_MS). */
  historyLockWaitMs: number;
  /** config.json `worktreeDir`: where `spawn` with a worktree puts it (null: the default). */
  worktreeDir: string | null;
  /** config.json `web.port`: the web view starts with the daemon on it (undefined: not). */
  webPort: number | undefined;
  /** The pricing table: protocol's DEFAULT_PRICES, config.json `pricing.models` over them. */
  prices: Readonly<Record<string, ModelPrice>>;
}

/** Whether a new session with this preset is persisted when `spawn` does not say. */
export function persistByDefault(config: TurnConfig, preset: string): boolean {
  return Array.isArray(config.persist) ? config.persist.includes(preset) : config.persist;
}

/** Whether a new session with this preset gets its agent's channel when `spawn` does not say. */
export function agentChannelByDefault(config: TurnConfig, preset: string): boolean {
  return Array.isArray(config.agentChannels)
    ? config.agentChannels.includes(preset)
    : config.agentChannels;
}

const SECOND_MS = 1000;
const DAY_MS = 24 * 60 * 60 * SECOND_MS;

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
      webPort: file.web?.port,
      agentChannels: file.agentChannels ?? true,
      historyMaxBytes: file.historyMaxBytes ?? DEFAULT_HISTORY_MAX_BYTES,
      historyMaxAgeMs: (file.historyMaxAgeDays ?? DEFAULT_HISTORY_MAX_AGE_DAYS) * DAY_MS,
      historyLockWaitMs:
        (file.historyLockWaitSeconds ?? DEFAULT_HISTORY_LOCK_WAIT_SECONDS) * SECOND_MS,
      worktreeDir: file.worktreeDir ?? null,
      prices: { ...DEFAULT_PRICES, ...file.pricing?.models },
    };
  } catch (err) {
    if (err instanceof ConfigFileError) throw new HandlerError('invalid_config', err.message);
    throw err;
  }
}

/** The settings files are broken at start: clippyd exits with DAEMON_EXIT_INVALID_CONFIG. */
export class InvalidConfigError extends Error {
  readonly code = 'invalid_config';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidConfigError';
  }
}

/**
 * The settings the daemon starts with (history retention, restored sessions' rings). A broken
 * file throws InvalidConfigError with the same `<file>:<line>: <reason>` a spawn would answer.
 */
export function loadStartSettings(env: Record<string, string | undefined>): TurnConfig {
  try {
    return loadTurnConfig(env);
  } catch (err) {
    if (err instanceof HandlerError && err.code === 'invalid_config')
      throw new InvalidConfigError(err.message);
    throw err;
  }
}
