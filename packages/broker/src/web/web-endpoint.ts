import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import { FRAME_HEADER_SIZE, MAX_PAYLOAD_SIZE } from '@clippy/protocol';
import type { Connection, InputLimits } from '../transports/transport.js';
import { WsConnection } from '../transports/ws.js';
import { CLOSE_FLUSH_MS, HELLO_TIMEOUT_MS } from '../constants.js';
import { type Asset, loadAssets } from './web-assets.js';
import { WEB_TOKEN_PARAM, presentedToken, refuseWebRequest, tokenCookieName } from './web-guard.js';

/** Random bytes in a token: as many as Jupyter's, far beyond guessing over HTTP. */
const TOKEN_BYTES = 24;
/** The address the endpoint binds: loopback only, never a public interface. */
export const WEB_HOST = '127.0.0.1';
/** The path the page opens its WebSocket on. */
export const WEB_SOCKET_PATH = '/ws';

export interface WebEndpointOptions {
  port: number;
  assetsDir: string;
  limits: InputLimits;
  accept: (connection: Connection) => void;
  onRefused: (reason: string) => void;
}

/**
 * The web view's endpoint: HTTP on 127.0.0.1 serving the page's static files, and WebSocket
 * upgrades on /ws that become ordinary protocol connections (the same requests and pushes as
 * the Unix socket). Every request must pass refuseWebRequest (token, Host, Origin).
 */
export class WebEndpoint {
  private constructor(
    private readonly http: Server,
    private readonly wss: WebSocketServer,
    readonly port: number,
    readonly token: string,
  ) {}

  get url(): string {
    return `http://${WEB_HOST}:${this.port}/?${WEB_TOKEN_PARAM}=${this.token}`;
  }

  static async start(options: WebEndpointOptions): Promise<WebEndpoint> {
    const assets = loadAssets(options.assetsDir);
    const token = randomBytes(TOKEN_BYTES).toString('hex');
    let port = options.port;
    const http = createServer(
      // A half-sent request holds nothing long (as on the WebSocket transport).
      { headersTimeout: HELLO_TIMEOUT_MS, requestTimeout: HELLO_TIMEOUT_MS },
      (req, res) => serve(req, res, port, token, assets, options.onRefused),
    );
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: MAX_PAYLOAD_SIZE + FRAME_HEADER_SIZE,
    });
    wss.on('error', () => {});
    http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      socket.on('error', () => {});
      let refusal = refuseWebRequest(req, port, token);
      if (!refusal && pathOf(req) !== WEB_SOCKET_PATH)
        refusal = `WebSocket upgrades are served on ${WEB_SOCKET_PATH} only`;
      if (refusal) {
        options.onRefused(refusal);
        const body = `${refusal}\n`;
        socket.end(
          'HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Type: text/plain\r\n' +
            `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
        setTimeout(() => socket.destroy(), CLOSE_FLUSH_MS).unref();
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) =>
        options.accept(new WsConnection(ws, socket, options.limits)),
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
    return new WebEndpoint(http, wss, port, token);
  }

  /** Stops listening and ends every page's connection. */
  dispose(): Promise<void> {
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

function serve(
  req: IncomingMessage,
  res: ServerResponse,
  port: number,
  token: string,
  assets: Map<string, Asset>,
  onRefused: (reason: string) => void,
): void {
  const refusal = refuseWebRequest(req, port, token);
  if (refusal) {
    onRefused(refusal);
    res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`${refusal}\n`);
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' });
    res.end('only GET and HEAD are served\n');
    return;
  }
  const path = pathOf(req);
  const asset = assets.get(path === '/' ? '/index.html' : path);
  if (!asset) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end(`${path.slice(0, 100)} is not part of the web view\n`);
    return;
  }
  const headers: Record<string, string | number> = {
    'content-type': asset.type,
    'content-length': asset.body.length,
    'cache-control': 'no-store',
    // The token is in the page's URL: never hand it to another site in a Referer.
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'content-security-policy':
      "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
      `connect-src ws://${WEB_HOST}:${port} ws://localhost:${port}; frame-ancestors 'none'`,
  };
  // The page's own files are then fetched with the cookie (the token is not in their URLs).
  const given = presentedToken(req, port);
  if (given !== null)
    headers['set-cookie'] = `${tokenCookieName(port)}=${given}; Path=/; HttpOnly; SameSite=Strict`;
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : asset.body);
}
