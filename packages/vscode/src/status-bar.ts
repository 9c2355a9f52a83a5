import * as vscode from 'vscode';
import type { SessionModel } from './session-model.js';
import { SESSIONS_VIEW } from './session-tree.js';

/** Left of the editor's own items, beside other tools' status. */
const STATUS_PRIORITY = 50;

/**
 * The status bar item: how many agents are busy, blocked (they wait for you) and idle, from the
 * model (the daemon's pushes). Highlighted while one is blocked; a click shows the view.
 */
export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(
    vscode.StatusBarAlignment.Left,
    STATUS_PRIORITY,
  );
  private readonly off: vscode.Disposable;

  constructor(private readonly model: SessionModel) {
    this.item.name = 'clippy';
    this.item.command = `${SESSIONS_VIEW}.focus`;
    this.off = model.onDidChange(() => this.update());
    this.update();
    this.item.show();
  }

  private update(): void {
    const st = this.model.status;
    if (st.kind !== 'connected') {
      this.item.text = st.kind === 'offline' ? '$(hubot) clippy: offline' : '$(hubot) clippy';
      this.item.tooltip = st.kind === 'offline' ? `clippy: ${st.reason}` : 'clippy: connecting…';
      this.item.command = st.kind === 'offline' ? 'clippy.refresh' : `${SESSIONS_VIEW}.focus`;
      this.item.backgroundColor = undefined;
      return;
    }
    const live = this.model.live();
    const count = (state: string) => live.filter((s) => s.state === state).length;
    const blocked = count('blocked');
    this.item.text = `$(hubot) ${count('busy')} busy · ${blocked} blocked · ${count('idle')} idle`;
    this.item.tooltip =
      live.length === 0
        ? 'clippy: no live sessions'
        : `clippy: ${live.map((s) => `${s.name} ${s.state === 'blocked' ? 'blocked (needs you)' : s.state}`).join(', ')}`;
    this.item.command = `${SESSIONS_VIEW}.focus`;
    this.item.backgroundColor =
      blocked > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.off.dispose();
    this.item.dispose();
  }
}
