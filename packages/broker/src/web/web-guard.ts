import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The query parameter of /ws that carries the web view's token (clients other than the page). */
export const WEB_TOKEN_PARAM = 'token';
/** The query parameter of /ws that carries a tab's session (what the page got for the token). */
export const WEB_SESSION_PARAM = 'session';

/** Whether two secrets are equal, in a time that does not depend on where they differ. */
export function sameSecret(given: string, expected: string): boolean {
  // Hashes have equal lengths, so the comparison takes the same time whatever was given.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Why a request to the web endpoint does not come from the endpoint's own page, or null. The
 * endpoint listens on 127.0.0.1 only, but any local process and any page in a local browser can
 * reach that. So:
 * - the Host must name this endpoint by a loopback name and its port: a page on a rebound DNS
 *   name (evil.example resolving to 127.0.0.1) sends its own name and is refused;
 * - an Origin, when sent (browsers always send one on WebSocket upgrades and on requests such
 *   as POST), must be this endpoint itself: pages of other sites and other ports are refused.
 * The credentials (token, tab session) are checked where they are needed (`/session`, `/ws`).
 */
export function refuseForeign(req: IncomingMessage, port: number): string | null {
  const allowed = [`127.0.0.1:${port}`, `localhost:${port}`];
  const host = req.headers.host;
  if (host === undefined) return 'a Host header is required';
  if (!allowed.includes(host.trim().toLowerCase())) {
    return `Host '${host.slice(0, 100)}' is not this endpoint (${allowed.join(' or ')})`;
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !allowed.some((a) => origin.toLowerCase() === `http://${a}`)) {
    return `Origin '${origin.slice(0, 100)}' is not this endpoint`;
  }
  return null;
}

/** The token of `Authorization: Bearer TOKEN`, or null. */
export function bearerToken(req: IncomingMessage): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return match ? match[1]! : null;
}

/** A query parameter of the request's URL, or null. */
export function queryParam(req: IncomingMessage, name: string): string | null {
  try {
    return new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get(name);
  } catch {
    return null;
  }
}

/** The body of a refusal: why, and what the person who meets it in a browser can do. */
export function refusalText(reason: string, port: number): string {
  return (
    `clippy web view: refused: ${reason}.\n\n` +
    'To open the web view, run `clippy web` in a terminal and open the URL it prints ' +
    `(http://127.0.0.1:${port}/#token=…) in your browser, or run \`clippy web --open\`.\n`
  );
}
