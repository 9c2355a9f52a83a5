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
  return {
    global: settings.effective(null),
    presets,
    sessions: context.sessions.live().map((s) => ({
      session: s.id,
      name: s.name,
      preset: s.preset,
      own: settings.ownOf(s.id),
      effective: settings.effective(s),
    })),
    clients: context.notify.clients.all().map((c) => ({
      kind: c.kind,
      viewing: c.viewing?.id ?? null,
      visible: c.visible,
      can_notify: c.canNotify,
    })),
    desktop: context.notify.desktopUnavailable(),
  };
};
