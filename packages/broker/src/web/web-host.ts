import { WEB_HOST, WebEndpoint, type WebEndpointOptions } from './web-endpoint.js';
import { webAssetsDir } from './web-assets.js';
import { HandlerError } from '../errors.js';
import type { WebTokenFile } from './web-token.js';

export interface WebStatus {
  url: string;
  port: number;
  token: string;
  started: boolean;
}

/** What every endpoint the host starts gets: the broker's limits and callbacks. */
export type WebHostOptions = Omit<WebEndpointOptions, 'port' | 'assetsDir' | 'token'> & {
  /** Where the token is kept across restarts (0600, under the state directory). */
  tokenFile: WebTokenFile;
};

/** What handlers may do with the web view's endpoint. */
export interface WebPort {
  /** `rotate`: a new token first (every page and tab session is let go). */
  start(port: number | undefined, rotate?: boolean): Promise<WebStatus>;
  stop(): Promise<boolean>;
}

/**
 * Owns the web view's endpoint while the daemon runs: at most one, started and stopped on
 * request (`clippy web`), ended with the daemon. Starts and stops are serialized.
 */
export class WebHost implements WebPort {
  private endpoint: WebEndpoint | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly options: WebHostOptions,
    private readonly assetsDir: string | null = webAssetsDir(),
  ) {}

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => {});
    return next;
  }

  start(port: number | undefined, rotate = false): Promise<WebStatus> {
    return this.serialized(async () => {
      const running = this.endpoint;
      const token = rotate ? this.options.tokenFile.rotate() : this.options.tokenFile.read();
      const samePort = port === undefined || port === 0 || port === running?.port;
      if (running && samePort && running.token === token) {
        return { url: running.url, port: running.port, token: running.token, started: false };
      }
      // A new token on the running port: that port is freed first, then taken again.
      if (running && samePort) {
        port = running.port;
        this.endpoint = null;
        await running.dispose();
      }
      if (!this.assetsDir) {
        throw new HandlerError('web_unavailable', '@clippy/web is not installed beside the broker');
      }
      let endpoint: WebEndpoint;
      try {
        endpoint = await WebEndpoint.start({
          ...this.options,
          port: port ?? 0,
          assetsDir: this.assetsDir,
          token,
        });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const why =
          code === 'EADDRINUSE'
            ? `port ${port} on 127.0.0.1 is in use`
            : code === 'EACCES'
              ? `port ${port} needs privileges`
              : String((err as Error).message ?? err);
        const still = this.endpoint ? `; it still runs on port ${this.endpoint.port}` : '';
        throw new HandlerError('web_unavailable', `the web view could not start: ${why}${still}`);
      }
      // Moved to another port: the old endpoint ends only once the new one listens, so a port
      // that cannot be had leaves the running web view as it was.
      if (running && this.endpoint === running) await running.dispose();
      this.endpoint = endpoint;
      return { url: endpoint.url, port: endpoint.port, token: endpoint.token, started: true };
    });
  }

  /**
   * The page's link to a session (null: the grid) while the web view runs, without the token:
   * a tab or an installed page that signed in before opens it (what a notification links to).
   */
  link(session: string | null): string | null {
    const running = this.endpoint;
    if (!running) return null;
    const at = `http://${WEB_HOST}:${running.port}/`;
    return session === null ? at : `${at}#s=${encodeURIComponent(session)}`;
  }

  stop(): Promise<boolean> {
    return this.serialized(async () => {
      const running = this.endpoint;
      if (!running) return false;
      this.endpoint = null;
      await running.dispose();
      return true;
    });
  }

  /** Ends the endpoint with the daemon. */
  dispose(): Promise<void> {
    return this.stop().then(() => {});
  }
}
