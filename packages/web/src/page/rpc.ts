import { RpcCore, type RpcMessage } from '@clippy/client/core';
import { PROTOCOL_VERSION, PUSH_ID } from '@clippy/protocol';
import { PageSocket, RpcError } from './page-socket.js';
import { SIGNED_OUT, sessionKnown } from './sign-in.js';

export { RpcError } from './page-socket.js';

type PushListener = (push: RpcMessage & { type: string; id: number }) => void;

/** The first wait before reconnecting; doubled after each failed try… */
const RECONNECT_FIRST_MS = 250;
/** …up to this: a daemon back after a restart is found within seconds, an absent one costs little. */
const RECONNECT_MAX_MS = 5_000;

/**
 * Connection events: `down` (with why and when the next try is; `signedOut`: the endpoint no
 * longer knows this tab, and no try will help), `up` (connected again).
 */
export type LinkListener = (event: {
  up: boolean;
  why: string;
  retryInMs: number;
  signedOut?: boolean;
}) => void;

/**
 * The page's protocol client: requests answered by id and pushes handed to listeners by type
 * (RpcCore), over the WebSocket beside the page (PageSocket). When the connection drops (the
 * daemon or the web view restarted) it connects again by itself with the tab's session, backing
 * off from RECONNECT_FIRST_MS to RECONNECT_MAX_MS; listeners of `onLink` resync then. Push
 * listeners stay registered across reconnections.
 */
export class Rpc {
  private readonly core = new RpcCore((m) => this.socket.send(m));
  private readonly linkListeners = new Set<LinkListener>();
  /** What the broker said before closing the connection (an error with id 0), if anything. */
  private lastWords: string | null = null;
  private retryMs = RECONNECT_FIRST_MS;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  /** Reconnections done (tests and the banner read it). */
  reconnections = 0;

  private constructor(
    private socket: PageSocket,
    private readonly session: string,
    /** Another machine's daemon, reached through this one (null: this machine's). */
    readonly host: string | null = null,
  ) {
    this.wire(socket);
  }

  private wire(socket: PageSocket): void {
    socket.onMessage = (message) => this.receive(message);
    socket.onClose = (event) => {
      if (socket !== this.socket) return;
      const why = this.lastWords ?? (event.reason || `connection closed (code ${event.code})`);
      this.lastWords = null;
      this.core.failAll(new Error(why));
      this.scheduleReconnect(why);
    };
  }

  private scheduleReconnect(why: string): void {
    if (this.closed) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
    for (const listener of this.linkListeners) listener({ up: false, why, retryInMs: wait });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.reconnect();
    }, wait);
  }

  private async reconnect(): Promise<void> {
    let socket: PageSocket;
    try {
      socket = await PageSocket.open(this.session, this.host);
    } catch (err) {
      // A browser says nothing of why an upgrade was refused: ask whether this tab's session is
      // still good. After `clippy web --rotate` it is not, and trying again cannot help.
      if ((await sessionKnown(this.session)) === false) {
        for (const listener of this.linkListeners)
          listener({ up: false, why: SIGNED_OUT, retryInMs: 0, signedOut: true });
        return;
      }
      this.scheduleReconnect((err as Error).message);
      return;
    }
    this.socket = socket;
    this.wire(socket);
    try {
      await this.hello();
    } catch (err) {
      // The close event (if any) schedules the next try; a refused hello closes the socket.
      if (socket.isOpen) socket.close();
      return void err;
    }
    this.retryMs = RECONNECT_FIRST_MS;
    this.reconnections++;
    for (const listener of this.linkListeners) listener({ up: true, why: '', retryInMs: 0 });
  }

  /**
   * Opens the WebSocket beside the page with this tab's session (see sign-in.ts), says hello;
   * with `host`, to that machine's daemon through this one.
   */
  static async connect(session: string, host: string | null = null): Promise<Rpc> {
    const rpc = new Rpc(await PageSocket.open(session, host), session, host);
    try {
      await rpc.hello();
    } catch (err) {
      // Not reached (a host that cannot be): no reconnecting by itself for this one.
      rpc.closed = true;
      rpc.socket.close();
      throw new Error(rpc.lastWords ?? (err as Error).message);
    }
    return rpc;
  }

  /** Given up (a first connection that failed): never reconnects. */
  private closed = false;

  private async hello(): Promise<void> {
    const ack = await this.core.call(
      'hello',
      { version: PROTOCOL_VERSION, role: 'client' },
      { id: PUSH_ID },
    );
    if (ack.status !== 'ok') throw new RpcError(String(ack.error), String(ack.message));
  }

  /** Hears the connection go down (and when the next try is) and come back up. */
  onLink(listener: LinkListener): () => void {
    this.linkListeners.add(listener);
    return () => this.linkListeners.delete(listener);
  }

  /** Tries again now (the user pressed "Reconnect now"). */
  reconnectNow(): void {
    if (!this.retryTimer) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.retryMs = RECONNECT_FIRST_MS;
    void this.reconnect();
  }

  on(type: string, listener: PushListener): () => void {
    return this.core.on(type, listener as (m: RpcMessage) => void);
  }

  /** A request; resolves with the response's fields, rejects with RpcError on `status: error`. */
  request<T = Record<string, unknown>>(type: string, fields: object = {}): Promise<T> {
    return this.core.call(type, fields, {
      answer: (response) => {
        if (response.status !== 'ok')
          throw new RpcError(String(response.error), String(response.message ?? response.error));
        return response as unknown as T;
      },
    });
  }

  /** A notification (id 0): no response comes. */
  notify(type: string, fields: object): void {
    this.socket.post({ ...fields, type, id: PUSH_ID });
  }

  private receive(message: RpcMessage): void {
    if (message.type === 'response' && message.id === PUSH_ID && message.status === 'error') {
      // About the connection itself (a refused hello or frame), said before it is closed.
      this.lastWords = String(message.message ?? message.error);
    }
    this.core.receive(message);
  }
}
