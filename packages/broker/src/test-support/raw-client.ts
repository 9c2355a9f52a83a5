import { connect, type Socket } from 'node:net';
import { FrameDecoder, PROTOCOL_VERSION, encodeFrame } from '@clippy/protocol';

/**
 * How long a wait for a message gives up after: a hang guard, not a timing window (a passing
 * test never reaches it). 10 s ran out for a PTY's first output with the full suite at a load
 * average of 18 on two cores.
 */
const WAIT_MS = 25_000;

export type Message = Record<string, unknown> & { type: string; id: number };

/**
 * A deliberately small test client: raw frames over a Unix socket, no dependency on
 * @clippy/client. Collects every message; helpers wait for the ones a test needs.
 */
export class RawClient {
  readonly messages: Message[] = [];
  closed = false;
  /** Acknowledge every output push at once (what a well-behaved interactive client does). */
  autoAck = false;
  /** Count output pushes but do not keep them (long floods). */
  dropOutput = false;
  /** Output bytes received per session. */
  readonly received = new Map<string, number>();
  private readonly decoder = new FrameDecoder();
  private nextId = 1;
  private waiters: { check: () => boolean; resolve: () => void }[] = [];

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      for (const m of this.decoder.push(chunk) as Message[]) {
        if (m.type === 'output') {
          const n = (m.data as Uint8Array).length;
          this.received.set(m.session as string, (this.received.get(m.session as string) ?? 0) + n);
          if (this.autoAck) this.sendRaw({ type: 'ack', id: 0, session: m.session, bytes: n });
          if (this.dropOutput) continue;
        }
        this.messages.push(m);
      }
      this.wake();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  static connect(path: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once('connect', () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  /** Connects and completes the handshake. */
  static async open(path: string, role: 'client' | 'wrapper' = 'client'): Promise<RawClient> {
    const c = await RawClient.connect(path);
    c.sendRaw({ type: 'hello', id: 0, version: PROTOCOL_VERSION, role });
    const ack = await c.waitFor((m) => m.type === 'hello_ack');
    if (ack.status !== 'ok') throw new Error(`handshake failed: ${JSON.stringify(ack)}`);
    return c;
  }

  sendRaw(message: object): void {
    this.socket.write(encodeFrame(message));
  }

  writeBytes(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  /** Sends a request with a fresh id and resolves with its response. */
  async request(type: string, fields: Record<string, unknown> = {}): Promise<Message> {
    const id = this.nextId++;
    this.sendRaw({ type, id, ...fields });
    return this.waitFor((m) => m.type === 'response' && m.id === id);
  }

  /** Like request, but throws unless the status is ok. */
  async ok(type: string, fields: Record<string, unknown> = {}): Promise<Message> {
    const r = await this.request(type, fields);
    if (r.status !== 'ok')
      throw new Error(`${type} failed: ${String(r.error)}: ${String(r.message)}`);
    return r;
  }

  /** The first collected message (from `from`) matching, waiting for it if needed. */
  waitFor(match: (m: Message) => boolean, timeoutMs = WAIT_MS, from = 0): Promise<Message> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.messages.slice(from).find(match);
        if (found) {
          clearTimeout(timer);
          resolve(found);
          return true;
        }
        if (this.closed) {
          clearTimeout(timer);
          reject(new Error('connection closed while waiting'));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.check !== check);
        reject(
          new Error(
            `timed out waiting; last messages: ${JSON.stringify(this.messages.slice(-3)).slice(0, 500)}`,
          ),
        );
      }, timeoutMs);
      if (!check()) this.waiters.push({ check, resolve: () => {} });
    });
  }

  /** Resolves once `predicate` holds (re-checked on every message). */
  until(predicate: () => boolean, timeoutMs = WAIT_MS): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (predicate()) {
          clearTimeout(timer);
          resolve();
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.check !== check);
        reject(new Error('timed out waiting for condition'));
      }, timeoutMs);
      if (!check()) this.waiters.push({ check, resolve: () => {} });
    });
  }

  /** Every output byte received for a session, concatenated. */
  output(session: string): Buffer {
    return Buffer.concat(
      this.messages
        .filter((m) => m.type === 'output' && m.session === session)
        .map((m) => Buffer.from(m.data as Uint8Array)),
    );
  }

  waitClosed(timeoutMs = 5_000): Promise<void> {
    return this.until(() => this.closed, timeoutMs);
  }

  close(): void {
    this.socket.destroy();
  }

  private wake(): void {
    this.waiters = this.waiters.filter((w) => !w.check());
  }
}
