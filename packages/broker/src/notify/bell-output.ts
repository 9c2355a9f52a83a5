import type { FocusState } from '../focus/focus-state.js';
import type { Session, SessionClient } from '../sessions/session.js';
import type { NotifyEvent, NotifyOutput } from './notify-event.js';

/** What the bell needs of the broker: every attached client with its sessions, and focus. */
export interface BellHost {
  attachedClients(): Map<SessionClient, Session[]>;
  readonly focus: FocusState;
}

/**
 * The terminal bell, rung once per event in one terminal: the focused attached one (the user
 * is there, in another session), else one attached interactively to the session itself, else
 * the one attached interactively last to any session. tmux marks a window that rang.
 */
export class BellOutput implements NotifyOutput {
  constructor(private readonly host: BellHost) {}

  deliver(e: NotifyEvent): boolean {
    const focused = this.host.focus.focused();
    if (focused) return focused.session.bell(focused.client);
    const session = e.session;
    const mine = session
      ?.clients()
      .filter((c) => session.attachMode(c) === 'interactive')
      .at(-1);
    if (session && mine) return session.bell(mine);
    let last: [SessionClient, Session] | null = null;
    for (const [client, sessions] of this.host.attachedClients())
      for (const s of sessions)
        if (s.live && s.attachMode(client) === 'interactive') last = [client, s];
    return last ? last[1].bell(last[0]) : false;
  }
}
