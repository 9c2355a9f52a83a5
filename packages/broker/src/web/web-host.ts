import { WEB_HOST, WebEndpoint, type WebEndpointOptions } from './web-endpoint.js';
import { webAssetsDir } from './web-assets.js';
import { HandlerError } from '../errors.js';
import { WebCodes } from './web-codes.js';
import type { WebPortFile } from './web-port.js';
import type { WebRemoteHost, WebRemotes } from './web-remotes.js';
import type { WebTokenFile } from './web-token.js';

export interface WebStatus {
  url: string;
  port: number;
  token: string;
  started: boolean;
  /** With `code`: the page's address with a one-time code in place of the token. */
  code_url?: string;
  /** Why it is not on the port it had before (taken by another program). */
  moved?: string;
}

/** What every endpoint the host starts gets: the broker's limits and callbacks. */
export type WebHostOptions = Omit<
  WebEndpointOptions,
  'port' | 'assetsDir' | 'token' | 'codes' | 'bridge'
> & {
  /** The other machines whose daemons the page reaches through this one. */
  remotes: WebRemotes;
  /** Where the token is kept across restarts (0600, under the state directory). */
  tokenFile: WebTokenFile;
  /** Where its port is remembered (state directory), with whether it runs. */
  portFile: WebPortFile;
  /** Something worth the log: a remembered port taken, the port file not written. */
  onNote?: (message: string, fields: Record<string, unknown>) => void;
};

/** What handlers may do with the web view's endpoint. */
export interface WebPort {
  /**
   * `port`: undefined for the remembered one (else any), 0 for any. `rotate`: a new token
   * first (every page and tab session is let go). `code`: a one-time code as well.
   */
  start(port: number | undefined, rotate?: boolean, code?: boolean): Promise<WebStatus>;
  stop(): Promise<boolean>;
  /** The machines of config.json's `hosts` the page shows beside this one. */
  hosts(): WebRemoteHost[];
}

/**
 * Owns the web view's endpoint while the daemon runs: at most one, started and stopped on
 * request (`clippy web`), ended with the daemon. Starts and stops are serialized.
 */
export class WebHost implements Omit<WebPort, 'hosts'> {
  private endpoint: WebEndpoint | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly codes = new WebCodes();

  constructor(
    private readonly options: WebHostOptions,
    private readonly assetsDir: string | null = webAssetsDir(),
  ) {}

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => {});
    return next;
  }

  start(port: number | undefined, rotate = false, code = false): Promise<WebStatus> {
    return this.serialized(async () => {
      const status = await this.startNow(port, rotate);
      return code ? { ...status, code_url: this.codeUrl(status.port) } : status;
    });
  }

  /**
   * When the daemon starts: the web view again on its port when it ran before the daemon
   * stopped (a restart, a crash, a `kill -9`), so open pages come back by themselves.
   */
  async resume(): Promise<WebStatus | null> {
    if (this.options.portFile.read()?.running !== true) return null;
    return this.start(undefined);
  }

  private codeUrl(port: number): string {
    return `http://${WEB_HOST}:${port}/#code=${this.codes.issue()}`;
  }

  private async startNow(port: number | undefined, rotate: boolean): Promise<WebStatus> {
    const running = this.endpoint;
    const token = rotate ? this.options.tokenFile.rotate() : this.options.tokenFile.read();
    // Codes were handed out under the old token's web view: a new token ends them too.
    if (rotate) this.codes.clear();
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
    // No port asked for: the one it had, so a page open on it (or installed) finds it again.
    const remembered = port === undefined ? this.options.portFile.read()?.port : undefined;
    let endpoint: WebEndpoint;
    let moved: string | undefined;
    try {
      endpoint = await this.listen(remembered ?? port ?? 0, token);
    } catch (err) {
      if (remembered === undefined || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE')
        throw this.startFailure(err, port);
      endpoint = await this.listen(0, token).catch((again: unknown) => {
        throw this.startFailure(again, 0);
      });
      moved = `port ${remembered}, the web view's before, is taken by another program: it moved to port ${endpoint.port}; open its new URL (pages open on the old one cannot come back by themselves)`;
      this.options.onNote?.('web view moved: its port is taken', {
        was: remembered,
        port: endpoint.port,
      });
    }
    // Moved to another port: the old endpoint ends only once the new one listens, so a port
    // that cannot be had leaves the running web view as it was.
    if (running && this.endpoint === running) await running.dispose();
    this.endpoint = endpoint;
    this.remember(endpoint.port, true);
    return {
      url: endpoint.url,
      port: endpoint.port,
      token: endpoint.token,
      started: true,
      ...(moved ? { moved } : {}),
    };
  }

  private listen(port: number, token: string): Promise<WebEndpoint> {
    return WebEndpoint.start({
      ...this.options,
      port,
      assetsDir: this.assetsDir!,
      token,
      codes: this.codes,
      bridge: (ws, host) => this.options.remotes.bridge(ws, host),
    });
  }

  private startFailure(err: unknown, port: number | undefined): HandlerError {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'EADDRINUSE'
        ? `port ${port} on 127.0.0.1 is in use`
        : code === 'EACCES'
          ? `port ${port} needs privileges`
          : String((err as Error).message ?? err);
    const still = this.endpoint ? `; it still runs on port ${this.endpoint.port}` : '';
    return new HandlerError('web_unavailable', `the web view could not start: ${why}${still}`);
  }

  private remember(port: number, running: boolean): void {
    const failed = this.options.portFile.write({ port, running });
    if (failed)
      this.options.onNote?.('web view port not remembered', {
        file: this.options.portFile.path,
        err: failed.message,
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

  /** `clippy web --stop`: it ends, and stays stopped across daemon restarts (its port is kept). */
  stop(): Promise<boolean> {
    return this.serialized(async () => {
      const running = this.endpoint;
      const remembered = this.options.portFile.read();
      if (remembered?.running) this.remember(remembered.port, false);
      if (!running) return false;
      this.endpoint = null;
      this.options.remotes.dispose();
      await running.dispose();
      return true;
    });
  }

  /** Ends the endpoint with the daemon; remembered as running, it comes back with the next one. */
  dispose(): Promise<void> {
    return this.serialized(async () => {
      const running = this.endpoint;
      this.endpoint = null;
      this.options.remotes.dispose();
      await running?.dispose();
    });
  }
}
