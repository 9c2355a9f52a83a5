import net from 'node:net';
import { FrameDecoder, PROTOCOL_VERSION, encodeFrame } from '@clippy/protocol';

// A route's source on another machine (`clippy route add build:codex claude`): this daemon
// connects, as a client, to the other daemon's broker socket forwarded here by SSH (the CLI
// set the forwarding up: docs/remote.md), follows the source session's turns and reads each
// one. The turn then goes through this daemon's route like a local one, with the hop count the
// other daemon announced it with (`turn.hops`: hop-count.ts), so the hop limit spans daemons.

/** How long the other daemon may take to answer a request before the link counts as broken. */
const REMOTE_REQUEST_TIMEOUT_MS = 30_000;

export interface RemoteTurn {
  turn_id: string;
  text: string;
  prompt: string;
  interrupted: boolean;
}

export interface RemoteSourceEvents {
  /**
   * A turn of the source, with the automatic injections behind it as the other daemon counted
   * them; null when it did not say (a clippy older than hop counts).
   */
  turn(turn: RemoteTurn, hops: number | null): void;
  /** The source session exited on its machine. */
  exited(): void;
  /** The link broke (SSH gone, daemon stopped): the reason, for the route log. */
  lost(reason: string): void;
}

/** The hop count a peer announced; null for none, and for a value that is not one (a broken peer). */
function hopCount(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

export class RemoteSource {
  private socket: net.Socket | null = null;
  private readonly decoder = new FrameDecoder();
  private nextId = 1;
  private readonly waiting = new Map<number, (m: Record<string, unknown>) => void>();
  private closed = false;

  private constructor(
    private readonly session: string,
    /** How that machine is named in logs and `route ls`. */
    readonly host: string,
    private readonly events: RemoteSourceEvents,
  ) {}

  /** Connects, says hello and subscribes; throws with the reason when the other daemon cannot be reached. */
  static async open(
    socketPath: string,
    session: string,
    host: string,
    events: RemoteSourceEvents,
  ): Promise<RemoteSource> {
    const source = new RemoteSource(session, host, events);
    await source.connect(socketPath);
    return source;
  }

  private connect(socketPath: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const s = net.connect(socketPath);
      this.socket = s;
      let ready = false;
      const fail = (reason: string) => {
        if (!ready) reject(new Error(reason));
        else this.lose(reason);
      };
      s.on('data', (chunk) => {
        let messages: unknown[];
        try {
          messages = this.decoder.push(chunk);
        } catch (err) {
          fail(`the other daemon sent a bad frame: ${(err as Error).message}`);
          s.destroy();
          return;
        }
        for (const m of messages) this.onMessage(m as Record<string, unknown>);
      });
      s.once('error', (err) => fail(err.message));
      s.once('close', () => fail('the connection to the other daemon closed'));
      s.once('connect', () => {
        void (async () => {
          try {
            const ack = await this.call(
              { type: 'hello', id: 0, version: PROTOCOL_VERSION, role: 'client' },
              0,
            );
            if (ack.status !== 'ok')
              throw new Error(String(ack.message ?? ack.error ?? 'hello refused'));
            const sub = await this.call({
              type: 'subscribe',
              events: ['turn_completed', 'session_exited', 'session_removed'],
              sessions: [this.session],
            });
            if (sub.status !== 'ok') throw new Error(String(sub.message ?? sub.error));
            // The session must exist there (a typo would otherwise wait for ever).
            const list = await this.call({ type: 'list_sessions' });
            const sessions =
              (list.sessions as { session: string; name: string; state: string }[] | undefined) ??
              [];
            const found = sessions.find(
              (x) => x.session === this.session || x.name === this.session,
            );
            if (!found) throw new Error(`no session '${this.session}' there`);
            if (found.state === 'exited')
              throw new Error(`session '${this.session}' there has exited`);
            ready = true;
            resolve();
          } catch (err) {
            s.destroy();
            reject(err as Error);
          }
        })();
      });
    });
  }

  /** Sends a request and resolves with its answer (`hello` is answered under id 0). */
  private call(
    message: Record<string, unknown>,
    id = this.nextId++,
  ): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`the other daemon did not answer '${String(message.type)}' in time`));
      }, REMOTE_REQUEST_TIMEOUT_MS);
      this.waiting.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      this.socket?.write(encodeFrame({ ...message, id }));
    });
  }

  private onMessage(m: Record<string, unknown>): void {
    const id = typeof m.id === 'number' ? m.id : -1;
    if (m.type === 'hello_ack' || (m.type === 'response' && this.waiting.has(id))) {
      const key = m.type === 'hello_ack' ? 0 : id;
      const done = this.waiting.get(key);
      this.waiting.delete(key);
      done?.(m);
      return;
    }
    if (m.type === 'turn_completed') {
      const meta = m.turn as { turn_id: string; hops?: unknown } | undefined;
      if (meta) void this.readTurn(meta.turn_id, hopCount(meta.hops));
    } else if (m.type === 'session_exited' || m.type === 'session_removed') {
      this.events.exited();
    }
  }

  private async readTurn(turnId: string, hops: number | null): Promise<void> {
    try {
      const r = await this.call({ type: 'get_turn', turn_id: turnId });
      const turn = r.turn as RemoteTurn | undefined;
      if (r.status !== 'ok' || !turn) {
        this.events.lost(`turn ${turnId} could not be read there: ${String(r.message ?? r.error)}`);
        return;
      }
      this.events.turn(
        {
          turn_id: turn.turn_id,
          text: turn.text,
          prompt: turn.prompt,
          interrupted: turn.interrupted,
        },
        hops,
      );
    } catch (err) {
      this.lose((err as Error).message);
    }
  }

  private lose(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.events.lost(reason);
  }

  dispose(): void {
    this.closed = true;
    this.socket?.destroy();
    this.socket = null;
    this.waiting.clear();
  }
}
