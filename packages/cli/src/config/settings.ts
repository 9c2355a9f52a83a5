import { readFileSync } from 'node:fs';
import {
  ConfigFileSchema,
  configSettings,
  DEFAULT_HISTORY_LOCK_WAIT_SECONDS,
  DEFAULT_HISTORY_MAX_AGE_DAYS,
  DEFAULT_HISTORY_MAX_BYTES,
  DEFAULT_MAX_TURN_BYTES,
  DEFAULT_DETACH_KEY,
  DEFAULT_TURN_RING_DEPTH,
  NOTIFY_DEFAULTS,
  NOTIFY_KEYS,
  settingLines,
  type ConfigFile,
  DEFAULT_WEBHOOK_FORMAT,
  maskWebhookUrl,
} from '@clippy/protocol';
import { DEFAULT_TIP_MAX_CHARS, DEFAULT_TIP_MAX_LINES } from '@clippy/reports';
import { configFilePath } from '../config-files.js';
import {
  DEFAULT_CAPTURE_KEY,
  DEFAULT_FEEDBACK,
  DEFAULT_PASTE_KEY,
} from '../hotkeys/default-keys.js';
import { DEFAULT_SESSION_TERM } from '../session-term.js';

/**
 * Every setting of config.json with the value clippy uses and where that value came from, for
 * `clippy config`. The keys come from the file's schema (protocol's configSettings), so a
 * key added there shows here; its default must be named below (a test checks every key has one).
 */

/** Each setting's default, by dotted key: the constants the code that reads it uses. */
export const SETTING_DEFAULTS: Readonly<Record<string, unknown>> = {
  turnRingDepth: DEFAULT_TURN_RING_DEPTH,
  maxTurnBytes: DEFAULT_MAX_TURN_BYTES,
  persist: false,
  // Every preset that names an agent reads its own record of its turns.
  agentChannels: true,
  historyMaxBytes: DEFAULT_HISTORY_MAX_BYTES,
  historyMaxAgeDays: DEFAULT_HISTORY_MAX_AGE_DAYS,
  historyLockWaitSeconds: DEFAULT_HISTORY_LOCK_WAIT_SECONDS,
  detachKey: DEFAULT_DETACH_KEY,
  term: DEFAULT_SESSION_TERM,
  'hotkeys.capture': DEFAULT_CAPTURE_KEY,
  'hotkeys.paste': DEFAULT_PASTE_KEY,
  'hotkeys.feedback': DEFAULT_FEEDBACK,
  'executionReport.tipMaxLines': DEFAULT_TIP_MAX_LINES,
  'executionReport.tipMaxChars': DEFAULT_TIP_MAX_CHARS,
  // None: the web view starts only when `clippy web` asks, on any free port.
  'web.port': null,
  hosts: {},
  worktreeDir: '$XDG_STATE_HOME/clippy/worktrees',
  ...Object.fromEntries(NOTIFY_KEYS.map((k) => [`notify.${k}`, NOTIFY_DEFAULTS[k]])),
  // None: events go to no webhook; one set is POSTed as clippy's JSON.
  'notify.webhook': null,
  'notify.webhookFormat': DEFAULT_WEBHOOK_FORMAT,
  'notify.presets': {},
  // Prices over the shipped table (protocol's DEFAULT_PRICES): none.
  'pricing.models': {},
};

/** Environment variables that win over the file (and lose to the command line). */
const SETTING_ENV: Readonly<Record<string, string>> = { detachKey: 'CLIPPY_DETACH_KEY' };

/** Command-line options that win over everything for one run, and the commands that take them. */
const SETTING_FLAGS: Readonly<Record<string, string>> = {
  detachKey: '--detach-key (attach, new)',
  term: '--term (new)',
  persist: '--persist/--no-persist (new)',
  agentChannels: '--no-agent-channel (new)',
  'hotkeys.capture': '--capture (hotkeys)',
  'hotkeys.paste': '--paste (hotkeys)',
  'hotkeys.feedback': '--feedback (hotkeys)',
  'executionReport.tipMaxLines': '--tip-max-lines (navigate, report)',
  'executionReport.tipMaxChars': '--tip-max-chars (navigate, report)',
  'web.port': '--port (web)',
};

export interface Setting {
  key: string;
  value: unknown;
  /** `default`, `file` (config.json), or `env` (the variable in `env`). */
  source: 'default' | 'file' | 'env';
  /** The file's line, when the value (or the one an env var overrides) is written there. */
  line?: number;
  env?: string;
  /** The command-line option that overrides it for one command. */
  flag?: string;
  description: string;
  /** Why the commands that use it refuse this value (the file's schema lets it through). */
  error?: string;
}

export interface EffectiveConfig {
  file: string;
  exists: boolean;
  settings: Setting[];
  /** Keys the file holds that no setting of this clippy reads (a typo, or a newer clippy's). */
  unknown: { key: string; line: number }[];
}

function valueAt(config: ConfigFile, key: string): unknown {
  let v: unknown = config;
  for (const part of key.split('.')) v = (v as Record<string, unknown> | undefined)?.[part];
  return v;
}

/**
 * The effective settings for this environment, given config.json already checked (`config`,
 * from readConfigFile: a broken file never gets here).
 */
export function effectiveConfig(config: ConfigFile, env: NodeJS.ProcessEnv): EffectiveConfig {
  const file = configFilePath(env);
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    text = undefined;
  }
  const lines = text === undefined ? new Map<string, number>() : settingLines(text);
  const settings: Setting[] = [];
  for (const { key, description } of configSettings()) {
    const common = {
      description,
      ...(SETTING_FLAGS[key] ? { flag: SETTING_FLAGS[key] } : {}),
    };
    const envName = SETTING_ENV[key];
    const fromEnv = envName ? env[envName] : undefined;
    const fromFile = valueAt(config, key);
    const line = lines.get(key);
    if (fromEnv) {
      settings.push({
        key,
        value: fromEnv,
        source: 'env',
        env: envName,
        ...lineOf(line),
        ...common,
      });
    } else if (key === 'hosts' && fromFile !== undefined) {
      // One row per host: each is its own line of the file.
      const hosts = Object.entries(fromFile as Record<string, string>);
      if (hosts.length === 0)
        settings.push({ key, value: {}, source: 'file', ...lineOf(line), ...common });
      for (const [name, dest] of hosts)
        settings.push({
          key: `hosts.${name}`,
          value: dest,
          source: 'file',
          ...lineOf(lines.get(`hosts.${name}`)),
          ...common,
        });
    } else if (fromFile !== undefined) {
      // A webhook's URL may hold its secret: shown as its scheme and host.
      const value =
        key === 'notify.webhook' && typeof fromFile === 'string'
          ? maskWebhookUrl(fromFile)
          : fromFile;
      settings.push({ key, value, source: 'file', ...lineOf(line), ...common });
    } else {
      settings.push({ key, value: SETTING_DEFAULTS[key], source: 'default', ...common });
    }
  }
  // The schema lets keys of newer versions through: name them, a typo among them is likely.
  const unknown = [...lines.entries()]
    .filter(([key]) => !key.includes('.') && !Object.hasOwn(ConfigFileSchema.shape, key))
    .map(([key, line]) => ({ key, line }));
  return { file, exists: text !== undefined, settings, unknown };
}

const lineOf = (line: number | undefined) => (line === undefined ? {} : { line });
