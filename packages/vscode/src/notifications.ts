import * as vscode from 'vscode';
import { messageOf } from './errors.js';
import type { SessionEvent, SessionModel } from './session-model.js';
import type { Settings } from './settings.js';

/** What notifications need besides the model: settings, and which sessions are already watched. */
export interface NotificationHost {
  settings: () => Settings;
  /** The session's terminal is the one shown: its turns need no notification. */
  isWatched: (sessionId: string) => boolean;
  /** Ask waits for this session's answer and shows it itself. */
  isAsked: (sessionId: string) => boolean;
}

const OPEN = 'Open';
const SHOW_TURN = 'Show Turn';

/**
 * Notifications from the daemon's events: a session became blocked (it asks you something),
 * or finished a turn. Each offers to open the session in a terminal (a turn also to show it).
 */
export class Notifications implements vscode.Disposable {
  private readonly off: vscode.Disposable;

  constructor(
    private readonly model: SessionModel,
    private readonly host: NotificationHost,
  ) {
    this.off = model.onEvent((e) => this.on(e));
  }

  private on(e: SessionEvent): void {
    const s = this.host.settings();
    if (e.type === 'state_changed' && e.state === 'blocked' && e.previous !== 'blocked') {
      if (!s.notifyBlocked) return;
      void this.offer(
        vscode.window.showWarningMessage(
          `clippy: ${e.name} needs you: it is asking a question`,
          OPEN,
        ),
        { [OPEN]: ['clippy.attach', e.session] },
      );
    } else if (e.type === 'turn_completed') {
      if (!s.notifyTurns || this.host.isAsked(e.session) || this.host.isWatched(e.session)) return;
      // A navigator run's steps are turns too; the Navigate command reports its end itself.
      if (this.model.sessions.find((x) => x.session === e.session)?.kind === 'navigator') return;
      void this.offer(
        vscode.window.showInformationMessage(
          `clippy: ${e.name} finished a turn (${e.turn.turn_id})`,
          SHOW_TURN,
          OPEN,
        ),
        {
          [SHOW_TURN]: ['clippy.showTurn', e.turn.turn_id],
          [OPEN]: ['clippy.attach', e.session],
        },
      );
    }
  }

  /** Runs the command of the action the user picked (none when the notification was dismissed). */
  private async offer(
    shown: Thenable<string | undefined>,
    actions: Record<string, [string, ...unknown[]]>,
  ): Promise<void> {
    try {
      const picked = await shown;
      const action = picked === undefined ? undefined : actions[picked];
      if (action) await vscode.commands.executeCommand(...action);
    } catch (err) {
      void vscode.window.showErrorMessage(`clippy: ${messageOf(err)}`);
    }
  }

  dispose(): void {
    this.off.dispose();
  }
}
