import { el } from './format.js';

/** How long a result ("sent", "relayed to …") stays: long enough to read, gone before it misleads. */
const STATUS_SHOWN_MS = 6_000;

/**
 * A one-line result of the user's last action. It clears itself after STATUS_SHOWN_MS (and
 * when its owner says it no longer applies: `clear`), so an old "sent" never sits for hours
 * beside a session that has moved on.
 */
export class StatusLine {
  readonly root = el('div', 'status');
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor() {
    this.root.setAttribute('role', 'status');
  }

  say(text: string, error = false): void {
    this.root.textContent = text;
    this.root.classList.toggle('error', error);
    if (this.timer) clearTimeout(this.timer);
    // Errors stay until the next action: the user may need them to act.
    this.timer = error ? null : setTimeout(() => this.clear(), STATUS_SHOWN_MS);
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.root.textContent = '';
    this.root.classList.remove('error');
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
