import type { TurnUsage } from './format.js';
import type { Rpc } from './rpc.js';

export type SessionState = 'starting' | 'idle' | 'busy' | 'blocked' | 'exited';

/** A blocked session's question and choices, as the daemon read them (protocol's Menu). */
export interface Menu {
  question: string;
  detail: string[];
  options: { label: string; keys: string[]; selected: boolean }[];
  style: 'numbered' | 'radio' | 'row' | 'letters';
  cancel: string[] | null;
}

export interface SessionRow {
  session: string;
  name: string;
  state: SessionState;
  command: string;
  args: string[];
  turn_count: number;
  created_at: number;
  /** The session's real terminal size (the page shows it at this size, scaled or panned). */
  cols: number;
  rows: number;
  /** With `blocked`: the question on the screen and its choices. */
  menu?: Menu | null;
  exit_code?: number | null;
  exit_signal?: string | null;
  /** Its own git worktree (`clippy new --worktree`): the view offers its diff. */
  worktree?: { branch: string; path: string };
  /** The start of the last turn's text (what the agent last said), as the broker cut it. */
  preview: string;
  lastTurnAt: number | null;
  /** Finished turns nobody has looked at (docs/notify.md). */
  unread?: number;
  /** Tokens and cost its agent reported over its turns (its channel), when it did. */
  input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
}

/** What the page reads of a turn's metadata (`turn_completed`, `list_turns`). */
interface TurnMetaRow {
  seq: number;
  timestamp: number;
  preview?: string;
  agent?: TurnUsage;
}

export interface RouteRow {
  route: string;
  kind: string;
  from: { session: string; name: string }[];
  to: { session: string; name: string };
  state: string;
  fired: number;
}

/** Route list refreshes coalesce: a loop firing fast asks once per this interval at most. */
const ROUTES_REFRESH_MS = 250;

/**
 * What the page knows of the daemon: the sessions and routes, kept current by the pushes the
 * CLI's `clippy ls --watch`-like clients also get. Listeners hear "something changed" and
 * render on the next animation frame, so a burst of pushes costs one render.
 */
export class Store {
  readonly sessions = new Map<string, SessionRow>();
  routes: RouteRow[] = [];
  private readonly listeners = new Set<() => void>();
  private routesTimer: ReturnType<typeof setTimeout> | null = null;
  /** Counts for the load figures (bench): pushes handled. */
  pushes = 0;

  constructor(private readonly rpc: Rpc) {}

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** Listens to the daemon's pushes, then lists what there is (`sync`). */
  async load(): Promise<void> {
    const rpc = this.rpc;
    rpc.on('session_created', (p) => {
      this.pushes++;
      const info = p.session as SessionRow;
      this.sessions.set(info.session, { ...info, preview: '', lastTurnAt: null });
      this.changed();
    });
    rpc.on('state_changed', (p) => {
      this.pushes++;
      const row = this.sessions.get(p.session as string);
      if (row) {
        row.state = p.state as SessionState;
        row.menu = (p.menu as Menu | undefined) ?? null;
      }
      this.changed();
    });
    rpc.on('session_resized', (p) => {
      this.pushes++;
      const row = this.sessions.get(p.session as string);
      if (row) {
        row.cols = p.cols as number;
        row.rows = p.rows as number;
      }
      this.changed();
    });
    rpc.on('turn_completed', (p) => {
      this.pushes++;
      const row = this.sessions.get(p.session as string);
      const turn = p.turn as TurnMetaRow;
      if (!row) return;
      row.turn_count = Math.max(row.turn_count, turn.seq);
      row.lastTurnAt = turn.timestamp;
      // The push carries the start of the text: no turn is fetched (its content and text can be
      // megabytes each) for a card that shows 400 characters.
      row.preview = turn.preview ?? row.preview;
      addUsage(row, turn.agent);
      this.changed();
    });
    rpc.on('session_exited', (p) => {
      this.pushes++;
      const row = this.sessions.get(p.session as string);
      if (row) {
        row.state = 'exited';
        row.menu = null;
        row.exit_code = p.exit_code as number | null;
        row.exit_signal = p.signal as string | null;
      }
      this.changed();
    });
    rpc.on('session_removed', (p) => {
      this.pushes++;
      this.sessions.delete(p.session as string);
      this.changed();
    });
    rpc.on('unread_changed', (p) => {
      this.pushes++;
      const row = this.sessions.get(p.session as string);
      if (row) row.unread = p.unread as number;
      this.changed();
    });
    rpc.on('route_fired', () => this.refreshRoutesSoon());
    rpc.on('route_event', () => this.refreshRoutesSoon());
    await this.sync();
  }

  /**
   * Subscribes and lists the sessions and routes: at load, and again after a reconnection (the
   * daemon may have restarted: sessions it no longer has are dropped, the rest taken as listed).
   */
  async sync(): Promise<void> {
    const rpc = this.rpc;
    // Subscribe first, then list: nothing that happens in between is missed.
    await rpc.request('subscribe', {});
    const { sessions } = await rpc.request<{ sessions: SessionRow[] }>('list_sessions');
    const listed = new Set(sessions.map((s) => s.session));
    for (const id of this.sessions.keys()) if (!listed.has(id)) this.sessions.delete(id);
    for (const info of sessions) {
      const known = this.sessions.get(info.session);
      this.sessions.set(info.session, {
        ...info,
        menu: info.menu ?? null,
        preview: known?.preview ?? '',
        lastTurnAt: known?.lastTurnAt ?? null,
      });
    }
    this.changed();
    await this.refreshRoutes();
    await Promise.all(
      [...this.sessions.values()].filter((r) => r.turn_count > 0).map((r) => this.fetchPreview(r)),
    );
  }

  /** The card's preview at load: the latest turn's metadata, which carries it. */
  private async fetchPreview(row: SessionRow): Promise<void> {
    try {
      const { turns } = await this.rpc.request<{ turns: TurnMetaRow[] }>('list_turns', {
        session: row.session,
        limit: 1,
      });
      const latest = turns[0];
      if (!latest) return;
      row.preview = latest.preview ?? '';
      row.lastTurnAt = latest.timestamp;
      this.changed();
    } catch {
      // The session is gone: the card goes with its session_removed push.
    }
  }

  private refreshRoutesSoon(): void {
    if (this.routesTimer) return;
    this.routesTimer = setTimeout(() => {
      this.routesTimer = null;
      void this.refreshRoutes();
    }, ROUTES_REFRESH_MS);
  }

  private async refreshRoutes(): Promise<void> {
    try {
      const { routes } = await this.rpc.request<{ routes: RouteRow[] }>('list_routes');
      this.routes = routes;
      this.changed();
    } catch {
      // A daemon without routes support: no lines to draw.
    }
  }

  /** A session by ID or name. */
  find(ref: string): SessionRow | undefined {
    return (
      this.sessions.get(ref) ??
      [...this.sessions.values()].find((r) => r.name === ref && r.state !== 'exited') ??
      [...this.sessions.values()].find((r) => r.name === ref)
    );
  }
}

/** Adds what an agent reported of one turn to its session's totals (as `list_sessions` sums them). */
function addUsage(row: SessionRow, used: TurnUsage | undefined): void {
  if (!used) return;
  const add = (total: number | undefined, n: number | undefined) =>
    n === undefined ? total : (total ?? 0) + n;
  const input = add(row.input_tokens, used.input_tokens);
  const output = add(row.output_tokens, used.output_tokens);
  const cost = add(row.cost_usd, used.cost_usd);
  if (input !== undefined) row.input_tokens = input;
  if (output !== undefined) row.output_tokens = output;
  if (cost !== undefined) row.cost_usd = cost;
}
