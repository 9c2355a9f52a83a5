import * as vscode from 'vscode';
import type { DaemonLink } from './daemon-link.js';
import { SessionTerminal } from './terminal-bridge.js';

interface Open {
  terminal: vscode.Terminal;
  pty: SessionTerminal;
}

/**
 * The VS Code terminals showing sessions, one per session: opening a session that has one
 * shows it again. Disposing closes them (each detaches; the sessions keep running).
 */
export class Terminals implements vscode.Disposable {
  private readonly open = new Map<string, Open>();
  private readonly off: vscode.Disposable;

  constructor(
    private readonly link: DaemonLink,
    private readonly onError: (message: string) => void,
  ) {
    this.off = vscode.window.onDidCloseTerminal((t) => {
      for (const [id, o] of this.open) if (o.terminal === t) this.open.delete(id);
    });
  }

  /** Shows the session (by ID) in its terminal, opening one when it has none. */
  show(sessionId: string, name: string): vscode.Terminal {
    const known = this.open.get(sessionId);
    if (known) {
      known.terminal.show();
      return known.terminal;
    }
    const pty = new SessionTerminal(this.link, sessionId, name, this.onError);
    const terminal = vscode.window.createTerminal({
      name: `clippy: ${name}`,
      pty,
      iconPath: new vscode.ThemeIcon('hubot'),
    });
    this.open.set(sessionId, { terminal, pty });
    terminal.show();
    return terminal;
  }

  /** The session (ID) whose terminal VS Code shows now, or null. */
  activeSession(): string | null {
    for (const [id, o] of this.open) if (vscode.window.activeTerminal === o.terminal) return id;
    return null;
  }

  dispose(): void {
    this.off.dispose();
    for (const o of this.open.values()) {
      o.pty.dispose();
      o.terminal.dispose();
    }
    this.open.clear();
  }
}
