import { findSession, type Handler } from './context.js';

/** A page or editor says it shows notifications, and which session it shows now. */
export const notifyClient: Handler<'notify_client'> = (request, context) => {
  const viewing = request.viewing == null ? null : findSession(context, request.viewing);
  context.notify.report(context.connection, {
    kind: request.kind,
    viewing,
    visible: request.visible,
    canNotify: request.can_notify ?? true,
    at: Date.now(),
  });
  return {};
};
