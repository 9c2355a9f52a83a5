import * as vscode from 'vscode';
import { registerCommands } from './commands/index.js';
import type { CommandContext } from './commands/context.js';
import { ContextKeys } from './context-keys.js';
import { DaemonLink } from './daemon-link.js';
import { DaemonWatch } from './daemon-watch.js';
import { Notifications } from './notifications.js';
import { Processes } from './processes.js';
import { SessionModel } from './session-model.js';
import { SESSIONS_VIEW, SessionTree } from './session-tree.js';
import { readSettings } from './settings.js';
import { StatusBar } from './status-bar.js';
import { Terminals } from './terminals.js';
import { TURN_SCHEME, TurnDocuments } from './turn-documents.js';
import { BASE_SCHEME, BaseDocuments } from './base-documents.js';

/** What activate() hands back: the parts tests (and other extensions) may look at. */
export interface ClippyExtension {
  model: SessionModel;
  tree: SessionTree;
}

/** Settings whose change means another daemon: the connection is made again. */
const RECONNECT_SETTINGS = ['clippy.socket', 'clippy.transport'];

export function activate(context: vscode.ExtensionContext): ClippyExtension {
  const link = new DaemonLink(readSettings);
  const model = new SessionModel(link);
  const tree = new SessionTree(model, link);
  const view = vscode.window.createTreeView(SESSIONS_VIEW, {
    treeDataProvider: tree,
    showCollapseAll: true,
  });
  const showError = (message: string) => void vscode.window.showErrorMessage(`clippy: ${message}`);
  const terminals = new Terminals(link, showError);
  const turns = new TurnDocuments(link);
  const processes = new Processes();
  const ctx: CommandContext = {
    link,
    model,
    terminals,
    turns,
    processes,
    settings: readSettings,
    asking: new Set(),
  };
  context.subscriptions.push(
    terminals,
    processes,
    view,
    tree,
    new StatusBar(model),
    new ContextKeys(model),
    new Notifications(model, link, {
      settings: readSettings,
      activeSession: () => terminals.activeSession(),
      isAsked: (id) => ctx.asking.has(id),
    }),
    // A daemon started later (by `clippy new` in a shell) is noticed when its socket appears.
    new DaemonWatch(model, link),
    vscode.workspace.registerTextDocumentContentProvider(TURN_SCHEME, turns),
    vscode.workspace.registerTextDocumentContentProvider(BASE_SCHEME, new BaseDocuments()),
    ...registerCommands(ctx),
    // Showing the view is asking for the sessions: start the daemon then, as `clippy ls` would.
    view.onDidChangeVisibility((e) => {
      if (e.visible && model.status.kind === 'offline') void model.connect(true);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (RECONNECT_SETTINGS.some((s) => e.affectsConfiguration(s))) {
        void link.reset().then(() => model.connect(view.visible));
      }
    }),
    model,
    link,
  );
  // At start-up a daemon that runs is followed; one is started only when the view is shown.
  void model.connect(view.visible);
  return { model, tree };
}

export function deactivate(): void {
  // Everything is in context.subscriptions, which VS Code disposes.
}
