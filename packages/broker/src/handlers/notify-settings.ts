import { shown } from '../notify/notify-settings.js';
import { HandlerError, findSession, type Handler } from './context.js';

/** The notification settings in force; with `session` and `set`, that session's own change. */
export const notifySettings: Handler<'notify_settings'> = (request, context) => {
  const { settings } = context.notify;
  if (request.set !== undefined) {
    if (request.session === undefined)
      throw new HandlerError(
        'missing_field',
        'notify_settings with `set` needs `session` (global and preset settings are config.json’s `notify`)',
      );
    settings.setOwn(findSession(context, request.session).id, request.set);
  }
  const { presets } = settings.config();
  // A webhook's URL leaves the daemon as its scheme and host: the rest may be its secret.
  return {
    global: shown(settings.effective(null)),
    presets: Object.fromEntries(Object.entries(presets).map(([k, v]) => [k, shown(v)])),
    sessions: context.sessions.live().map((s) => ({
      session: s.id,
      name: s.name,
      preset: s.preset,
      own: shown(settings.ownOf(s.id)),
      effective: shown(settings.effective(s)),
    })),
    clients: context.notify.clients.all().map((c) => ({
      kind: c.kind,
      viewing: c.viewing?.id ?? null,
      visible: c.visible,
      can_notify: c.canNotify,
    })),
    desktop: context.notify.desktopUnavailable(),
    webhook: context.notify.webhookStatus(),
  };
};
