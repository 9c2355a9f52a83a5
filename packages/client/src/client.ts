import {
  BrokerError,
  PROTOCOL_VERSION,
  PUSH_ID,
  PUSH_TYPE_NAMES,
  type Push,
  type PushType,
  type RequestInput,
  type RequestType,
  type Result,
  type ResultType,
  type Role,
} from '@clippy/protocol';
import { RpcCore, type RpcMessage } from './rpc/rpc-core.js';
import type { Transport } from './rpc/transport.js';
import {
  ConnectionClosedError,
  ProtocolViolationError,
  RequestTimeoutError,
  VersionMismatchError,
} from './errors.js';

/** Default wait for one answer: long enough for a slow spawn on a loaded machine. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** How long the broker gets to answer `hello` before we call the socket dead. */
export const HANDSHAKE_TIMEOUT_MS = 5_000;

export interface RequestOptions {
  /** Give up after this long (ms); 0 or Infinity waits forever. Default DEFAULT_REQUEST_TIMEOUT_MS. */
  timeoutMs?: number;
}

/** Why the connection ended. */
export interface CloseInfo {
  /** `client`: close() was called; `shutdown`: the broker announced it was stopping; `lost`: the socket closed under us (daemon died). */
  reason: 'client' | 'shutdown' | 'lost';
  message: string;
  error?: Error;
}

/** What a caller passes for a request: its fields, without `type` and `id` (the client sets them). */
export type RequestFields<T extends RequestType> = Omit<RequestInput<T>, 'type'>;

/**
 * Checks a broker's result against its schema: the parsed value, or why it is malformed. The
 * package's main entry installs the zod one; the lean entry (the CLI's fast path) runs without,
 * so that zod's schemas are not built for a one-shot command (the handshake's version check
 * still refuses a broker speaking another protocol).
 */
export type ResultCheck = (
  type: ResultType,
  result: Record<string, unknown>,
) => { ok: true; value: unknown } | { ok: false; problem: string };

type PushHandler<P extends PushType> = (message: Push<P>) => void;

const timeoutError = (type: string, ms: number): Error => new RequestTimeoutError(type, ms);

/**
 * A connected, handshaken client. Requests get ids 1, 2, 3, ... on this connection; pushes
 * (`id` 0) are dispatched to `on()` handlers and to `pushes()` iterators.
 */
export class ClippyClient {
  /** Settles once, when the connection ends, with the reason. Never rejects. */
  readonly closed: Promise<CloseInfo>;
  private resolveClosed!: (info: CloseInfo) => void;
  private closeInfo: CloseInfo | null = null;
  private readonly rpc: RpcCore;
  private shutdownReason: string | null = null;
  private closing = false;
  /** How every client checks results; null: taken as they come (see ResultCheck). */
  static resultCheck: ResultCheck | null = null;
  /** The broker's process id, from `hello_ack` (when it says). */
  brokerPid: number | undefined;
  /** The clippy release the broker runs, from `hello_ack` (brokers older than this field do not say). */
  brokerPackageVersion: string | undefined;

  private constructor(private readonly transport: Transport) {
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    // Unknown pushes from a newer broker are ignored: the protocol is additive.
    this.rpc = new RpcCore(
      (m) => transport.send(m),
      (type) => PUSH_TYPE_NAMES.has(type),
    );
    this.rpc.on('daemon_shutdown', (m) => {
      this.shutdownReason = String(m.reason ?? 'shutdown');
    });
    transport.onMessage = (m) => this.rpc.receive(m);
    transport.onClose = (err) => this.finish(err);
  }

  /**
   * Wraps an open transport and performs the handshake, giving the broker `timeoutMs` to answer.
   * Closes the transport when it fails.
   */
  static async handshake(
    transport: Transport,
    role: Role = 'client',
    timeoutMs = HANDSHAKE_TIMEOUT_MS,
  ): Promise<ClippyClient> {
    const client = new ClippyClient(transport);
    try {
      const answer = await client.rpc.call(
        'hello',
        { version: PROTOCOL_VERSION, role },
        { id: PUSH_ID, timeoutMs, timeoutError },
      );
      if (answer.status !== 'ok' && answer.error === 'version_mismatch') {
        throw new VersionMismatchError(
          String(answer.message ?? 'version mismatch'),
          typeof answer.version === 'number' ? answer.version : undefined,
          typeof answer.broker_pid === 'number' ? answer.broker_pid : undefined,
        );
      }
      if (answer.status !== 'ok') {
        throw new BrokerError(
          String(answer.error ?? 'internal_error'),
          answer.message as string | undefined,
        );
      }
      if (typeof answer.broker_pid === 'number') client.brokerPid = answer.broker_pid;
      if (typeof answer.package_version === 'string')
        client.brokerPackageVersion = answer.package_version;
      return client;
    } catch (err) {
      client.close();
      throw err;
    }
  }

  /** Whether the connection is still open. */
  get isOpen(): boolean {
    return this.closeInfo === null && !this.closing;
  }

  /** Sends a request and resolves with its typed result, or rejects with a BrokerError. */
  request<T extends ResultType>(
    type: T,
    fields: RequestFields<T>,
    options: RequestOptions = {},
  ): Promise<Result<T>> {
    if (!this.isOpen) {
      return Promise.reject(new ConnectionClosedError(this.closeInfo?.message));
    }
    return this.rpc.call(type, fields, {
      timeoutMs: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      timeoutError,
      answer: (message) => ClippyClient.result(type, message) as Result<T>,
    });
  }

  /** Sends a notification (`id` 0): no response comes back. Used for `ack`. Returns false when the socket buffer is full. */
  notify<T extends RequestType>(type: T, fields: RequestFields<T>): boolean {
    if (!this.isOpen) return false;
    return this.rpc.notify(type, fields) as boolean;
  }

  /** Resolves once everything sent so far was handed to the OS. */
  drain(): Promise<void> {
    return this.transport.drain();
  }

  /** Calls `handler` for every push of that type; returns a function that stops it. */
  on<P extends PushType>(type: P, handler: PushHandler<P>): () => void {
    return this.rpc.on(type, handler as (m: RpcMessage) => void);
  }

  /** Calls `handler` for every push, whatever its type. */
  onAny(handler: (message: Push) => void): () => void {
    return this.rpc.onAny(handler as (m: RpcMessage) => void);
  }

  /**
   * Iterates over pushes (of the given types, or all) as they arrive; ends when the connection
   * closes or the loop breaks. Pushes are queued while the consumer is busy.
   */
  async *pushes(types?: readonly PushType[]): AsyncGenerator<Push> {
    const queue: Push[] = [];
    let wake: (() => void) | null = null;
    const filter = types ? new Set<string>(types) : null;
    const off = this.onAny((m) => {
      if (filter && !filter.has(m.type)) return;
      queue.push(m);
      wake?.();
    });
    let ended = false;
    void this.closed.then(() => {
      ended = true;
      wake?.();
    });
    try {
      for (;;) {
        if (queue.length > 0) {
          yield queue.shift()!;
          continue;
        }
        if (ended || this.closeInfo) return;
        await new Promise<void>((r) => (wake = r));
        wake = null;
      }
    } finally {
      off();
    }
  }

  /** Closes the connection; pending requests reject with ConnectionClosedError. Resolves when closed. */
  close(): Promise<CloseInfo> {
    if (!this.closeInfo && !this.closing) {
      this.closing = true;
      this.transport.close();
    }
    return this.closed;
  }

  dispose(): void {
    void this.close();
  }

  /** A `response`'s result: its fields (checked, when a check is installed), or its error. */
  private static result(type: ResultType, message: RpcMessage): unknown {
    if (message.status !== 'ok') {
      throw new BrokerError(
        String(message.error ?? 'internal_error'),
        message.message as string | undefined,
      );
    }
    const { type: _t, id: _i, status: _s, ...rest } = message;
    const check = ClippyClient.resultCheck;
    if (!check) return rest;
    const checked = check(type, rest);
    if (checked.ok) return checked.value;
    throw new ProtocolViolationError(
      `the broker's answer to '${type}' is malformed: ${checked.problem}`,
    );
  }

  private finish(error?: Error): void {
    if (this.closeInfo) return;
    let info: CloseInfo;
    if (this.closing) info = { reason: 'client', message: 'connection closed by the client' };
    else if (this.shutdownReason !== null)
      info = {
        reason: 'shutdown',
        message: `the clippy daemon shut down (${this.shutdownReason})`,
      };
    else
      info = {
        reason: 'lost',
        message: `the connection to the clippy daemon was lost${error ? `: ${error.message}` : ''}`,
        ...(error ? { error } : {}),
      };
    this.closeInfo = info;
    this.rpc.failAll(new ConnectionClosedError(info.message));
    this.resolveClosed(info);
  }
}
