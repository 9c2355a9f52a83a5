import { el } from './format.js';
import type { Rpc } from './rpc.js';

/**
 * Says when the page lost the daemon (`clippy web --stop`, `clippy daemon restart`) and that it
 * is trying again by itself, with a button to try now; hidden once it is back.
 */
export class LinkBanner {
  private readonly text = el('span');
  private readonly retry = el('button', 'retry', 'Reconnect now');

  constructor(
    private readonly banner: HTMLElement,
    rpc: Rpc,
  ) {
    this.retry.type = 'button';
    this.retry.addEventListener('click', () => rpc.reconnectNow());
  }

  down(why: string, retryInMs: number, signedOut = false): void {
    const seconds = Math.max(1, Math.round(retryInMs / 1000));
    this.text.textContent = signedOut
      ? why
      : `Disconnected from clippyd (${why}). Reconnecting by itself (next try in ${seconds} s)… ` +
        'If this lasts, run `clippy web` (or `clippy daemon start`); after `clippy web --rotate`, open the new URL.';
    if (signedOut) this.banner.replaceChildren(this.text);
    else this.banner.replaceChildren(this.text, this.retry);
    this.banner.hidden = false;
    this.banner.dataset.link = signedOut ? 'signed-out' : 'down';
    document.title = signedOut ? 'clippy — signed out' : 'clippy — reconnecting';
  }

  up(): void {
    this.banner.hidden = true;
    this.banner.dataset.link = 'up';
    this.banner.replaceChildren();
  }
}
