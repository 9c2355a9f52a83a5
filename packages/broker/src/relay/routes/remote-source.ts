import { openUnixTransport, RpcCore, type RpcMessage, type Transport } from '@clippy/client/lean';
import { FrameError, PROTOCOL_VERSION, PUSH_ID } from '@clippy/protocol';

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
  private transport: Transport | null = null;
  private readonly rpc = new RpcCore((m) => {
    if (!this.transport) throw new Error('not connected to the other daemon');
    this.transport.send(m);
  });
  private closed = false;

  private constructor(
    private readonly session: string,
    /** How that machine is named in logs and `route ls`. */
    readonly host: string,
    private readonly events: RemoteSourceEvents,
  ) {
    this.rpc.on('turn_completed', (m) => {
      const meta = m.turn as { turn_id: string; hops?: unknown } | undefined;
      if (meta) void this.readTurn(meta.turn_id, hopCount(meta.hops));
    });
    const exited = () => this.events.exited();
    this.rpc.on('session_exited', exited);
    this.rpc.on('session_removed', exited);
  }

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

  private async connect(socketPath: string): Promise<void> {
    const transport = await openUnixTransport(socketPath);
    this.transport = transport;
    let ready = false;
    let refused: (err: Error) => void = () => {};
    const lost = new Promise<never>((_, reject) => (refused = reject));
    lost.catch(() => {});
    transport.onMessage = (m) => this.rpc.receive(m);
    transport.onClose = (err) => {
      const reason =
        err instanceof FrameError
          ? `the other daemon sent a bad frame: ${err.message}`
          : (err?.message ?? 'the connection to the other daemon closed');
      this.rpc.failAll(new Error(reason));
      if (!ready) refused(new Error(reason));
      else this.lose(reason);
    };
    try {
      await Promise.race([lost, this.greet()]);
      ready = true;
    } catch (err) {
      transport.close();
      throw err;
    }
  }

  /** Says hello, subscribes to the session's turns and checks that it exists there. */
  private async greet(): Promise<void> {
    const ack = await this.call('hello', { version: PROTOCOL_VERSION, role: 'client' }, PUSH_ID);
    if (ack.status !== 'ok') throw new Error(String(ack.message ?? ack.error ?? 'hello refused'));
    const sub = await this.call('subscribe', {
      events: ['turn_completed', 'session_exited', 'session_removed'],
      sessions: [this.session],
    });
    if (sub.status !== 'ok') throw new Error(String(sub.message ?? sub.error));
    // The session must exist there (a typo would otherwise wait for ever).
    const list = await this.call('list_sessions', {});
    const sessions =
      (list.sessions as { session: string; name: string; state: string }[] | undefined) ?? [];
    const found = sessions.find((x) => x.session === this.session || x.name === this.session);
    if (!found) throw new Error(`no session '${this.session}' there`);
    if (found.state === 'exited') throw new Error(`session '${this.session}' there has exited`);
  }

  /** Sends a request and resolves with its answer (`hello` is answered under PUSH_ID). */
  private call(type: string, fields: object, id?: number): Promise<RpcMessage> {
    return this.rpc.call(type, fields, {
      ...(id !== undefined ? { id } : {}),
      timeoutMs: REMOTE_REQUEST_TIMEOUT_MS,
      timeoutError: (t) => new Error(`the other daemon did not answer '${t}' in time`),
    });
  }

  private async readTurn(turnId: string, hops: number | null): Promise<void> {
    try {
      const r = await this.call('get_turn', { turn_id: turnId });
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
    this.transport?.close();
    this.transport = null;
    this.rpc.failAll(new Error('the route to the other daemon was removed'));
  }
}
