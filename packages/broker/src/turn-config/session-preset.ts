import { PresetError, resolvePreset, type Preset } from '@clippy/turns';
import { HandlerError } from '../errors.js';
import { loadTurnConfig, type TurnConfig } from './turn-config.js';

/**
 * The turn settings, read at each spawn so edits to config.json/presets.json apply to new
 * sessions; a broken file is an `invalid_config` answer naming it and the line.
 */
export function currentTurnConfig(): TurnConfig {
  return loadTurnConfig(process.env);
}

/**
 * The preset of a new session: `--pattern` makes a line preset, else the named preset
 * (default `generic`) with the user's presets.json applied. Fails before anything is spawned,
 * with the engine's message: `invalid_pattern` or `unknown_preset`.
 */
export function resolveSessionPreset(
  name: string | undefined,
  pattern: string | undefined,
  config: TurnConfig,
): Preset {
  try {
    return resolvePreset(pattern !== undefined && name === undefined ? undefined : name, {
      ...(pattern !== undefined ? { pattern } : {}),
      userPresets: config.userPresets,
    });
  } catch (err) {
    if (!(err instanceof PresetError)) throw err;
    const unknown = /^unknown preset/.test(err.message);
    throw new HandlerError(unknown ? 'unknown_preset' : 'invalid_pattern', err.message);
  }
}
