import { Packr, Unpackr } from 'msgpackr';
import { MAX_PAYLOAD_SIZE, PROTOCOL_VERSION } from '@clippy/protocol';

type Message = Record<string, unknown> & { type: string; id: number };
type PushListener = (push: Message) => void;

/** The broker answered a request with `status: error`. */
export class RpcError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

// useRecords off: plain MessagePack maps, as the broker decodes them.
const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false });

/** The first wait before reconnecting; doubled after each failed try… */
const RECONNECT_FIRST_MS = 250;
/** …up to this: a daemon back after a restart is found within seconds, an absent one costs little. */
const RECONNECT_MAX_MS = 5_000;

/** Connection events: `down` (with why and when the next try is), `up` (connected again). */
export type LinkListener = (event: { up: boolean; why: string; retryInMs: number }) => void;

/**
 * The page's protocol client: one WebSocket, one binary MessagePack message per protocol
 * message (docs/protocol.md), requests answered by id, pushes handed to listeners by type.
 * When the connection drops (the daemon or the web view restarted) it connects again by itself
 * with the tab's session, backing off from RECONNECT_FIRST_MS to RECONNECT_MAX_MS; listeners of
 * `onLink` resync then. Push listeners stay registered across reconnections.
 */
export class Rpc {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (m: Message) => void; reject: (e: Error) => void }
  >();
  private readonly listeners = new Map<string, Set<PushListener>>();
  private readonly linkListeners = new Set<LinkListener>();
  /** What the broker said before closing the connection (an error with id 0), if anything. */
  private lastWords: string | null = null;
  private retryMs = RECONNECT_FIRST_MS;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  /** Reconnections done (tests and the banner read it). */
  reconnections = 0;

  private constructor(
    private ws: WebSocket,
    private readonly session: string,
  ) {
    this.wire(ws);
  }

  private wire(ws: WebSocket): void {
    ws.binaryType = 'arraybuffer';
    ws.addEventListener('message', (event) => this.receive(event.data as ArrayBuffer));
    ws.addEventListener('close', (event) => {
      if (ws !== this.ws) return;
      const why = this.lastWords ?? (event.reason || `connection closed (code ${event.code})`);
      this.lastWords = null;
      for (const { reject } of this.pending.values()) reject(new Error(why));
      this.pending.clear();
      this.scheduleReconnect(why);
    });
  }

  private scheduleReconnect(why: string): void {
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
    for (const listener of this.linkListeners) listener({ up: false, why, retryInMs: wait });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.reconnect();
    }, wait);
  }

  private async reconnect(): Promise<void> {
    let ws: WebSocket;
    try {
      ws = await Rpc.open(this.session);
    } catch (err) {
      this.scheduleReconnect((err as Error).message);
      return;
    }
    this.ws = ws;
    this.wire(ws);
    try {
      const ack = await this.call('hello', { version: PROTOCOL_VERSION, role: 'client' }, 0);
      if (ack.status !== 'ok') throw new RpcError(String(ack.error), String(ack.message));
    } catch (err) {
      // The close event (if any) schedules the next try; a refused hello closes the socket.
      if (ws.readyState === WebSocket.OPEN) ws.close();
      return void err;
    }
    this.retryMs = RECONNECT_FIRST_MS;
    this.reconnections++;
    for (const listener of this.linkListeners) listener({ up: true, why: '', retryInMs: 0 });
  }

  private static open(session: string): Promise<WebSocket> {
    const url = `ws://${location.host}/ws?session=${encodeURIComponent(session)}`;
    const ws = new WebSocket(url);
    return new Promise<WebSocket>((resolve, reject) => {
      ws.addEventListener('open', () => resolve(ws), { once: true });
      ws.addEventListener(
        'error',
        () => reject(new Error(`could not connect to ${location.host}`)),
        { once: true },
      );
    });
  }

  /** Opens the WebSocket beside the page with this tab's session (see sign-in.ts), says hello. */
  static async connect(session: string): Promise<Rpc> {
    const rpc = new Rpc(await Rpc.open(session), session);
    const ack = await rpc.call('hello', { version: PROTOCOL_VERSION, role: 'client' }, 0);
    if (ack.status !== 'ok') throw new RpcError(String(ack.error), String(ack.message));
    return rpc;
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
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** A request; resolves with the response's fields, rejects with RpcError on `status: error`. */
  async request<T = Record<string, unknown>>(type: string, fields: object = {}): Promise<T> {
    const response = await this.call(type, fields, this.nextId++);
    if (response.status !== 'ok')
      throw new RpcError(String(response.error), String(response.message ?? response.error));
    return response as unknown as T;
  }

  /** A notification (id 0): no response comes. */
  notify(type: string, fields: object): void {
    this.send({ type, id: 0, ...fields });
  }

  private call(type: string, fields: object, id: number): Promise<Message> {
    return new Promise((resolve, reject) => {
      const bytes = packr.pack({ type, id, ...fields });
      // The broker would close the connection on it: refuse here, saying why, and stay connected.
      if (bytes.length > MAX_PAYLOAD_SIZE) {
        const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
        reject(
          new RpcError(
            'payload_too_large',
            `${type} of ${mib(bytes.length)} MiB is above the ${mib(MAX_PAYLOAD_SIZE)} MiB a message may hold`,
          ),
        );
        return;
      }
      if (this.ws.readyState !== WebSocket.OPEN) {
        reject(new RpcError('disconnected', 'not connected to clippyd'));
        return;
      }
      this.pending.set(id, { resolve, reject });
      this.ws.send(bytes);
    });
  }

  private send(message: object): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(packr.pack(message));
  }

  private receive(data: ArrayBuffer): void {
    const message = unpackr.unpack(new Uint8Array(data)) as Message;
    if ((message.type === 'response' || message.type === 'hello_ack') && message.id !== 0) {
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      waiter?.resolve(message);
      return;
    }
    if (message.type === 'response' && message.status === 'error') {
      // id 0: about the connection itself (a refused hello or frame), said before it is closed.
      this.lastWords = String(message.message ?? message.error);
      const hello = this.pending.get(0);
      this.pending.delete(0);
      hello?.resolve(message);
      return;
    }
    if (message.type === 'hello_ack') {
      const waiter = this.pending.get(0);
      this.pending.delete(0);
      waiter?.resolve(message);
      return;
    }
    for (const listener of this.listeners.get(message.type) ?? []) listener(message);
  }
}
