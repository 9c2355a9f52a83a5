import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CommandModule } from 'yargs';
import {
  NOTIFY_KEYS,
  NOTIFY_SETTING_DESCRIPTIONS,
  WEBHOOK_FORMATS,
  isWebhookUrl,
  maskWebhookUrl,
  withSetting,
  type NotifyKey,
  type NotifyOverrides,
  type NotifyPartial,
  type WebhookFormat,
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
  test?: boolean;
}

/** A setting to change: a switch, or the webhook's URL (false: none here) or its format. */
type Change =
  | [NotifyKey, boolean | null]
  | ['webhook', string | false | null]
  | ['webhookFormat', WebhookFormat | null];

const ON = new Set(['on', 'true', 'yes', '1']);
const OFF = new Set(['off', 'false', 'no', '0']);

/** `KEY=on|off|default` (or `webhook=URL|off|default`, `webhookFormat=json|ntfy|slack|default`). */
export function parseAssignment(text: string): Change {
  const m = /^([A-Za-z]+)=(.*)$/su.exec(text);
  if (!m) throw new CliError(`'${text}' is not KEY=on|off|default`, EXIT.usage);
  const raw = m[2]!;
  const v = raw.toLowerCase();
  if (m[1] === 'webhook') {
    if (v === 'default') return ['webhook', null];
    if (OFF.has(v)) return ['webhook', false];
    // The URL is not echoed: it may hold a secret.
    if (!isWebhookUrl(raw))
      throw new CliError(
        `webhook: not an http:// or https:// URL (or off, default): ${maskWebhookUrl(raw)}`,
        EXIT.usage,
      );
    return ['webhook', raw];
  }
  if (m[1] === 'webhookFormat') {
    if (v === 'default') return ['webhookFormat', null];
    if ((WEBHOOK_FORMATS as readonly string[]).includes(v))
      return ['webhookFormat', v as WebhookFormat];
    throw new CliError(
      `webhookFormat: '${raw}' is not one of ${WEBHOOK_FORMATS.join(', ')} (or default)`,
      EXIT.usage,
    );
  }
  const key = m[1] as NotifyKey;
  if (!NOTIFY_KEYS.includes(key))
    throw new CliError(
      `unknown notify setting '${m[1]}' (known: ${[...NOTIFY_KEYS, 'webhook', 'webhookFormat'].join(', ')})`,
      EXIT.usage,
    );
  if (ON.has(v)) return [key, true];
  if (OFF.has(v)) return [key, false];
  if (v === 'default') return [key, null];
  throw new CliError(`${key}: '${raw}' is not on, off or default`, EXIT.usage);
}

/** Writes config.json's `notify` (or `notify.presets.P`) keys, the rest of the file kept. */
function writeConfig(preset: string | undefined, changes: Change[]): string {
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
  // A webhook's URL may hold a secret: a file with one is the user's alone (0600), as is the
  // file it replaces (renamed over, it keeps the temporary file's mode).
  const secret = /"webhook"\s*:\s*"/u.test(text);
  let mode = 0o644;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    // A new file.
  }
  if (secret) mode = 0o600;
  // Whole or not at all: the daemon reads the file at every event.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text.endsWith('\n') ? text : `${text}\n`, { mode: 0o600 });
  chmodSync(tmp, mode);
  renameSync(tmp, file);
  // What was written must read back: a mistake here is ours, said before the user meets it.
  readConfigFile(env);
  return file;
}

function onOff(v: boolean | undefined): string {
  return v === undefined ? '-' : v ? 'on' : 'off';
}

function written(p: NotifyPartial): string {
  const out = NOTIFY_KEYS.filter((k) => p[k] !== undefined).map((k) => `${k}=${onOff(p[k])}`);
  // The daemon sends the URL as its scheme and host only.
  if (p.webhook !== undefined) out.push(`webhook=${p.webhook === false ? 'off' : p.webhook}`);
  if (p.webhookFormat !== undefined) out.push(`webhookFormat=${p.webhookFormat}`);
  return out.join(' ');
}

/** When something happened, as a person reads it in a status line. */
function when(ms: number): string {
  return new Date(ms).toLocaleString();
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
        describe: `KEY=on|off|default to set (${NOTIFY_KEYS.join(', ')}), webhook=URL|off|default, webhookFormat=${WEBHOOK_FORMATS.join('|')}; none: show them`,
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
      .option('test', {
        type: 'boolean',
        describe:
          'send a test notification to every place that is on (the webhook: once, its answer shown)',
      })
      .conflicts('session', 'preset')
      .conflicts('test', ['session', 'preset'])
      .example('clippy notify', 'what is on, globally, per preset and per session')
      .example('clippy notify bell=on sound=on', 'ring attached terminals, and a sound in the page')
      .example('clippy notify turn=off --preset shell', 'no "turn finished" for shells')
      .example('clippy notify blocked=off --session build', 'quiet for one session')
      .example(
        'clippy notify webhook=https://ntfy.sh/my-secret-topic webhookFormat=ntfy',
        'each event to your phone (the ntfy app)',
      )
      .example('clippy notify --test', 'check that notifications reach you') as never,
  handler: async (argv) => {
    const changes = (argv.settings ?? []).map(parseAssignment);
    if (argv.test) {
      if (changes.length > 0)
        throw new CliError(
          '--test sends a test event: set settings in a command of their own',
          EXIT.usage,
        );
      const r = await withClient(argv, (c) => c.request('notify_test', {}));
      if (argv.json) {
        process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
        return;
      }
      process.stdout.write(
        `test notification sent to: ${r.sinks.length > 0 ? r.sinks.join(', ') : 'nowhere (nothing is on, or nothing can show it now)'}\n`,
      );
      if (r.webhook !== null && !r.webhook.startsWith('HTTP 2'))
        throw new CliError(`webhook: ${r.webhook}`, EXIT.failure);
      if (r.webhook !== null) process.stdout.write(`webhook: ${r.webhook}\n`);
      return;
    }
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
    const hook = r.webhook;
    process.stdout.write(
      `webhook: ${r.global.webhook ? `${r.global.webhook} (${r.global.webhookFormat})` : 'off'}` +
        (hook.pending > 0 ? `; ${hook.pending} waiting` : '') +
        '\n',
    );
    if (hook.last_delivery) {
      const d = hook.last_delivery;
      process.stdout.write(
        `  last delivered: ${when(d.at)}, ${d.event}${d.session ? ` of ${d.session}` : ''} to ${d.url}: HTTP ${d.status}\n`,
      );
    }
    if (hook.last_error) {
      const e = hook.last_error;
      process.stdout.write(
        `  last error: ${when(e.at)}, ${e.event}${e.session ? ` of ${e.session}` : ''} to ${e.url}: ${e.error}\n`,
      );
    }
  },
};

export default command;
