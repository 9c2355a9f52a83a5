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
  /** Its ID on its machine's daemon (what requests to that daemon name it by). */
  session: string;
  /** Unique in the page: the ID, `HOST:ID` for another machine's (config.json `hosts`). */
  key: string;
  /** The machine it runs on (a name of config.json's `hosts`); null: this one. */
  host: string | null;
  /** The connection to its machine's daemon. */
  rpc: Rpc;
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
  cost_unknown?: string;
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

/** A daemon the page speaks to: this machine's (host null), or another one's through it. */
export interface Source {
  host: string | null;
  rpc: Rpc;
}

/** A session's reference in the page's address: its name, `HOST:NAME` on another machine. */
export function sessionRef(row: { host: string | null; name: string }): string {
  return row.host === null ? row.name : `${row.host}:${row.name}`;
}

/**
 * What the page knows of the daemons: the sessions (this machine's, and those of the hosts it
 * reaches through it) and the routes, kept current by the pushes the CLI's `clippy ls
 * --watch`-like clients also get. Listeners hear "something changed" and render on the next
 * animation frame, so a burst of pushes costs one render.
 */
export class Store {
  readonly sessions = new Map<string, SessionRow>();
  routes: RouteRow[] = [];
  private readonly listeners = new Set<() => void>();
  private routesTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly sources = new Map<string | null, Source>();
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

  /** This machine's daemon: listens to its pushes, then lists what there is (`sync`). */
  async load(): Promise<void> {
    await this.addSource({ host: null, rpc: this.rpc });
  }

  /** The hosts whose daemons the page reaches (a name of config.json's `hosts`). */
  get hosts(): string[] {
    return [...this.sources.keys()].filter((h): h is string => h !== null);
  }

  /** Listens to a daemon's pushes, then lists its sessions. */
  async addSource(source: Source): Promise<void> {
    this.sources.set(source.host, source);
    const { rpc, host } = source;
    const keyOf = (id: unknown) => (host === null ? String(id) : `${host}:${String(id)}`);
    const rowOf = (id: unknown) => this.sessions.get(keyOf(id));
    rpc.on('session_created', (p) => {
      this.pushes++;
      const info = p.session as SessionRow;
      this.sessions.set(keyOf(info.session), {
        ...info,
        key: keyOf(info.session),
        host,
        rpc,
        preview: '',
        lastTurnAt: null,
      });
      this.changed();
    });
    rpc.on('state_changed', (p) => {
      this.pushes++;
      // How the session ended comes in the `session_exited` the daemon sends right after: the
      // page shows the exit with it then, never first as an exit of no known cause.
      if (p.state === 'exited') return;
      const row = rowOf(p.session);
      if (row) {
        row.state = p.state as SessionState;
        row.menu = (p.menu as Menu | undefined) ?? null;
      }
      this.changed();
    });
    rpc.on('session_resized', (p) => {
      this.pushes++;
      const row = rowOf(p.session);
      if (row) {
        row.cols = p.cols as number;
        row.rows = p.rows as number;
      }
      this.changed();
    });
    rpc.on('turn_completed', (p) => {
      this.pushes++;
      const row = rowOf(p.session);
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
      const row = rowOf(p.session);
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
      this.sessions.delete(keyOf(p.session));
      this.changed();
    });
    rpc.on('unread_changed', (p) => {
      this.pushes++;
      const row = rowOf(p.session);
      if (row) row.unread = p.unread as number;
      this.changed();
    });
    if (host === null) {
      rpc.on('route_fired', () => this.refreshRoutesSoon());
      rpc.on('route_event', () => this.refreshRoutesSoon());
    }
    await this.sync(host);
  }

  /** Forgets a host's sessions (its link is down: they are not known any more). */
  dropHost(host: string): void {
    for (const [key, row] of this.sessions) if (row.host === host) this.sessions.delete(key);
    this.changed();
  }

  /**
   * Subscribes and lists a daemon's sessions (and this machine's routes): at load, and again
   * after a reconnection (the daemon may have restarted: sessions it no longer has are
   * dropped, the rest taken as listed).
   */
  async sync(host: string | null = null): Promise<void> {
    const source = this.sources.get(host);
    if (!source) return;
    const { rpc } = source;
    const keyOf = (id: string) => (host === null ? id : `${host}:${id}`);
    // Subscribe first, then list: nothing that happens in between is missed.
    await rpc.request('subscribe', {});
    const { sessions } = await rpc.request<{ sessions: SessionRow[] }>('list_sessions');
    const listed = new Set(sessions.map((s) => keyOf(s.session)));
    for (const [key, row] of this.sessions)
      if (row.host === host && !listed.has(key)) this.sessions.delete(key);
    for (const info of sessions) {
      const key = keyOf(info.session);
      const known = this.sessions.get(key);
      this.sessions.set(key, {
        ...info,
        key,
        host,
        rpc,
        menu: info.menu ?? null,
        preview: known?.preview ?? '',
        lastTurnAt: known?.lastTurnAt ?? null,
      });
    }
    this.changed();
    if (host === null) await this.refreshRoutes();
    await Promise.all(
      [...this.sessions.values()]
        .filter((r) => r.host === host && r.turn_count > 0)
        .map((r) => this.fetchPreview(r)),
    );
  }

  /** The card's preview at load: the latest turn's metadata, which carries it. */
  private async fetchPreview(row: SessionRow): Promise<void> {
    try {
      const { turns } = await row.rpc.request<{ turns: TurnMetaRow[] }>('list_turns', {
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

  /**
   * A session by its key, or by its address's reference: `HOST:NAME` (or `HOST:ID`) on a host
   * the page reaches, else a name or ID here.
   */
  find(ref: string): SessionRow | undefined {
    const byKey = this.sessions.get(ref);
    if (byKey) return byKey;
    const colon = ref.indexOf(':');
    const host = colon > 0 && this.sources.has(ref.slice(0, colon)) ? ref.slice(0, colon) : null;
    const name = host === null ? ref : ref.slice(colon + 1);
    const mine = [...this.sessions.values()].filter((r) => r.host === host);
    return (
      mine.find((r) => r.session === name) ??
      mine.find((r) => r.name === name && r.state !== 'exited') ??
      mine.find((r) => r.name === name)
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
  // The broker's list names each model without a price once; a turn adds its own if new.
  if (used.cost_unknown && !row.cost_unknown?.split('; ').includes(used.cost_unknown))
    row.cost_unknown = row.cost_unknown
      ? `${row.cost_unknown}; ${used.cost_unknown}`
      : used.cost_unknown;
}
