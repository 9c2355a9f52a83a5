// The request/answer and push plumbing every client of the protocol shares (the Node client,
// the web page, the daemon's remote route source): request ids, the requests waiting for their
// answer, matching an answer to its request, timeouts, and pushes handed to listeners by type.
// It runs in the browser as well as in Node (no Node module here): the transport that carries
// the messages (a Unix socket, a WebSocket) is the caller's. In client, not protocol: it is the
// one client core; the web page takes it from `@clippy/client/core`, which loads no Node module.
import { MAX_REQUEST_ID, PUSH_ID } from '@clippy/protocol';

/** A decoded protocol message. */
export type RpcMessage = Record<string, unknown>;

export interface RpcCallOptions<T> {
  /** The request's id: the next one by default; PUSH_ID (0) for `hello`, whose answer is `hello_ack`. */
  id?: number;
  /** Give up after this long (ms); 0, Infinity or absent waits until the connection ends. */
  timeoutMs?: number;
  /** The error a timeout rejects with. */
  timeoutError?: (type: string, timeoutMs: number) => Error;
  /** Turns the answer into the call's result, when it arrives (a throw rejects the call). */
  answer?: (message: RpcMessage) => T;
}

interface Waiting {
  settle: (message: RpcMessage) => void;
  reject: (err: Error) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

type Listener = (message: RpcMessage) => void;

export class RpcCore {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly anyListeners = new Set<Listener>();

  /**
   * `send` writes one message on the transport (it may throw: the call then rejects with that
   * error); `isPush` says which message types are pushes (others that answer nothing are dropped).
   */
  constructor(
    private readonly send: (message: RpcMessage) => unknown,
    private readonly isPush: (type: string) => boolean = () => true,
  ) {}

  /** Requests waiting for their answer. */
  get pendingCount(): number {
    return this.waiting.size;
  }

  /**
   * Sends a request (`{ ...fields, type, id }`) and resolves with its answer (through
   * `options.answer` when given, else the whole message), or rejects on a timeout, a failed
   * send, or the connection's end (failAll).
   */
  call<T = RpcMessage>(type: string, fields: object, options: RpcCallOptions<T> = {}): Promise<T> {
    const id = options.id ?? this.takeId();
    const { timeoutMs } = options;
    return new Promise<T>((resolve, reject) => {
      const answer = options.answer;
      const entry: Waiting = {
        settle: (message) => {
          if (!answer) return resolve(message as T);
          try {
            resolve(answer(message));
          } catch (err) {
            reject(err as Error);
          }
        },
        reject,
        timer: undefined,
      };
      if (timeoutMs !== undefined && timeoutMs > 0 && Number.isFinite(timeoutMs)) {
        const error =
          options.timeoutError ?? ((t: string) => new Error(`no answer to '${t}' in time`));
        entry.timer = setTimeout(() => this.fail(id, error(type, timeoutMs)), timeoutMs);
      }
      this.waiting.set(id, entry);
      try {
        this.send({ ...fields, type, id });
      } catch (err) {
        this.fail(id, err as Error);
      }
    });
  }

  /** Sends a notification (`id` 0): no answer comes. Returns what the transport's send did. */
  notify(type: string, fields: object): unknown {
    return this.send({ ...fields, type, id: PUSH_ID });
  }

  /** Calls `listener` for every push of that type; returns a function that stops it. */
  on(type: string, listener: Listener): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Calls `listener` for every push, whatever its type, after those of its type. */
  onAny(listener: Listener): () => void {
    this.anyListeners.add(listener);
    return () => this.anyListeners.delete(listener);
  }

  /**
   * A message from the other end: `hello_ack` answers the request under PUSH_ID, a `response`
   * the request of its id; any other is a push for the listeners of its type. An answer nobody
   * waits for (timed out already) is dropped.
   */
  receive(message: RpcMessage): void {
    const type = message.type;
    if (type === 'hello_ack' || type === 'response') {
      const id = type === 'hello_ack' ? PUSH_ID : message.id;
      if (typeof id === 'number') this.take(id)?.settle(message);
      return;
    }
    if (typeof type !== 'string' || !this.isPush(type)) return;
    for (const listener of [...(this.listeners.get(type) ?? [])]) listener(message);
    for (const listener of [...this.anyListeners]) listener(message);
  }

  /** The request under `id` fails with `err` (a no-op once it was answered). */
  fail(id: number, err: Error): void {
    this.take(id)?.reject(err);
  }

  /** Every waiting request fails with `err` (the connection ended). */
  failAll(err: Error): void {
    for (const id of [...this.waiting.keys()]) this.fail(id, err);
  }

  /** Request ids 1, 2, 3, …: u32 on the wire, 0 reserved, wrapping past the top (a connection
   * would need 4e9 requests). */
  private takeId(): number {
    const id = this.nextId;
    this.nextId = id >= MAX_REQUEST_ID ? 1 : id + 1;
    return id;
  }

  private take(id: number): Waiting | undefined {
    const entry = this.waiting.get(id);
    if (!entry) return undefined;
    this.waiting.delete(id);
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    return entry;
  }
}
