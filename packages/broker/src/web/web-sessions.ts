import { createHash, randomBytes } from 'node:crypto';
import { WEB_SESSIONS_LIMIT } from '../constants.js';

/** Random bytes in a tab's session: as many as in the token. */
const SESSION_BYTES = 24;

const digest = (secret: string) => createHash('sha256').update(secret).digest('hex');

/**
 * The tab sessions of one endpoint: a page that shows the token (POST /session) gets one, keeps
 * it in its tab's sessionStorage (which no other origin, port or tab can read) and opens its
 * WebSockets with it, so the token itself is kept nowhere in the browser. They end with the
 * endpoint; past the limit the oldest is forgotten. Only digests are kept, and looked up by
 * the digest of what is given: the lookup's timing tells nothing of a real session.
 */
export class WebSessions {
  private readonly digests = new Set<string>();

  constructor(private readonly limit = WEB_SESSIONS_LIMIT) {}

  issue(): string {
    const secret = randomBytes(SESSION_BYTES).toString('hex');
    this.digests.add(digest(secret));
    if (this.digests.size > this.limit) {
      this.digests.delete(this.digests.values().next().value as string);
    }
    return secret;
  }

  valid(secret: string): boolean {
    return this.digests.has(digest(secret));
  }
}
