import { age, el, usage } from './format.js';
import { routeCurve } from './route-curve.js';
import type { SessionRow, Store } from './store.js';
import { showUnread } from './unread-badge.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * The grid: one card per session (state, turn count, age, last turn), the routes between them
 * drawn as arrows over the cards, blocked sessions highlighted (see also BlockedAlert).
 */
export class Grid {
  private readonly cards = new Map<string, HTMLElement>();
  private readonly list = el('div', 'cards');
  private readonly svg = document.createElementNS(SVG_NS, 'svg');
  /** Renders done (bench figure: how many frames carried an update). */
  renders = 0;
  /** False while a session view covers the grid: route lines then wait until it is shown. */
  private visible = true;
  private routesStale = true;

  constructor(
    readonly root: HTMLElement,
    private readonly store: Store,
    private readonly open: (row: SessionRow) => void,
    /** Forgets an exited session (its card's Remove). */
    private readonly remove: (row: SessionRow) => void,
  ) {
    this.svg.classList.add('routes');
    root.append(this.list, this.svg);
  }

  render(): void {
    this.renders++;
    const rows = [...this.store.sessions.values()].sort((a, b) => a.created_at - b.created_at);
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.key);
      let card = this.cards.get(row.key);
      if (!card) {
        card = this.createCard(row);
        this.cards.set(row.key, card);
        this.list.append(card);
      }
      this.fill(card, row);
    }
    for (const [id, card] of this.cards) {
      if (!seen.has(id)) {
        card.remove();
        this.cards.delete(id);
      }
    }
    // Route lines need the cards' positions: reading them forces a layout of the whole page,
    // which a hidden grid (a session view streaming output on top) must not pay every frame.
    this.routesStale = true;
    if (this.visible) this.drawRoutes();
  }

  /** The grid is shown again (or hidden under a session view). */
  setVisible(visible: boolean): void {
    this.visible = visible;
    if (visible && this.routesStale) this.drawRoutes();
  }

  /** Ages move with the clock, not with events. */
  tick(): void {
    for (const [id, card] of this.cards) {
      const row = this.store.sessions.get(id);
      const ageNode = card.querySelector('.age');
      if (row && ageNode) ageNode.textContent = age(row.created_at);
    }
  }

  private createCard(row: SessionRow): HTMLElement {
    const card = el('article', 'card');
    card.dataset.session = row.session;
    card.dataset.name = row.name;
    // Another machine's session says which (its name in config.json's `hosts`).
    if (row.host !== null) card.dataset.host = row.host;
    card.tabIndex = 0;
    const head = el('header');
    const remove = el('button', 'remove', 'Remove');
    remove.type = 'button';
    remove.title = 'Forget this exited session and its turns (clippy rm)';
    remove.hidden = true;
    remove.addEventListener('click', (e) => {
      e.stopPropagation();
      this.remove(this.store.sessions.get(row.key) ?? row);
    });
    const host = row.host === null ? [] : [el('span', 'host', row.host)];
    if (row.host !== null) host[0]!.title = `on ${row.host} (config.json hosts)`;
    head.append(el('span', 'name'), ...host, el('span', 'state'), remove);
    const meta = el('div', 'meta');
    meta.append(el('span', 'turns'), el('span', 'age'), el('span', 'usage'), el('span', 'command'));
    card.append(head, meta, el('pre', 'preview'));
    card.addEventListener('click', () => this.open(this.store.sessions.get(row.key) ?? row));
    card.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') this.open(this.store.sessions.get(row.key) ?? row);
    });
    return card;
  }

  private fill(card: HTMLElement, row: SessionRow): void {
    // Writing only what changed keeps a busy grid cheap (no layout for unchanged text).
    const set = (selector: string, text: string) => {
      const node = card.querySelector(selector);
      if (node && node.textContent !== text) node.textContent = text;
    };
    if (card.dataset.state !== row.state) {
      card.dataset.state = row.state;
      card.querySelector<HTMLElement>('.remove')!.hidden = row.state !== 'exited';
    }
    set('.name', row.name);
    set(
      '.state',
      row.state === 'exited' && row.exit_code != null ? `exited ${row.exit_code}` : row.state,
    );
    set('.turns', `${row.turn_count} turn${row.turn_count === 1 ? '' : 's'}`);
    set('.age', age(row.created_at));
    // Tokens and cost its agent reported (its channel); nothing for a screen-only session.
    set('.usage', usage(row));
    set('.command', [row.command, ...row.args].join(' '));
    set('.preview', row.preview || (row.turn_count > 0 ? '…' : 'no turn yet'));
    showUnread(card, row.unread);
  }

  private drawRoutes(): void {
    this.routesStale = false;
    const drawn = this.svg.querySelectorAll('g.route');
    if (drawn.length === 0 && this.store.routes.length === 0) return;
    for (const old of drawn) old.remove();
    const box = this.root.getBoundingClientRect();
    this.svg.setAttribute('width', String(this.root.scrollWidth));
    this.svg.setAttribute('height', String(this.root.scrollHeight));
    for (const route of this.store.routes) {
      const to = this.cards.get(route.to.session);
      for (const end of route.from) {
        const from = this.cards.get(end.session);
        if (!from || !to) continue;
        const at = (r: DOMRect) => ({
          left: r.left - box.left,
          top: r.top - box.top,
          width: r.width,
          height: r.height,
        });
        const c = routeCurve(at(from.getBoundingClientRect()), at(to.getBoundingClientRect()));
        const g = document.createElementNS(SVG_NS, 'g');
        g.classList.add('route', `route-${route.state}`);
        g.dataset.route = route.route;
        const path = document.createElementNS(SVG_NS, 'path');
        path.setAttribute('d', `M${c.x1},${c.y1} Q${c.cx},${c.cy} ${c.x2},${c.y2}`);
        const head = document.createElementNS(SVG_NS, 'polygon');
        head.setAttribute('points', c.head);
        const label = document.createElementNS(SVG_NS, 'text');
        label.setAttribute('x', String(c.labelX));
        label.setAttribute('y', String(c.labelY));
        label.setAttribute('text-anchor', c.labelAnchor);
        label.textContent = `${route.route} (${route.fired})`;
        g.append(path, head, label);
        this.svg.append(g);
      }
    }
  }
}
