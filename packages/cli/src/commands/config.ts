import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import {
  InvalidConfigError,
  configFilePath,
  presetsFilePath,
  readConfigFile,
  readPresetsFile,
} from '../config-files.js';
import { detachKeyProblem } from '../attach/config.js';
import { effectiveConfig, type Setting } from '../config/settings.js';
import { EXIT } from '../exit-codes.js';
import { renderTable } from '../table.js';

interface ConfigArgs {
  json?: boolean;
}

/** A value as the file would hold it (strings bare, the rest as JSON). */
function shown(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Where a value came from, as a person reads it (the file's path heads the table). */
function origin(s: Setting, file: string): string {
  const name = basename(file);
  const at = s.line === undefined ? '' : `${name}:${s.line}`;
  if (s.source === 'env') return `${s.env}${at ? ` (over ${at})` : ''}`;
  if (s.source === 'file') return at || name;
  return 'default';
}

/** Each settings file: checked with the loader every command uses; the error or null. */
function check(read: () => unknown): InvalidConfigError | null {
  try {
    read();
    return null;
  } catch (err) {
    if (err instanceof InvalidConfigError) return err;
    throw err;
  }
}

async function show(argv: ConfigArgs): Promise<void> {
  const env = process.env;
  const file = configFilePath(env);
  const presetsFile = presetsFilePath(env);
  const configError = check(() => readConfigFile(env));
  const presetsError = check(() => readPresetsFile(env));
  const presets = {
    file: presetsFile,
    exists: existsSync(presetsFile),
    valid: presetsError === null,
    ...(presetsError ? { error: presetsError.configError.message } : {}),
  };
  if (configError) {
    // The settings in force cannot be told: every command refuses the file until it is mended.
    if (argv.json) {
      const out = { file, valid: false, error: configError.configError.message, presets };
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    }
    process.stderr.write(`clippy: ${configError.message}\n`);
    if (presetsError) process.stderr.write(`clippy: ${presetsError.message}\n`);
    process.exitCode = configError.exitCode;
    return;
  }
  const effective = effectiveConfig(readConfigFile(env), env);
  // A value the file's schema lets through but the commands using it refuse (the same check).
  const detachKey = detachKeyProblem(env);
  if (detachKey) {
    const setting = effective.settings.find((s) => s.key === 'detachKey');
    if (setting) setting.error = detachKey.message;
  }
  if (argv.json) {
    const out = { ...effective, valid: true, presets };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    const state = effective.exists ? 'valid' : 'absent: every setting is its default';
    process.stdout.write(`${file}: ${state}\n`);
    process.stdout.write(
      renderTable(
        [{ header: 'KEY' }, { header: 'VALUE' }, { header: 'FROM' }, { header: 'OVERRIDE' }],
        effective.settings.map((s) => [
          s.key,
          s.error ? `${shown(s.value)} (refused)` : shown(s.value),
          origin(s, file),
          s.flag ?? '',
        ]),
      ),
    );
    for (const u of effective.unknown)
      process.stdout.write(
        `warning: ${file}:${u.line}: '${u.key}' is no setting of this clippy (ignored; a typo?)\n`,
      );
    const presetsState = presetsError
      ? presetsError.configError.message
      : presets.exists
        ? 'valid'
        : 'absent';
    process.stdout.write(`${presetsFile}: ${presetsState}\n`);
  }
  if (presetsError) {
    if (!argv.json) process.stderr.write(`clippy: ${presetsError.message}\n`);
    process.exitCode = presetsError.exitCode;
  }
  if (detachKey) {
    process.stderr.write(
      `clippy: ${detachKey.from}: ${detachKey.message} (clippy new and attach refuse it)\n`,
    );
    process.exitCode = EXIT.usage;
  }
}

/** `clippy config [--json]` / `clippy config path`. */
const command: CommandModule<object, ConfigArgs> = {
  command: 'config',
  describe: 'Show every setting of config.json, its value and where it came from; check the file',
  builder: (y: Argv) =>
    y
      .usage(
        '$0 config [--json]\n$0 config path\n\n' +
          'Every setting of config.json with the value in force and where it came from (default, ' +
          'the file and line, an environment variable), and the option that overrides it for one ' +
          'command. Exits 64 when config.json or presets.json is broken, with the file and line.',
      )
      .option('json', {
        type: 'boolean',
        describe:
          'print {file, exists, valid, settings: [{key, value, source, line, env, flag, description, error}], unknown, presets}',
      })
      .command({
        command: 'path',
        describe: "Print config.json's path (whether or not it exists)",
        handler: () => {
          process.stdout.write(`${configFilePath(process.env)}\n`);
        },
      }) as never,
  handler: (argv) => show(argv),
};

export default command;
