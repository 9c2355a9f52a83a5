import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { UserPresetsSchema, type UserPresets } from '@clippy/turns';

/** Turns kept per session by default (clippy's registry default). */
export const DEFAULT_TURN_RING_DEPTH = 32;
/** Content bytes kept per turn by default (clippy's registry default): 4 MiB. */
export const DEFAULT_MAX_TURN_BYTES = 4 * 1024 * 1024;
/** Largest accepted per-turn cap: a turn must fit in one 16 MiB frame with room to spare. */
const MAX_TURN_BYTES_LIMIT = 12 * 1024 * 1024;
/** Largest accepted ring depth: bounds memory at depth × cap per session. */
const MAX_TURN_RING_DEPTH = 1024;

/** The keys of `config.json` the turn registry reads; other keys belong to other parts. */
export const TurnConfigFileSchema = z
  .object({
    turnRingDepth: z.number().int().min(1).max(MAX_TURN_RING_DEPTH).optional(),
    maxTurnBytes: z.number().int().min(1024).max(MAX_TURN_BYTES_LIMIT).optional(),
  })
  .loose();

export interface TurnConfig {
  turnRingDepth: number;
  maxTurnBytes: number;
  /** User presets from `presets.json`, by name (they may override built-in ones). */
  userPresets: UserPresets;
  /** Problems found in the files (the broker logs them and keeps the defaults). */
  problems: string[];
}

/** `$XDG_CONFIG_HOME/clippy` (default `~/.config/clippy`). */
export function configDir(env: Record<string, string | undefined>): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'clippy');
}

/**
 * Reads the turn settings: `config.json` (`turnRingDepth`, `maxTurnBytes`) and `presets.json`
 * (validated with the engine's UserPresetsSchema). A missing file means defaults; a broken
 * one is reported in `problems` with the file and the reason, and its values are not used.
 */
export function loadTurnConfig(env: Record<string, string | undefined>): TurnConfig {
  const dir = configDir(env);
  const problems: string[] = [];
  const config: TurnConfig = {
    turnRingDepth: DEFAULT_TURN_RING_DEPTH,
    maxTurnBytes: DEFAULT_MAX_TURN_BYTES,
    userPresets: {},
    problems,
  };
  const file = readJson(join(dir, 'config.json'), problems);
  if (file !== undefined) {
    const parsed = TurnConfigFileSchema.safeParse(file);
    if (parsed.success) {
      config.turnRingDepth = parsed.data.turnRingDepth ?? config.turnRingDepth;
      config.maxTurnBytes = parsed.data.maxTurnBytes ?? config.maxTurnBytes;
    } else {
      problems.push(`${join(dir, 'config.json')}: ${z.prettifyError(parsed.error)}`);
    }
  }
  const presets = readJson(join(dir, 'presets.json'), problems);
  if (presets !== undefined) {
    const parsed = UserPresetsSchema.safeParse(presets);
    if (parsed.success) config.userPresets = parsed.data;
    else problems.push(`${join(dir, 'presets.json')}: ${z.prettifyError(parsed.error)}`);
  }
  return config;
}

function readJson(path: string, problems: string[]): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      problems.push(`${path}: ${(err as Error).message}`);
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    problems.push(`${path}: not valid JSON (${(err as Error).message})`);
    return undefined;
  }
}
