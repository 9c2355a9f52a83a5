import { readFileSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import {
  classifyScreen,
  PresetError,
  resolvePreset,
  stripAnsi,
  type UserPresets,
} from '@clippy/turns';
import { InvalidConfigError, readPresetsFile } from '../config-files.js';
import { CliError } from '../errors.js';

/** Exit code of `classify` for an unusable preset: unknown name, bad pattern, broken presets.json. */
export const EXIT_BAD_PRESET = 2;

export interface ClassifyArgs {
  preset?: string;
  pattern?: string;
  explain?: boolean;
  json?: boolean;
}

/** The user's presets, so `classify` judges a screen the way the broker will. */
export function loadUserPresets(): UserPresets {
  try {
    return readPresetsFile();
  } catch (err) {
    // The words every command uses for a broken file; classify's own exit code (docs/presets.md).
    if (err instanceof InvalidConfigError) throw new CliError(err.message, EXIT_BAD_PRESET);
    throw err;
  }
}

/** What `clippy classify` prints for a screen (throws CliError for an unusable preset). */
export function classifyOutput(
  screenBytes: Uint8Array,
  argv: ClassifyArgs,
  userPresets: UserPresets,
): string {
  let preset;
  try {
    preset = resolvePreset(argv.preset, { pattern: argv.pattern, userPresets });
  } catch (err) {
    if (err instanceof PresetError) throw new CliError(err.message, EXIT_BAD_PRESET);
    throw err;
  }
  const result = classifyScreen(stripAnsi(screenBytes), preset);
  if (argv.json) return `${JSON.stringify({ ...result, preset: preset.name }, null, 2)}\n`;
  let out = `${result.state}\n`;
  if (argv.explain) {
    out += `preset: ${preset.name} (${preset.kind})\nreason: ${result.reason}\n`;
    if (result.marker !== undefined) out += `marker: ${result.marker}\n`;
    if (result.line !== undefined) out += `line: ${result.line}\n`;
  }
  return out;
}

/** `clippy classify`: say whether a screen (on stdin) shows the agent idle, busy or blocked. */
const command: CommandModule<object, ClassifyArgs> = {
  command: 'classify',
  describe: 'Classify a screen read from stdin as idle, busy or blocked (to debug presets)',
  builder: (y) =>
    y
      .option('preset', { alias: 'p', type: 'string', describe: 'preset name (default: generic)' })
      .option('pattern', {
        type: 'string',
        describe: 'custom prompt regex: classify as a line preset with it',
      })
      .option('explain', {
        type: 'boolean',
        describe: 'also print why (the marker and the line that decided)',
      })
      .option('json', {
        type: 'boolean',
        describe: 'print {"state", "reason", "marker", "line", "preset"} as JSON',
      })
      .example('clippy classify --preset claude < screen.txt', 'idle, busy or blocked')
      .example(
        "tmux capture-pane -p | clippy classify --pattern '\\$ $' --explain",
        'test a custom prompt',
      ) as never,
  handler: (argv) => {
    // Screens captured with colours (tmux capture-pane -e, script logs) are read as their text.
    process.stdout.write(classifyOutput(new Uint8Array(readFileSync(0)), argv, loadUserPresets()));
  },
};

export default command;
