import * as vscode from 'vscode';
import type { ClippyClient } from '@clippy/client';
import type { Push } from '@clippy/protocol';
import type { DaemonLink } from './daemon-link.js';
import { messageOf } from './errors.js';
import { REQUEST_TIMEOUT_MS } from './limits.js';
import type { SessionModel } from './session-model.js';
import type { Settings } from './settings.js';

/** What notifications need besides the model: settings, and which session the editor shows. */
export interface NotificationHost {
  settings: () => Settings;
  /** The session whose terminal VS Code shows now (its turns are read, it is not notified). */
  activeSession: () => string | null;
  /** Ask waits for this session's answer and shows it itself. */
  isAsked: (sessionId: string) => boolean;
}

const OPEN = 'Open';
const SHOW_TURN = 'Show Turn';

/**
 * Notifications the daemon chose this window to show (`notification` pushes: once per event
 * across every editor and page, none for a session the user looks at; docs/notify.md): a session
 * waits for you, or finished a turn. Each offers to open the session in a terminal (a turn also
 * to show it). The window tells the daemon which session it shows and whether it has focus
 * (`notify_client`), so it is quiet about that one and its turns are read.
 */
export class Notifications implements vscode.Disposable {
  private readonly owned: vscode.Disposable[];

  constructor(
    private readonly model: SessionModel,
    private readonly link: DaemonLink,
    private readonly host: NotificationHost,
  ) {
    const report = () => void this.report();
    this.owned = [
      model.onNotification((p) => this.show(p)),
      link.onDidConnect((c) => void this.report(c)),
      vscode.window.onDidChangeActiveTerminal(report),
      vscode.window.onDidChangeWindowState(report),
    ];
  }

  /** Tells the daemon what this window shows now (on the model's connection, which gets the pushes). */
  async report(client?: ClippyClient): Promise<void> {
    try {
      const c = client ?? (await this.link.client({ autostart: false }));
      await c.request(
        'notify_client',
        {
          kind: 'editor',
          viewing: this.host.activeSession(),
          visible: vscode.window.state.focused,
        },
        { timeoutMs: REQUEST_TIMEOUT_MS },
      );
    } catch {
      // No daemon (the model says so), or the session just ended: the next change reports again.
    }
  }

  private show(p: Push<'notification'>): void {
    const s = this.host.settings();
    if (p.event === 'blocked') {
      if (!s.notifyBlocked) return;
      void this.offer(
        vscode.window.showWarningMessage(`clippy: ${p.name} needs you: ${p.body}`, OPEN),
        { [OPEN]: ['clippy.attach', p.session] },
      );
    } else {
      if (!s.notifyTurns || this.host.isAsked(p.session)) return;
      // A navigator run's steps are turns too; the Navigate command reports its end itself.
      if (this.model.sessions.find((x) => x.session === p.session)?.kind === 'navigator') return;
      void this.offer(
        vscode.window.showInformationMessage(
          `clippy: ${p.name} finished a turn (${p.turn_id})`,
          SHOW_TURN,
          OPEN,
        ),
        {
          [SHOW_TURN]: ['clippy.showTurn', p.turn_id],
          [OPEN]: ['clippy.attach', p.session],
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
    for (const d of this.owned.splice(0)) d.dispose();
  }
}
