import type { Handler } from './context.js';

/** Every attached client (one row per session it shows), with the PID it told at attach. */
export const listClients: Handler<'list_clients'> = (_request, context) => {
  const focusedEntry = context.focus.focused();
  const clients = [];
  for (const session of context.sessions.all()) {
    for (const client of session.clients()) {
      clients.push({
        session: session.id,
        name: session.name,
        pid: context.focus.pidOf(client),
        mode: session.attachMode(client) ?? 'interactive',
        focused: focusedEntry?.client === client && focusedEntry.session === session,
        terminal: session.writesTerminalOf(client),
      });
    }
  }
  return { clients };
};
