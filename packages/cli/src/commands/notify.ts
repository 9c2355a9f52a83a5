import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CommandModule } from 'yargs';
import {
  NOTIFY_KEYS,
  NOTIFY_SETTING_DESCRIPTIONS,
  withSetting,
  type NotifyKey,
  type NotifyOverrides,
  type NotifyPartial,
} from '@clippy/protocol';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { configFilePath, readConfigFile } from '../config-files.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { renderTable } from '../table.js';

interface NotifyArgs extends CommonArgs {
  settings?: string[];
  session?: string;
  preset?: string;
  json?: boolean;
}

const ON = new Set(['on', 'true', 'yes', '1']);
const OFF = new Set(['off', 'false', 'no', '0']);

/** `KEY=on|off|default` → the key and its value (null: back to the level below). */
export function parseAssignment(text: string): [NotifyKey, boolean | null] {
  const m = /^([a-z]+)=(.*)$/u.exec(text);
  if (!m) throw new CliError(`'${text}' is not KEY=on|off|default`, EXIT.usage);
  const key = m[1] as NotifyKey;
  if (!NOTIFY_KEYS.includes(key))
    throw new CliError(
      `unknown notify setting '${m[1]}' (known: ${NOTIFY_KEYS.join(', ')})`,
      EXIT.usage,
    );
  const v = m[2]!.toLowerCase();
  if (ON.has(v)) return [key, true];
  if (OFF.has(v)) return [key, false];
  if (v === 'default') return [key, null];
  throw new CliError(`${key}: '${m[2]}' is not on, off or default`, EXIT.usage);
}

/** Writes config.json's `notify` (or `notify.presets.P`) keys, the rest of the file kept. */
function writeConfig(preset: string | undefined, changes: [NotifyKey, boolean | null][]): string {
  const env = process.env;
  // A broken file is refused before anything is written (the same error as every command's).
  readConfigFile(env);
  const file = configFilePath(env);
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const base = preset === undefined ? ['notify'] : ['notify', 'presets', preset];
  for (const [key, value] of changes) text = withSetting(text, [...base, key], value ?? undefined);
  mkdirSync(dirname(file), { recursive: true });
  // Whole or not at all: the daemon reads the file at every event.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text.endsWith('\n') ? text : `${text}\n`);
  renameSync(tmp, file);
  // What was written must read back: a mistake here is ours, said before the user meets it.
  readConfigFile(env);
  return file;
}

function onOff(v: boolean | undefined): string {
  return v === undefined ? '-' : v ? 'on' : 'off';
}

function written(p: NotifyPartial): string {
  return NOTIFY_KEYS.filter((k) => p[k] !== undefined)
    .map((k) => `${k}=${onOff(p[k])}`)
    .join(' ');
}

/** `clippy notify`: show or change when and where the daemon tells you about your sessions. */
const command: CommandModule<object, NotifyArgs> = {
  command: 'notify [settings..]',
  describe: 'Show or set notifications: when a turn finishes or a session waits for you',
  builder: (y) =>
    withSocket(y)
      .positional('settings', {
        type: 'string',
        array: true,
        describe: `KEY=on|off|default to set (${NOTIFY_KEYS.join(', ')}); none: show them`,
      })
      .option('session', {
        type: 'string',
        describe: 'set for this session only, for its life (not written to config.json)',
      })
      .option('preset', {
        type: 'string',
        describe: "set for a preset's sessions (config.json notify.presets)",
      })
      .option('json', { type: 'boolean', describe: 'print the settings in force as JSON' })
      .conflicts('session', 'preset')
      .example('clippy notify', 'what is on, globally, per preset and per session')
      .example('clippy notify bell=on sound=on', 'ring attached terminals, and a sound in the page')
      .example('clippy notify turn=off --preset shell', 'no "turn finished" for shells')
      .example('clippy notify blocked=off --session build', 'quiet for one session') as never,
  handler: async (argv) => {
    const changes = (argv.settings ?? []).map(parseAssignment);
    if (changes.length > 0 && argv.session === undefined) {
      const file = writeConfig(argv.preset, changes);
      if (!argv.json) process.stderr.write(`clippy: wrote ${file}\n`);
    }
    const set: NotifyOverrides | undefined =
      changes.length > 0 && argv.session !== undefined ? Object.fromEntries(changes) : undefined;
    if (set === undefined && argv.session !== undefined)
      throw new CliError('--session needs KEY=on|off|default settings to set', EXIT.usage);
    const r = await withClient(argv, (c) =>
      c.request('notify_settings', set ? { session: argv.session!, set } : {}),
    );
    if (argv.json) {
      process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
      return;
    }
    if (changes.length > 0) return;
    process.stdout.write(
      renderTable(
        [{ header: 'KEY' }, { header: 'VALUE' }, { header: 'WHAT' }],
        NOTIFY_KEYS.map((k) => [k, onOff(r.global[k]), NOTIFY_SETTING_DESCRIPTIONS[k]]),
      ),
    );
    for (const [name, p] of Object.entries(r.presets))
      if (written(p)) process.stdout.write(`preset ${name}: ${written(p)}\n`);
    for (const s of r.sessions)
      if (written(s.own)) process.stdout.write(`session ${s.name}: ${written(s.own)}\n`);
    // Where they can show now: said, so a silent setup explains itself.
    const pages = r.clients.filter((c) => c.kind === 'page');
    const editors = r.clients.filter((c) => c.kind === 'editor').length;
    const mayNotify = pages.filter((c) => c.can_notify).length;
    process.stdout.write(
      `desktop: ${r.desktop ? `no (${r.desktop})` : 'yes'}; pages: ${pages.length} (${mayNotify} may notify); editors: ${editors}\n`,
    );
  },
};

export default command;
