import {
  FATAL_ERROR_CODES,
  PROTOCOL_VERSION,
  encodeFrame,
  isRequestId,
  validateClientMessage,
  type ErrorCode,
  type HelloAck,
  type Request,
  type ResultType,
  type Role,
} from '@clippy/protocol';
import { ANSWERS_BEFORE_CLOSE_MS, CONNECTION_QUEUE_LIMIT } from './constants.js';
import type { Connection, StreamFailure } from './transports/transport.js';
import type { Logger } from './log.js';
import type { Session } from './sessions/session.js';
import { HANDLERS } from './handlers/index.js';
import {
  HandlerError,
  type BrokerPorts,
  type Caller,
  type Handler,
  type HandlerContext,
  type Subscription,
} from './handlers/context.js';

/** Requests still answered while the broker shuts down (everything else gets `shutting_down`). */
const ALLOWED_WHILE_STOPPING = new Set<string>([
  'daemon_status',
  'list_sessions',
  'detach',
  'ack',
  'shutdown',
]);

/** What a connection needs of the broker: its log and limits, its ports for handlers, its bookkeeping. */
export interface ConnectionHost {
  readonly log: Logger;
  readonly helloTimeoutMs: number;
  /** The clippy release this broker runs (said in `hello_ack`). */
  readonly packageVersion: string;
  /** The broker is shutting down: only ALLOWED_WHILE_STOPPING requests are answered. */
  readonly stopping: boolean;
  readonly ports: BrokerPorts;
  /** The connection is gone: the broker detaches it from every session and forgets it. */
  closed(connection: ClientConnection): void;
}

let nextConnectionNumber = 1;

/**
 * One client, on whichever transport: the handshake, dispatch of each request to its handler,
 * and the per-connection state (subscription, registered sessions; its attachments are
 * recorded by the sessions). Nothing a client sends can throw out of here: every failure
 * becomes an error response.
 */
export class ClientConnection implements Caller {
  readonly number = nextConnectionNumber++;
  role: Role | null = null;
  subscription: Subscription | null = null;
  /** Sessions this connection registered (role wrapper): they end when it disconnects. */
  readonly registered = new Set<Session>();
  /** Cancels outstanding waits (wait_turn) when the connection goes away. */
  readonly cleanups = new Set<() => void>();
  private handshaken = false;
  private closing = false;
  private closed = false;
  /** Closes a connection that does not complete hello in time. */
  private helloTimer: NodeJS.Timeout | null;
  /** Requests read and not answered yet (their handlers still work). */
  private unanswered = 0;
  /** Closing once the requests read are answered (a failed stream), null when not. */
  private closeWhenAnswered: (() => void) | null = null;

  constructor(
    private readonly host: ConnectionHost,
    private readonly transport: Connection,
  ) {
    transport.onMessage((m) => this.handleMessage(m));
    transport.onFrameError((e) => this.handleFrameError(e));
    transport.onClose(() => this.handleClose());
    const timeoutMs = host.helloTimeoutMs;
    this.helloTimer = setTimeout(() => {
      this.helloTimer = null;
      if (this.handshaken) return;
      this.handleFrameError({
        code: 'handshake_timeout',
        message: `no hello within ${timeoutMs} ms of connecting`,
      });
    }, timeoutMs);
    this.helloTimer.unref();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get transportName(): 'unix' | 'ws' {
    return this.transport.transport;
  }

  get bufferedAmount(): number {
    return this.transport.bufferedAmount;
  }

  /** Sends an encoded frame; a connection whose queue passes the hard limit is dropped. */
  send(frame: Buffer): void {
    if (this.closed) return;
    this.transport.send(frame);
    if (this.transport.bufferedAmount > CONNECTION_QUEUE_LIMIT) {
      this.host.log.warn(
        { conn: this.number, queued: this.transport.bufferedAmount },
        'client is not reading: connection dropped',
      );
      this.transport.destroy();
    }
  }

  /** Encodes and sends one message object. */
  sendMessage(message: object): void {
    if (this.closed) return;
    this.send(encodeFrame(message));
  }

  sendError(id: number, error: ErrorCode, message: string): void {
    this.sendMessage({ type: 'response', id, status: 'error', error, message });
  }

  /** Flushes and closes (shutdown). */
  close(): void {
    this.closing = true;
    this.transport.close();
  }

  destroy(): void {
    this.closing = true;
    this.transport.destroy();
  }

  private handleMessage(value: unknown): void {
    if (this.closing || this.closed) return;
    try {
      if (!this.handshaken) this.handleBeforeHandshake(value);
      else this.dispatch(value);
    } catch (err) {
      // Only reachable through a bug in this file: keep the daemon and the connection alive.
      this.host.log.error({ err, conn: this.number }, 'unexpected error handling a message');
      this.safeSendError(
        0,
        'internal_error',
        'the broker failed to handle the message; see its log',
      );
    }
  }

  private handleBeforeHandshake(value: unknown): void {
    const obj = value as Record<string, unknown>;
    if (obj.type !== 'hello') {
      const id = isRequestId(obj.id) ? obj.id : 0;
      this.sendError(
        id,
        'handshake_required',
        'the first message on a connection must be hello {id: 0, version, role}',
      );
      return;
    }
    if (obj.id !== 0) {
      this.failHello(
        'invalid_hello_id',
        `hello must carry id 0 (got ${JSON.stringify(obj.id) ?? 'none'})`,
      );
      return;
    }
    if (typeof obj.version === 'number' && obj.version !== PROTOCOL_VERSION) {
      this.failHello(
        'version_mismatch',
        `this broker speaks protocol version ${PROTOCOL_VERSION}, the client sent ${obj.version}`,
      );
      return;
    }
    const result = validateClientMessage(value);
    if (!result.ok) {
      this.failHello(result.error, result.message);
      return;
    }
    const hello = result.message as Request<'hello'>;
    this.handshaken = true;
    this.clearHelloTimer();
    this.transport.handshaken();
    this.role = hello.role;
    const ack: HelloAck = {
      type: 'hello_ack',
      id: 0,
      status: 'ok',
      version: PROTOCOL_VERSION,
      broker_pid: process.pid,
      package_version: this.host.packageVersion,
    };
    this.sendMessage(ack);
  }

  private failHello(error: ErrorCode, message: string): void {
    const ack: HelloAck = {
      type: 'hello_ack',
      id: 0,
      status: 'error',
      error,
      message,
      version: PROTOCOL_VERSION,
      broker_pid: process.pid,
    };
    this.sendMessage(ack);
    if (FATAL_ERROR_CODES.has(error)) this.close();
  }

  private dispatch(value: unknown): void {
    const result = validateClientMessage(value);
    if (!result.ok) {
      this.sendError(result.id, result.error, result.message);
      return;
    }
    const request = result.message;
    if (request.type === 'hello') {
      this.sendError(0, 'invalid_message', 'hello was already exchanged on this connection');
      return;
    }
    const notification = request.id === 0;
    if (this.host.stopping && !ALLOWED_WHILE_STOPPING.has(request.type)) {
      if (!notification) this.sendError(request.id, 'shutting_down', 'the broker is shutting down');
      return;
    }
    const after: (() => void)[] = [];
    const context: HandlerContext = {
      ...this.host.ports,
      connection: this,
      afterResponse: (fn) => after.push(fn),
    };
    const handler = HANDLERS[request.type as ResultType] as Handler<ResultType>;
    const finish = (outcome: { ok: true; result: object } | { ok: false; error: unknown }) => {
      if (outcome.ok) {
        if (!notification) {
          this.safeSend(
            { ...outcome.result, type: 'response', id: request.id, status: 'ok' },
            request.id,
          );
        }
      } else if (outcome.error instanceof HandlerError) {
        if (!notification)
          this.safeSendError(request.id, outcome.error.code, outcome.error.message);
      } else {
        this.host.log.error(
          { err: outcome.error, conn: this.number, type: request.type },
          'handler failed',
        );
        if (!notification) {
          this.safeSendError(
            request.id,
            'internal_error',
            `the broker failed handling ${request.type}; see its log`,
          );
        }
      }
      for (const fn of after) {
        try {
          fn();
        } catch (err) {
          this.host.log.error({ err, conn: this.number }, 'after-response step failed');
        }
      }
      this.answered();
    };
    let pending: ReturnType<Handler<ResultType>>;
    this.unanswered++;
    try {
      pending = handler(request as Request<ResultType>, context);
    } catch (error) {
      finish({ ok: false, error });
      return;
    }
    if (pending instanceof Promise) {
      pending.then(
        (r) => finish({ ok: true, result: r as object }),
        (error: unknown) => finish({ ok: false, error }),
      );
    } else {
      finish({ ok: true, result: pending as object });
    }
  }

  private safeSend(message: object, id: number): void {
    try {
      this.sendMessage(message);
    } catch (err) {
      this.host.log.error({ err, conn: this.number }, 'could not encode a response');
      this.safeSendError(
        id,
        'internal_error',
        'the response could not be encoded; see the broker log',
      );
    }
  }

  private safeSendError(id: number, error: ErrorCode, message: string): void {
    try {
      this.sendError(id, error, message);
    } catch {
      // Nothing more can be said to this client.
    }
  }

  private clearHelloTimer(): void {
    if (this.helloTimer) clearTimeout(this.helloTimer);
    this.helloTimer = null;
  }

  /** The stream failed (bad bytes, a frame too slow or too big for the budget, no hello). */
  private handleFrameError(error: StreamFailure): void {
    if (this.closed) return;
    // Hitting the shared memory bound concerns every client: worth a warning.
    const level = error.code === 'partial_frame_limit' ? 'warn' : 'info';
    this.host.log[level](
      { conn: this.number, code: error.code },
      `closing connection: ${error.message}`,
    );
    this.safeSendError(0, error.code, error.message);
    this.closeAfterAnswers();
  }

  /**
   * Closes once every request read before the failure is answered (their handlers may still
   * work: a spawn forks, a relay types), or after ANSWERS_BEFORE_CLOSE_MS: nothing more is read.
   */
  private closeAfterAnswers(): void {
    this.closing = true;
    if (this.unanswered === 0) return this.close();
    const timer = setTimeout(() => this.closeWhenAnswered?.(), ANSWERS_BEFORE_CLOSE_MS);
    timer.unref();
    this.closeWhenAnswered = () => {
      clearTimeout(timer);
      this.closeWhenAnswered = null;
      this.close();
    };
  }

  private answered(): void {
    this.unanswered--;
    if (this.unanswered === 0) this.closeWhenAnswered?.();
  }

  private handleClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.closing = true;
    this.clearHelloTimer();
    for (const fn of this.cleanups) fn();
    this.cleanups.clear();
    // Detached from every session and forgotten by the broker; then what it registered ends.
    this.host.closed(this);
    for (const session of this.registered) this.host.ports.sessions.endWrapper(session);
    this.registered.clear();
  }
}
