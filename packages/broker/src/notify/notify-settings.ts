import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import {
  CONFIG_FILE_NAME,
  ConfigFileSchema,
  DEFAULT_WEBHOOK_FORMAT,
  NOTIFY_DEFAULTS,
  NOTIFY_KEYS,
  loadConfigFile,
  maskWebhookUrl,
  type NotifyEffective,
  type NotifyOverrides,
  type NotifyPartial,
} from '@clippy/protocol';

/** Every setting of one level that is not a switch: the webhook and its format. */
const WEBHOOK_KEYS = ['webhook', 'webhookFormat'] as const;

/** What is in force for a session, the webhook's URL whole (the daemon's own use only). */
export type NotifyInForce = Omit<NotifyEffective, 'webhook'> & { webhook: string | null };

/** Settings as they may leave the daemon: a webhook's URL as its scheme and host. */
export function shown<T extends { webhook?: string | false | null }>(settings: T): T {
  return typeof settings.webhook === 'string'
    ? { ...settings, webhook: maskWebhookUrl(settings.webhook) }
    : settings;
}

/** config.json's `notify`: the global settings and those of presets, as written. */
export interface NotifyConfig {
  global: NotifyPartial;
  presets: Record<string, NotifyPartial>;
}

/**
 * Reads config.json's `notify` at each use: a change the user (or `clippy notify`) writes is in
 * force for the next event, with no restart. A file that cannot be read now (the daemon started
 * on a good one) leaves the last good settings in force: a typo never silences or floods.
 */
export class NotifySettings {
  private last: NotifyConfig = { global: {}, presets: {} };
  /** Each session's own settings, for its life (`clippy notify --session`). */
  private readonly own = new Map<string, NotifyPartial>();

  constructor(
    private readonly env: Record<string, string | undefined>,
    private readonly onError: (message: string) => void,
  ) {}

  config(): NotifyConfig {
    try {
      const file = loadConfigFile(CONFIG_FILE_NAME, ConfigFileSchema, this.env, {
        home: homedir(),
        readFile: (path) => readFileSync(path, 'utf8'),
      });
      const { presets = {}, ...global } = file?.notify ?? {};
      this.last = { global, presets };
    } catch (err) {
      this.onError((err as Error).message);
    }
    return this.last;
  }

  /** What is in force for a session: defaults, then config.json, its preset's, then its own. */
  effective(session: { id: string; preset: string } | null): NotifyInForce {
    const { global, presets } = this.config();
    const layers = [global];
    if (session) layers.push(presets[session.preset] ?? {}, this.own.get(session.id) ?? {});
    return merge(layers);
  }

  ownOf(sessionId: string): NotifyPartial {
    return { ...this.own.get(sessionId) };
  }

  /** Sets a session's own settings: a value replaces, null drops one. */
  setOwn(sessionId: string, overrides: NotifyOverrides): NotifyPartial {
    const next: NotifyPartial = { ...this.own.get(sessionId) };
    for (const key of [...NOTIFY_KEYS, ...WEBHOOK_KEYS]) {
      const v = overrides[key];
      if (v === null) delete next[key];
      else if (v !== undefined) (next as Record<string, unknown>)[key] = v;
    }
    if (Object.keys(next).length > 0) this.own.set(sessionId, next);
    else this.own.delete(sessionId);
    return { ...next };
  }

  forget(sessionId: string): void {
    this.own.delete(sessionId);
  }
}

function merge(layers: NotifyPartial[]): NotifyInForce {
  const out: NotifyInForce = {
    ...NOTIFY_DEFAULTS,
    webhook: null,
    webhookFormat: DEFAULT_WEBHOOK_FORMAT,
  };
  for (const layer of layers) {
    for (const key of NOTIFY_KEYS) {
      const v = layer[key];
      if (v !== undefined) out[key] = v;
    }
    // false: no webhook at this level, over one set below it.
    if (layer.webhook !== undefined) out.webhook = layer.webhook || null;
    if (layer.webhookFormat !== undefined) out.webhookFormat = layer.webhookFormat;
  }
  return out;
}
