import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { FRAME_HEADER_SIZE, MAX_PAYLOAD_SIZE } from '@clippy/protocol';
import type { Connection, InputLimits } from '../transports/transport.js';
import { WsConnection } from '../transports/ws.js';
import { PendingConnections, type PendingTicket } from '../transports/pending-connections.js';
import { sendUpgradeRefusal } from '../transports/upgrade-policy.js';
import { HELLO_TIMEOUT_MS } from '../constants.js';
import { type Asset, loadAssets } from './web-assets.js';
import {
  WEB_SESSION_PARAM,
  WEB_TOKEN_PARAM,
  bearerToken,
  queryParam,
  refuseForeign,
  refusalText,
  sameSecret,
} from './web-guard.js';
import { WebSessions } from './web-sessions.js';
import { WEB_CHECK_PATH, WEB_CODE_PATH, serveSessionExtras, type WebCodes } from './web-codes.js';

/** The address the endpoint binds: loopback only, never a public interface. */
export const WEB_HOST = '127.0.0.1';
/** The path the page opens its WebSocket on. */
export const WEB_SOCKET_PATH = '/ws';
/** Where the page exchanges the token for its tab's session (POST, `Authorization: Bearer`). */
export const WEB_SESSION_PATH = '/session';
/** The query parameter of /ws naming another machine whose daemon the page speaks to. */
export const WEB_HOST_PARAM = 'host';

export interface WebEndpointOptions {
  port: number;
  assetsDir: string;
  /** The token (kept by WebTokenFile: the same across restarts until rotated). */
  token: string;
  /** The one-time codes `clippy web --open` hands the browser instead of the token. */
  codes: WebCodes;
  /** Joins a page's WebSocket to another machine's daemon (`/ws?…&host=NAME`: web-remotes.ts). */
  bridge: (ws: WebSocket, host: string) => void;
  limits: InputLimits;
  /** Connections that have not shown the token (or a tab's session): how many, how long. */
  pendingLimit: number;
  pendingTimeoutMs: number;
  accept: (connection: Connection) => void;
  /**
   * A request was refused (`source`: its remote address; `credential`: it showed a wrong token
   * or tab session); answers how long to hold the refusal before it is sent (ms).
   */
  onRefused: (reason: string, source: string, credential: boolean) => number;
  /** How many connections were closed because more than `pendingLimit` waited. */
  onPushedOut: (count: number) => void;
}

/**
 * The web view's endpoint: HTTP on 127.0.0.1 serving the page's static files, the exchange of
 * the token for a tab's session, and WebSocket upgrades on /ws that become ordinary protocol
 * connections (the same requests and pushes as the Unix socket). Every request must come from
 * the endpoint's own page (refuseForeign); /session needs the token, /ws the token or a tab's
 * session. Nothing is ever put in a cookie: browsers send a host's cookies to all its ports.
 */
export class WebEndpoint {
  private constructor(
    private readonly http: Server,
    private readonly wss: WebSocketServer,
    private readonly pending: PendingConnections,
    readonly port: number,
    readonly token: string,
  ) {}

  /** The page's address: the token is in the fragment, which the browser sends nowhere. */
  get url(): string {
    return `http://${WEB_HOST}:${this.port}/#${WEB_TOKEN_PARAM}=${this.token}`;
  }

  static async start(options: WebEndpointOptions): Promise<WebEndpoint> {
    const assets = loadAssets(options.assetsDir);
    const token = options.token;
    const sessions = new WebSessions(token);
    const pending = new PendingConnections(options.pendingLimit, options.onPushedOut);
    let port = options.port;
    const http = createServer(
      // A half-sent request holds nothing long (as on the WebSocket transport).
      { headersTimeout: HELLO_TIMEOUT_MS, requestTimeout: HELLO_TIMEOUT_MS },
      (req, res) =>
        serve(req, res, port, token, sessions, assets, options.onRefused, options.codes),
    );
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: MAX_PAYLOAD_SIZE + FRAME_HEADER_SIZE,
    });
    wss.on('error', () => {});
    // Every connection counts until it is upgraded with a credential: any local user can open
    // them. node would end an idle one only at its next check of the HTTP timeouts (every
    // 30 s, so 10–40 s); the deadline ends it when its time is up.
    const tickets = new WeakMap<Socket, PendingTicket>();
    http.on('connection', (socket: Socket) => {
      const ticket = pending.admit(() => socket.destroy(), options.pendingTimeoutMs);
      tickets.set(socket, ticket);
      socket.once('close', () => ticket.settle());
    });
    http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      socket.on('error', () => {});
      const foreign = refuseForeign(req, port);
      const refusal = foreign
        ? { why: foreign, credential: false }
        : pathOf(req) === WEB_SOCKET_PATH
          ? refuseCredential(req, token, sessions)
          : { why: `WebSocket upgrades are served on ${WEB_SOCKET_PATH} only`, credential: false };
      if (refusal) {
        const wait = options.onRefused(refusal.why, sourceOf(req), refusal.credential);
        later(wait, () => sendUpgradeRefusal(socket, refusalText(refusal.why, port)));
        return;
      }
      // It showed a credential: from here it is a client like any other (hello's timer runs).
      tickets.get(socket)?.settle();
      const host = queryParam(req, WEB_HOST_PARAM);
      wss.handleUpgrade(req, socket, head, (ws) =>
        host === null
          ? options.accept(new WsConnection(ws, socket, options.limits))
          : options.bridge(ws, host),
      );
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(options.port, WEB_HOST, () => {
        http.off('error', reject);
        resolve();
      });
    });
    port = (http.address() as AddressInfo).port;
    return new WebEndpoint(http, wss, pending, port, token);
  }

  /** Stops listening and ends every page's connection; the token and the sessions die with it. */
  dispose(): Promise<void> {
    this.pending.dispose();
    return new Promise((resolve) => {
      for (const ws of this.wss.clients) ws.terminate();
      this.wss.close();
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
  }
}

function pathOf(req: IncomingMessage): string {
  try {
    return new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
  } catch {
    return '';
  }
}

/**
 * Why an upgrade on /ws is refused for its credential (a tab's session, or the token), and
 * whether it showed a wrong one; null when it may upgrade.
 */
function refuseCredential(
  req: IncomingMessage,
  token: string,
  sessions: WebSessions,
): { why: string; credential: boolean } | null {
  const session = queryParam(req, WEB_SESSION_PARAM);
  if (session !== null) {
    return sessions.valid(session)
      ? null
      : {
          why: 'this tab’s session is not known to the web view (it was restarted or moved since)',
          credential: true,
        };
  }
  const given = queryParam(req, WEB_TOKEN_PARAM);
  if (given === null) {
    return {
      why: `the web view's token or a tab's session is required (?${WEB_TOKEN_PARAM}=… or ?${WEB_SESSION_PARAM}=…)`,
      credential: false,
    };
  }
  return sameSecret(given, token) ? null : { why: 'wrong web view token', credential: true };
}

/** Where a request came from, for counting refusals by source. */
function sourceOf(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

/** Runs `fn` after `ms` (at once when 0): a refusal's answer held back (WebRefusals). */
function later(ms: number, fn: () => void): void {
  if (ms <= 0) fn();
  else setTimeout(fn, ms).unref();
}

function refuse(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(text);
}

function serve(
  req: IncomingMessage,
  res: ServerResponse,
  port: number,
  token: string,
  sessions: WebSessions,
  assets: Map<string, Asset>,
  onRefused: WebEndpointOptions['onRefused'],
  codes: WebCodes,
): void {
  const path = pathOf(req);
  const foreign = refuseForeign(req, port);
  if (foreign) {
    onRefused(foreign, sourceOf(req), false);
    refuse(res, 403, refusalText(foreign, port));
    return;
  }
  if (path === WEB_CODE_PATH || path === WEB_CHECK_PATH) {
    // A wrong one-time code is counted like a wrong token (128 random bits: no need to slow it).
    serveSessionExtras(req, res, path, port, codes, sessions, (why) => {
      onRefused(why, sourceOf(req), true);
    });
    return;
  }
  if (path === WEB_SESSION_PATH) {
    req.resume();
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      refuse(res, 405, `${WEB_SESSION_PATH} takes POST only\n`);
      return;
    }
    const given = bearerToken(req);
    const why =
      given === null
        ? 'the web view’s token is required (Authorization: Bearer …)'
        : sameSecret(given, token)
          ? null
          : 'wrong web view token';
    if (why) {
      const wait = onRefused(why, sourceOf(req), given !== null);
      later(wait, () => refuse(res, 403, refusalText(why, port)));
      return;
    }
    const body = JSON.stringify({ session: sessions.issue() });
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
    });
    res.end(body);
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    refuse(res, 405, 'only GET and HEAD are served\n');
    return;
  }
  // The page's files hold nothing secret (they ship in the package): served without the token.
  // Browsers ask for /favicon.ico whatever the page names: they get the page's SVG icon.
  const asset = assets.get(
    path === '/' ? '/index.html' : path === '/favicon.ico' ? '/favicon.svg' : path,
  );
  if (!asset) {
    refuse(res, 404, `${path.slice(0, 100)} is not part of the web view\n`);
    return;
  }
  res.writeHead(200, {
    'content-type': asset.type,
    'content-length': asset.body.length,
    'cache-control': 'no-store',
    // The page's address may still carry the token in its fragment: never hand it on.
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'content-security-policy':
      "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
      `connect-src 'self' ws://${WEB_HOST}:${port} ws://localhost:${port}; frame-ancestors 'none'`,
  });
  res.end(req.method === 'HEAD' ? undefined : asset.body);
}
