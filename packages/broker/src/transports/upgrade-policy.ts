import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { CLOSE_FLUSH_MS } from '../constants.js';

/** Host names the WebSocket endpoint answers to: it only ever listens on a local Unix socket. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The query parameter that carries the web view's token (a browser cannot set headers on a WebSocket). */
export const WS_TOKEN_PARAM = 'token';

function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

function sameToken(given: string, expected: string): boolean {
  // Hashes have equal lengths, so the comparison takes the same time whatever was given.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Why a WebSocket upgrade is refused, or null to accept it. The endpoint is a 0600 Unix socket,
 * so only this user's processes reach it; but a browser page can be made to reach it through a
 * local proxy, and browsers always send an Origin (and the page's Host). So: the Host must be
 * local or absent, and an upgrade with an Origin must present the web view's token — with no
 * token configured, every Origin is refused.
 */
export function refuseUpgrade(req: IncomingMessage, token: string | null): string | null {
  const host = req.headers.host;
  if (host !== undefined && !LOCAL_HOSTS.has(hostName(host))) {
    return `Host '${host.slice(0, 100)}' is not local (localhost, 127.0.0.1 or [::1])`;
  }
  const origin = req.headers.origin ?? req.headers['sec-websocket-origin'];
  if (origin === undefined) return null;
  const shown = String(origin).slice(0, 100);
  if (!token) {
    return `upgrades from a browser (Origin '${shown}') are refused: no web view token is configured`;
  }
  let given: string | null = null;
  try {
    given = new URL(req.url ?? '/', 'http://localhost').searchParams.get(WS_TOKEN_PARAM);
  } catch {
    given = null;
  }
  if (given === null) {
    return `an upgrade with Origin '${shown}' must present the web view token (?${WS_TOKEN_PARAM}=…)`;
  }
  if (!sameToken(given, token)) return `wrong web view token for Origin '${shown}'`;
  return null;
}

/**
 * Answers a refused upgrade with 403 and `text` as the body (the local socket and the web
 * endpoint both), then destroys the socket once the answer had time to leave.
 */
export function sendUpgradeRefusal(socket: Socket, text: string): void {
  socket.end(
    'HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
  setTimeout(() => socket.destroy(), CLOSE_FLUSH_MS).unref();
}
