import * as vscode from 'vscode';
import type { SessionModel } from './session-model.js';

/**
 * The `when`/`enablement` context keys of package.json, from what the daemon said: a command
 * that needs a live session, a turn or an exited session is greyed out in menus, hidden from
 * the palette and silent on its keys while there is none (docs/editors.md lists them).
 */
export const CONTEXT_KEYS = {
  /** The extension follows a daemon. */
  connected: 'clippy.connected',
  /** The daemon has a session, live or exited (the view's welcome shows without one). */
  hasSessions: 'clippy.hasSessions',
  /** A session runs: text can be typed into it, it can be opened or killed. */
  hasLiveSessions: 'clippy.hasLiveSessions',
  /** A session has exited: it can be removed. */
  hasExitedSessions: 'clippy.hasExitedSessions',
  /** A session has a stored turn: it can be shown, captured or relayed. */
  hasTurns: 'clippy.hasTurns',
  /** A session runs in a worktree of its own: its changes can be opened. */
  hasWorktrees: 'clippy.hasWorktrees',
} as const;

/** Sets the context keys whenever the model changes (each only when its value does). */
export class ContextKeys implements vscode.Disposable {
  private readonly values = new Map<string, boolean>();
  private readonly off: vscode.Disposable;

  constructor(private readonly model: SessionModel) {
    this.off = model.onDidChange(() => this.update());
    this.update();
  }

  private update(): void {
    const connected = this.model.status.kind === 'connected';
    const all = connected ? this.model.sessions : [];
    this.set(CONTEXT_KEYS.connected, connected);
    this.set(CONTEXT_KEYS.hasSessions, all.length > 0);
    this.set(
      CONTEXT_KEYS.hasLiveSessions,
      all.some((s) => s.state !== 'exited'),
    );
    this.set(
      CONTEXT_KEYS.hasExitedSessions,
      all.some((s) => s.state === 'exited'),
    );
    this.set(
      CONTEXT_KEYS.hasTurns,
      all.some((s) => s.has_turn),
    );
    this.set(
      CONTEXT_KEYS.hasWorktrees,
      all.some((s) => s.worktree !== undefined),
    );
  }

  private set(key: string, value: boolean): void {
    if (this.values.get(key) === value) return;
    this.values.set(key, value);
    void vscode.commands.executeCommand('setContext', key, value);
  }

  dispose(): void {
    this.off.dispose();
  }
}
