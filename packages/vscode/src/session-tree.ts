import * as vscode from 'vscode';
import type { RouteInfo, SessionInfo, SessionState, TurnMeta } from '@clippy/protocol';
import type { DaemonLink } from './daemon-link.js';
import { messageOf } from './errors.js';
import { REQUEST_TIMEOUT_MS, TURNS_IN_VIEW } from './limits.js';
import type { SessionModel } from './session-model.js';
import { extrasOf, extrasTooltip, unreadOf } from './session-extras.js';
import { oneLine, plural } from './text.js';

/** The view's id (package.json contributes.views). */
export const SESSIONS_VIEW = 'clippy.sessions';

/** What a row of the view stands for; commands run from its context menu receive it. */
export type Node =
  | { kind: 'session'; session: SessionInfo }
  | { kind: 'route'; route: RouteInfo; session: SessionInfo }
  | { kind: 'turn'; turn: TurnMeta; session: SessionInfo }
  | { kind: 'note'; text: string; command?: string };

/** A codicon per state, so the list reads at a glance. */
const STATE_ICONS: Record<SessionState, string> = {
  starting: 'loading~spin',
  idle: 'circle-large-outline',
  busy: 'sync~spin',
  blocked: 'bell-dot',
  exited: 'circle-slash',
};

/** An idle session with unread turns: its answer waits to be read. */
const UNREAD_ICON = 'circle-filled';

/**
 * The "clippy" view: every session with its state and turn count, its routes and, expanded,
 * its newest turns. Redrawn whenever the model changes, that is on the daemon's pushes.
 */
export class SessionTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly off: vscode.Disposable;

  constructor(
    private readonly model: SessionModel,
    private readonly link: DaemonLink,
  ) {
    this.off = model.onDidChange(() => this.changed.fire(undefined));
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!node) return this.roots();
    if (node.kind !== 'session') return [];
    const s = node.session;
    const routes: Node[] = this.model
      .routesOf(s.session)
      .map((route) => ({ kind: 'route', route, session: s }));
    if (!s.has_turn) return routes;
    try {
      const c = await this.link.client({ autostart: false });
      const { turns } = await c.request(
        'list_turns',
        { session: s.session, limit: TURNS_IN_VIEW },
        { timeoutMs: REQUEST_TIMEOUT_MS },
      );
      return [...routes, ...turns.map((turn): Node => ({ kind: 'turn', turn, session: s }))];
    } catch (err) {
      return [...routes, { kind: 'note', text: `turns not read: ${messageOf(err)}` }];
    }
  }

  private roots(): Node[] {
    const st = this.model.status;
    if (st.kind === 'offline') {
      return [
        { kind: 'note', text: `not connected: ${st.reason}`, command: 'clippy.refresh' },
        { kind: 'note', text: 'click here (or Refresh) to connect', command: 'clippy.refresh' },
      ];
    }
    const all = this.model.sessions;
    if (all.length === 0) {
      // Connected and empty: the view's welcome (package.json viewsWelcome) offers New Session.
      return st.kind === 'connecting'
        ? [{ kind: 'note', text: 'connecting to the clippy daemon…' }]
        : [];
    }
    // Live sessions first, each group in the daemon's order (oldest first).
    const live = all.filter((s) => s.state !== 'exited');
    const exited = all.filter((s) => s.state === 'exited');
    return [...live, ...exited].map((session) => ({ kind: 'session', session }));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case 'session':
        return this.sessionItem(node.session);
      case 'route':
        return routeItem(node.route, node.session);
      case 'turn':
        return turnItem(node.turn, node.session);
      case 'note': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        if (node.command) item.command = { command: node.command, title: 'Connect' };
        return item;
      }
    }
  }

  private sessionItem(s: SessionInfo): vscode.TreeItem {
    const routes = this.model.routesOf(s.session).length;
    const item = new vscode.TreeItem(
      s.name,
      s.has_turn || routes > 0
        ? vscode.TreeItemCollapsibleState.Collapsed
        : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `session:${s.session}`;
    item.description = [
      s.state,
      plural(s.turn_count, 'turn'),
      ...extrasOf(s),
      ...(routes > 0 ? [plural(routes, 'route')] : []),
    ].join(' · ');
    item.tooltip = [
      `${s.name} (${s.session}), ${s.kind} session, ${s.state}`,
      `${[s.command, ...s.args].join(' ')}`,
      `in ${s.cwd}`,
      s.state === 'exited'
        ? `exited with ${s.exit_signal ?? `code ${s.exit_code ?? '?'}`}`
        : `pid ${s.pid}, ${s.cols}×${s.rows}`,
      ...(s.persisted ? ['its turns are kept on disk (--persist)'] : []),
      ...[extrasTooltip(s)].filter((t) => t !== undefined),
    ].join('\n');
    // An idle agent whose answer nobody has read yet is not the same as one never asked.
    item.iconPath = new vscode.ThemeIcon(
      s.state === 'idle' && unreadOf(s) > 0 ? UNREAD_ICON : STATE_ICONS[s.state],
    );
    item.contextValue = s.state === 'exited' ? 'clippy.session.exited' : 'clippy.session.live';
    return item;
  }

  dispose(): void {
    this.off.dispose();
    this.changed.dispose();
  }
}

function routeItem(r: RouteInfo, s: SessionInfo): vscode.TreeItem {
  const into = r.to.session === s.session;
  const other = into ? r.from.map((f) => f.name).join(' + ') : r.to.name;
  const item = new vscode.TreeItem(
    `${into ? '←' : '→'} ${other}`,
    vscode.TreeItemCollapsibleState.None,
  );
  item.id = `route:${s.session}:${r.route}`;
  item.description = [
    `${r.kind === 'loop' ? 'loop' : 'route'} ${r.route}`,
    r.state,
    `fired ${r.fired}`,
  ].join(' · ');
  item.tooltip = r.reason ? `${r.state}: ${r.reason}` : `template ${r.template}`;
  item.iconPath = new vscode.ThemeIcon(r.kind === 'loop' ? 'sync' : 'arrow-swap');
  item.contextValue = 'clippy.route';
  return item;
}

function turnItem(t: TurnMeta, s: SessionInfo): vscode.TreeItem {
  const item = new vscode.TreeItem(
    `#${t.seq} ${oneLine(t.prompt, 60)}`,
    vscode.TreeItemCollapsibleState.None,
  );
  item.id = `turn:${t.turn_id}`;
  item.description = [
    new Date(t.timestamp).toLocaleTimeString(),
    `${(t.duration_ms / 1000).toFixed(1)}s`,
    `${t.byte_length} bytes`,
    ...(t.interrupted ? ['interrupted'] : []),
    // Where its text comes from: the agent's own Markdown answer, else the screen.
    ...(t.text_source === 'agent' ? [`${t.agent?.agent ?? 'agent'}'s answer`] : []),
  ].join(' · ');
  item.tooltip = `${t.turn_id} of ${s.name}`;
  item.iconPath = new vscode.ThemeIcon('comment');
  item.contextValue = 'clippy.turn';
  item.command = { command: 'clippy.showTurn', title: 'Show Turn', arguments: [t.turn_id] };
  return item;
}
