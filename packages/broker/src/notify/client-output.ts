import { encodeFrame, type Push } from '@clippy/protocol';
import type { NotifyClient, NotifyClients } from './notify-clients.js';
import type { NotifyEvent, NotifyOutput } from './notify-event.js';

/**
 * A `notification` push to one connection of a kind (the page output, the editor output): the
 * visible or focused one, else the one that reported last. One connection, so several pages or
 * editors show an event once.
 */
export class ClientOutput implements NotifyOutput {
  constructor(
    private readonly clients: NotifyClients,
    private readonly kind: NotifyClient['kind'],
  ) {}

  /** Whether a connection would take it now. */
  available(): boolean {
    return this.clients.pick(this.kind, acceptable) !== null;
  }

  deliver(e: NotifyEvent): boolean {
    const to = this.clients.pick(this.kind, acceptable);
    if (!to) return false;
    to.send(
      encodeFrame({
        type: 'notification',
        id: 0,
        session: e.sessionId,
        name: e.name,
        event: e.event,
        title: e.title,
        body: e.body,
        ...(e.turnId ? { turn_id: e.turnId } : {}),
        sound: e.sound,
        ...(e.choices?.length ? { choices: e.choices } : {}),
      } satisfies Push<'notification'>),
    );
    return true;
  }
}

/** A page the browser does not let notify is no place for one. */
function acceptable(c: NotifyClient): boolean {
  return c.kind !== 'page' || c.canNotify;
}
