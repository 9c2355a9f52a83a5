import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The query parameter that carries the web view's token (a browser cannot set WebSocket headers). */
export const WEB_TOKEN_PARAM = 'token';

/** The cookie that carries the token after the first page load; per port, as cookies ignore ports. */
export function tokenCookieName(port: number): string {
  return `clippy_token_${port}`;
}

function sameToken(given: string, expected: string): boolean {
  // Hashes have equal lengths, so the comparison takes the same time whatever was given.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The token a request presents: `?token=` first, else the endpoint's cookie. */
export function presentedToken(req: IncomingMessage, port: number): string | null {
  let fromQuery: string | null = null;
  try {
    fromQuery = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get(WEB_TOKEN_PARAM);
  } catch {
    fromQuery = null;
  }
  return fromQuery ?? cookieValue(req.headers.cookie, tokenCookieName(port));
}

/**
 * Why a request to the web endpoint is refused, or null to serve it. The endpoint listens on
 * 127.0.0.1 only, but any local process and any page in a local browser can reach that. So:
 * - the Host must name this endpoint by a loopback name and its port: a page on a rebound DNS
 *   name (evil.example resolving to 127.0.0.1) sends its own name and is refused;
 * - an Origin, when sent (browsers always send one on WebSocket upgrades and cross-site
 *   requests), must be this endpoint itself: other local pages are refused;
 * - the token (random, given only to the user by `clippy web`) must be presented.
 */
export function refuseWebRequest(req: IncomingMessage, port: number, token: string): string | null {
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
  const given = presentedToken(req, port);
  if (given === null) return `the web view token is required (?${WEB_TOKEN_PARAM}=…)`;
  if (!sameToken(given, token)) return 'wrong web view token';
  return null;
}
