import { WebEndpoint, type WebEndpointOptions } from './web-endpoint.js';
import { webAssetsDir } from './web-assets.js';
import { HandlerError } from '../errors.js';

export interface WebStatus {
  url: string;
  port: number;
  token: string;
  started: boolean;
}

/** What every endpoint the host starts gets: the broker's limits and callbacks. */
export type WebHostOptions = Omit<WebEndpointOptions, 'port' | 'assetsDir'>;

/** What handlers may do with the web view's endpoint. */
export interface WebPort {
  start(port: number | undefined): Promise<WebStatus>;
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

  start(port: number | undefined): Promise<WebStatus> {
    return this.serialized(async () => {
      const running = this.endpoint;
      if (running && (port === undefined || port === 0 || port === running.port)) {
        return { url: running.url, port: running.port, token: running.token, started: false };
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
        });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const why =
          code === 'EADDRINUSE'
            ? `port ${port} on 127.0.0.1 is in use`
            : code === 'EACCES'
              ? `port ${port} needs privileges`
              : String((err as Error).message ?? err);
        const still = running ? `; it still runs on port ${running.port}` : '';
        throw new HandlerError('web_unavailable', `the web view could not start: ${why}${still}`);
      }
      // Moved to another port: the old endpoint ends only once the new one listens, so a port
      // that cannot be had leaves the running web view as it was.
      if (running) await running.dispose();
      this.endpoint = endpoint;
      return { url: endpoint.url, port: endpoint.port, token: endpoint.token, started: true };
    });
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
