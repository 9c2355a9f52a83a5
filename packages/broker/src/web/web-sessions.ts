import { createHmac, randomBytes } from 'node:crypto';
import { sameSecret } from './web-guard.js';

/** Random bytes in a tab session's nonce: as many as in the token. */
const NONCE_BYTES = 24;

/**
 * The tab sessions of the web view: a page that shows the token (POST /session) gets one, keeps
 * it in its tab's sessionStorage (which no other origin, port or tab can read) and opens its
 * WebSockets with it, so the token itself is kept nowhere in the browser. A session is a random
 * nonce and its HMAC under the token: nothing is stored, so a tab's session outlives a restart of
 * the web view or of the daemon (the page reconnects by itself) exactly as long as the token
 * does — `clippy web --rotate` ends every one at once. Checked in constant time.
 */
export class WebSessions {
  constructor(private readonly token: string) {}

  private mac(nonce: string): string {
    return createHmac('sha256', this.token).update(nonce).digest('hex');
  }

  issue(): string {
    const nonce = randomBytes(NONCE_BYTES).toString('hex');
    return `${nonce}.${this.mac(nonce)}`;
  }

  valid(secret: string): boolean {
    const dot = secret.indexOf('.');
    if (dot <= 0) return false;
    return sameSecret(secret.slice(dot + 1), this.mac(secret.slice(0, dot)));
  }
}
