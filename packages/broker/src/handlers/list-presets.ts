import { PresetError, presetNames, resolvePreset } from '@clippy/turns';
import { DEFAULT_PRESET } from '../constants.js';
import { currentTurnConfig } from '../turn-config/session-preset.js';
import type { Handler } from './context.js';

/**
 * The presets a spawn may name, as a spawn would resolve them now: the built-in ones with the
 * user's presets.json applied (read afresh, as spawn does; a broken file is its `invalid_config`
 * answer). A user preset that does not resolve is left out: spawning it says why.
 */
export const listPresets: Handler<'list_presets'> = () => {
  const { userPresets } = currentTurnConfig();
  const presets = [];
  for (const name of presetNames(userPresets)) {
    try {
      const p = resolvePreset(name, { userPresets });
      presets.push({
        name,
        kind: p.kind,
        description: p.description,
        user: Object.hasOwn(userPresets, name),
      });
    } catch (err) {
      if (!(err instanceof PresetError)) throw err;
    }
  }
  return { presets, default: DEFAULT_PRESET };
};
