import { fileURLToPath } from 'node:url';
import * as vscode from 'vscode';
import {
  DaemonNotRunningError,
  connectDetailed,
  resolveSocketPaths,
  type ClippyClient,
  type CloseInfo,
  writeRedirectPage,
} from '@clippy/client';
import { cliEnv } from './cli-env.js';
import { startDaemon } from './daemon-start.js';
import { DaemonError, messageOf } from './errors.js';
import type { Settings } from './settings.js';

/** Nothing answers at the socket, and the attempt was not to start a daemon. */
class NoDaemonError extends DaemonError {}

/**
 * The extension's connection to clippyd: one client for requests and the event subscription,
 * connected on first use (starting the daemon when the settings allow) and again after the
 * daemon went away. Terminals get connections of their own (an attach takes its connection).
 */
export class DaemonLink implements vscode.Disposable {
  private current: ClippyClient | null = null;
  private pending: Promise<ClippyClient> | null = null;
  private pendingAutostart = false;
  private disposed = false;
  private readonly connected = new vscode.EventEmitter<ClippyClient>();
  private readonly lost = new vscode.EventEmitter<CloseInfo>();
  /** A new connection is ready (the model subscribes on it). */
  readonly onDidConnect = this.connected.event;
  /** The connection ended (the daemon stopped or died, or it was closed). */
  readonly onDidDisconnect = this.lost.event;

  constructor(
    private readonly settings: () => Settings,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** The socket the settings point at (for messages); throws NoRuntimeDirError without one. */
  socketPath(): string {
    const s = this.settings();
    const paths = resolveSocketPaths(this.env, s.socket);
    return s.transport === 'ws' ? paths.wsSocket : paths.socket;
  }

  /**
   * Writes a page only this user can read, beside the daemon's socket, that sends a browser on
   * to `url`; returns its file path. What an opener is given instead of a URL with a token: every
   * user sees an opener's command line (`ps`).
   */
  redirectPage(url: string): string {
    return fileURLToPath(writeRedirectPage(url, this.env, this.settings().socket));
  }

  /** The connected client; connects first when there is none (starting the daemon if allowed). */
  client(opts: { autostart?: boolean } = {}): Promise<ClippyClient> {
    const autostart = opts.autostart ?? true;
    if (this.current?.isOpen) return Promise.resolve(this.current);
    if (this.disposed) return Promise.reject(new DaemonError('the clippy extension is stopping'));
    if (this.pending) {
      // An attempt that may not start the daemon is under way: should it find none, this
      // caller's may.
      if (autostart && !this.pendingAutostart) {
        return this.pending.catch((err: unknown) => {
          if (err instanceof NoDaemonError) return this.client({ autostart: true });
          throw err;
        });
      }
      return this.pending;
    }
    this.pendingAutostart = autostart;
    this.pending = this.connect(autostart).finally(() => (this.pending = null));
    return this.pending;
  }

  /** Whether a connection is open now. */
  get isConnected(): boolean {
    return this.current?.isOpen === true;
  }

  /** A connection of its own (for an attach), to the daemon the link talks to; never starts one. */
  async open(): Promise<ClippyClient> {
    const s = this.settings();
    try {
      return (await connectDetailed(this.connectOptions(s))).client;
    } catch (err) {
      throw new DaemonError(messageOf(err, this.socketPathOrUnknown()));
    }
  }

  private connectOptions(s: Settings) {
    return {
      env: this.env,
      transport: s.transport,
      ...(s.socket ? { socket: s.socket } : {}),
    };
  }

  private socketPathOrUnknown(): string | undefined {
    try {
      return this.socketPath();
    } catch {
      return undefined;
    }
  }

  private async connect(autostart: boolean): Promise<ClippyClient> {
    const s = this.settings();
    const socket = this.socketPathOrUnknown();
    let client: ClippyClient;
    try {
      try {
        client = (await connectDetailed(this.connectOptions(s))).client;
      } catch (err) {
        if (!(err instanceof DaemonNotRunningError)) throw err;
        if (!autostart || !s.autostart) {
          throw new NoDaemonError(`no clippy daemon is running (socket ${err.socketPath})`);
        }
        await startDaemon(
          s.command,
          s.socket ? ['--socket', s.socket] : [],
          err.socketPath,
          cliEnv(this.env),
        );
        client = (await connectDetailed(this.connectOptions(s))).client;
      }
    } catch (err) {
      throw err instanceof DaemonError ? err : new DaemonError(messageOf(err, socket));
    }
    if (this.disposed) {
      client.dispose();
      throw new DaemonError('the clippy extension is stopping');
    }
    this.current = client;
    void client.closed.then((info) => {
      if (this.current === client) this.current = null;
      if (!this.disposed) this.lost.fire(info);
    });
    this.connected.fire(client);
    return client;
  }

  /** Closes the connection (the settings now point elsewhere); the next use connects anew. */
  async reset(): Promise<void> {
    const c = this.current;
    this.current = null;
    if (c) await c.close();
  }

  dispose(): void {
    this.disposed = true;
    this.current?.dispose();
    this.current = null;
    this.connected.dispose();
    this.lost.dispose();
  }
}
