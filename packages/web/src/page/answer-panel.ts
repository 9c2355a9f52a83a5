import { el } from './format.js';
import type { Rpc } from './rpc.js';
import type { Menu, SessionRow } from './store.js';
import { StatusLine } from './status-line.js';

/** Keys offered beside a question, as `clippy send --keys` names them (protocol's KEY_NAMES). */
const KEYS: { label: string; key: string; title: string }[] = [
  { label: '↑', key: 'Up', title: 'Up arrow' },
  { label: '↓', key: 'Down', title: 'Down arrow' },
  { label: '←', key: 'Left', title: 'Left arrow' },
  { label: '→', key: 'Right', title: 'Right arrow' },
  { label: 'Enter', key: 'Enter', title: 'Enter' },
  { label: 'Esc', key: 'Esc', title: 'Escape' },
];

/**
 * Answering a blocked agent with one tap (from a phone, above all): the question the daemon read
 * on its screen (the session's `menu`, from list_sessions and state_changed: the page never reads
 * the screen itself), one button per choice pressing the keys that pick it, Enter, Esc and the
 * arrows (the `send` request with `keys`, as `clippy send --keys`), and a text box for an answer
 * in words. Shown while the session is blocked, also when no menu could be read (keys and text
 * still work).
 */
export class AnswerPanel {
  readonly root = el('section', 'answer');
  private readonly question = el('p', 'question');
  private readonly detail = el('pre', 'detail');
  private readonly choices = el('div', 'choices');
  private readonly status = new StatusLine();
  private shown = '';

  constructor(
    private readonly rpc: Rpc,
    private readonly session: string,
  ) {
    this.root.hidden = true;
    this.root.setAttribute('aria-live', 'polite');
    const keys = el('div', 'keys');
    for (const { label, key, title } of KEYS) {
      const button = el('button', 'key', label);
      button.type = 'button';
      button.title = title;
      button.dataset.key = key;
      button.addEventListener('click', () => void this.press([key], title));
      keys.append(button);
    }
    const form = el('form', 'answer-text');
    const text = el('input');
    text.type = 'text';
    text.placeholder = 'Answer in words, then Enter';
    text.setAttribute('aria-label', 'answer');
    text.autocomplete = 'off';
    const send = el('button', '', 'Send');
    send.type = 'submit';
    form.append(text, send);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (!text.value) return;
      void this.act(
        this.rpc.request('send', {
          session: this.session,
          text: text.value,
          enter: true,
          force: true,
        }),
        'sent',
      ).then((ok) => {
        if (ok) text.value = '';
      });
    });
    this.root.append(
      el('h3', '', 'Waiting for you'),
      this.question,
      this.detail,
      this.choices,
      keys,
      form,
      this.status.root,
    );
  }

  /** Shows the question of a blocked session (hides the panel otherwise). */
  update(row: SessionRow | undefined): void {
    const blocked = row?.state === 'blocked';
    this.root.hidden = !blocked;
    const menu = blocked ? (row.menu ?? null) : null;
    const key = blocked ? JSON.stringify(menu) : '';
    if (key === this.shown) return;
    // A new question (or none): what was said about the last one is stale.
    this.shown = key;
    this.status.clear();
    this.render(menu);
  }

  private render(menu: Menu | null): void {
    this.question.textContent = menu
      ? menu.question
      : 'The agent is waiting for you (its question could not be read: use the keys or the terminal).';
    this.detail.textContent = menu?.detail.join('\n') ?? '';
    this.detail.hidden = !menu || menu.detail.length === 0;
    this.choices.replaceChildren(
      ...(menu?.options ?? []).map((option, i) => {
        const button = el('button', 'choice', option.label);
        button.type = 'button';
        button.dataset.choice = String(i);
        button.classList.toggle('selected', option.selected);
        button.addEventListener('click', () => void this.press(option.keys, option.label));
        return button;
      }),
    );
  }

  dispose(): void {
    this.status.dispose();
  }

  private press(keys: string[], what: string): Promise<boolean> {
    return this.act(
      this.rpc.request('send', { session: this.session, keys, force: true }),
      `pressed ${what}`,
    );
  }

  private async act(request: Promise<unknown>, done: string): Promise<boolean> {
    try {
      await request;
      this.status.say(done);
      return true;
    } catch (err) {
      this.status.say(`failed: ${(err as Error).message}`, true);
      return false;
    }
  }
}
