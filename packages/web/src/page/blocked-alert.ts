import { el } from './format.js';
import { sessionRef, type SessionRow } from './store.js';

/**
 * Makes a blocked session (its agent asks a question) impossible to miss wherever the user is:
 * the tab title names it (seen from other tabs), and a red bar in the top bar, shown over the
 * grid and over a session view alike, links to each blocked session.
 */
export class BlockedAlert {
  private shown = '';

  constructor(private readonly bar: HTMLElement) {}

  update(rows: Iterable<SessionRow>): void {
    const all = [...rows];
    const blocked = all.filter((r) => r.state === 'blocked').map(sessionRef);
    document.title =
      blocked.length > 0
        ? `⚠ blocked: ${blocked.join(', ')} — clippy`
        : `clippy — ${all.filter((r) => r.state !== 'exited').length} sessions`;
    document.body.classList.toggle('has-blocked', blocked.length > 0);
    const key = blocked.join('\n');
    if (key === this.shown) return;
    this.shown = key;
    this.bar.hidden = blocked.length === 0;
    this.bar.replaceChildren(
      el('span', '', `⚠ waiting for you:`),
      ...blocked.map((name) => {
        const link = el('a', '', name);
        link.href = `#s=${encodeURIComponent(name)}`;
        return link;
      }),
    );
  }
}
