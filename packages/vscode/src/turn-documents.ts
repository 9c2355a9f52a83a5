import * as vscode from 'vscode';
import type { DaemonLink } from './daemon-link.js';
import { DaemonError, messageOf } from './errors.js';
import { REQUEST_TIMEOUT_MS } from './limits.js';

/** Read-only documents holding a turn's text: `clippy-turn:/<session name>/<turn id>`. */
export const TURN_SCHEME = 'clippy-turn';

/** The document address of a turn; the session's name is only there to title the tab well. */
export function turnUri(turnId: string, sessionName: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: TURN_SCHEME,
    path: `/${encodeURIComponent(sessionName)}/${encodeURIComponent(turnId)}`,
  });
}

/** The turn ID a turn document shows (the last part of its path). */
export function turnIdOf(uri: vscode.Uri): string {
  return decodeURIComponent(uri.path.slice(uri.path.lastIndexOf('/') + 1));
}

/**
 * Serves turn documents from the daemon (`get_turn`): a turn never changes once stored, so the
 * document is exactly its text, read when VS Code opens it. Content-provider documents are
 * read-only in VS Code.
 */
export class TurnDocuments implements vscode.TextDocumentContentProvider {
  /** Where each read turn's text came from (`agent`: its Markdown answer). */
  private readonly sources = new Map<string, 'agent' | 'screen'>();

  constructor(private readonly link: DaemonLink) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const turnId = turnIdOf(uri);
    try {
      // A turn tab restored when VS Code starts must not start a daemon (its turns would not be there).
      const c = await this.link.client({ autostart: false });
      const { turn } = await c.request(
        'get_turn',
        // Shown in a tab: the turn is read (the session's unread count drops).
        { turn_id: turnId, read: true },
        { timeoutMs: REQUEST_TIMEOUT_MS },
      );
      this.sources.set(turnId, turn.text_source ?? 'screen');
      return turn.text;
    } catch (err) {
      throw new DaemonError(`cannot show turn ${turnId}: ${messageOf(err)}`);
    }
  }

  /**
   * Opens a turn's document: beside the editor (Ask's answer) or in the editor's place. A turn
   * whose text is the agent's own answer (its channel gave it) is shown as Markdown.
   */
  async show(turnId: string, sessionName: string, beside = false): Promise<vscode.TextEditor> {
    let doc = await vscode.workspace.openTextDocument(turnUri(turnId, sessionName));
    if (this.sources.get(turnId) === 'agent' && doc.languageId !== 'markdown')
      doc = await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    return vscode.window.showTextDocument(doc, {
      preview: true,
      ...(beside ? { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true } : {}),
    });
  }
}
