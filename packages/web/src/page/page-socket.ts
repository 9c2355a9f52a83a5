// The page's transport: the WebSocket beside the page (the daemon's web endpoint), one binary
// MessagePack message per protocol message (docs/protocol.md).
import { MAX_PAYLOAD_SIZE } from '@clippy/protocol';
import { Packr, Unpackr } from 'msgpackr';

/** The broker answered a request with `status: error`, or a request could not be sent. */
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

export class PageSocket {
  /** Each message received, decoded. */
  onMessage: (message: Record<string, unknown>) => void = () => {};
  /** The socket closed (why, as the close event says). */
  onClose: (event: CloseEvent) => void = () => {};

  private constructor(private readonly ws: WebSocket) {
    ws.binaryType = 'arraybuffer';
    ws.addEventListener('message', (event) =>
      this.onMessage(
        unpackr.unpack(new Uint8Array(event.data as ArrayBuffer)) as Record<string, unknown>,
      ),
    );
    ws.addEventListener('close', (event) => this.onClose(event));
  }

  /**
   * Opens the WebSocket beside the page with this tab's session (see sign-in.ts); with `host`,
   * one the daemon joins to that machine's daemon (config.json `hosts`).
   */
  static open(session: string, host: string | null = null): Promise<PageSocket> {
    const to = host === null ? '' : `&host=${encodeURIComponent(host)}`;
    const url = `ws://${location.host}/ws?session=${encodeURIComponent(session)}${to}`;
    const ws = new WebSocket(url);
    return new Promise<PageSocket>((resolve, reject) => {
      ws.addEventListener('open', () => resolve(new PageSocket(ws)), { once: true });
      ws.addEventListener(
        'error',
        () => reject(new Error(`could not connect to ${location.host}`)),
        { once: true },
      );
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Sends a request; throws RpcError when it cannot go (too large, not connected). */
  send(message: object): void {
    const bytes = packr.pack(message);
    // The broker would close the connection on it: refuse here, saying why, and stay connected.
    if (bytes.length > MAX_PAYLOAD_SIZE) {
      const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
      const type = String((message as { type?: unknown }).type);
      throw new RpcError(
        'payload_too_large',
        `${type} of ${mib(bytes.length)} MiB is above the ${mib(MAX_PAYLOAD_SIZE)} MiB a message may hold`,
      );
    }
    if (!this.isOpen) throw new RpcError('disconnected', 'not connected to clippyd');
    this.ws.send(bytes);
  }

  /** Sends a notification when connected (none is waited for). */
  post(message: object): void {
    if (this.isOpen) this.ws.send(packr.pack(message));
  }

  close(): void {
    this.ws.close();
  }
}
