import net from 'node:net';
import { FRAME_HEADER_SIZE, FrameDecoder, decodePayload, encodeFrame } from '@clippy/protocol';

/** One connection to the broker carrying whole messages, whatever the wire underneath. */
export interface Transport {
  /** Sends one message; returns false when the OS buffer is full (the data is still queued). */
  send(message: object): boolean;
  /** Resolves once everything queued so far was handed to the OS. */
  drain(): Promise<void>;
  /** Closes the connection; `onClose` fires once after. */
  close(): void;
  onMessage: (message: Record<string, unknown>) => void;
  onClose: (error?: Error) => void;
}

/** Opens a Unix socket speaking `[u32 length][MessagePack]` frames. Rejects with the socket error (ENOENT, ECONNREFUSED...). */
export function openUnixTransport(path: string): Promise<Transport> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(path);
    const decoder = new FrameDecoder();
    let closeError: Error | undefined;
    const transport: Transport = {
      send(message) {
        return socket.write(encodeFrame(message));
      },
      drain() {
        if (!socket.writableNeedDrain || socket.destroyed) return Promise.resolve();
        return new Promise((done) => {
          const finish = () => {
            socket.off('drain', finish);
            socket.off('close', finish);
            done();
          };
          socket.on('drain', finish);
          socket.on('close', finish);
        });
      },
      close() {
        socket.end();
        // A peer that never reads would keep a half-closed socket open forever.
        socket.destroySoon();
      },
      onMessage: () => {},
      onClose: () => {},
    };
    const onConnectError = (err: Error) => reject(err);
    socket.once('error', onConnectError);
    socket.once('connect', () => {
      socket.off('error', onConnectError);
      socket.setNoDelay?.(true);
      socket.on('error', (err) => {
        closeError = err;
      });
      socket.on('data', (chunk: Buffer) => {
        let messages: unknown[];
        try {
          messages = decoder.push(chunk);
        } catch (err) {
          closeError = err as Error;
          socket.destroy();
          return;
        }
        for (const m of messages) transport.onMessage(m as Record<string, unknown>);
      });
      socket.once('close', () => transport.onClose(closeError));
      resolve(transport);
    });
  });
}

/**
 * Opens the WebSocket transport on a Unix socket: one binary WebSocket message per protocol
 * message, holding the MessagePack payload (WebSocket already frames, so no length prefix).
 * Incoming messages that do carry the length prefix are accepted too.
 */
export async function openWebSocketTransport(path: string): Promise<Transport> {
  // Loaded here, not at the top: the CLI's commands speak the Unix socket and need not load ws.
  // Through the CLI's import hook when it set one (see cli/src/load-module.ts: its bundle may run
  // from V8's code cache, where node 20's own import() is lost).
  const hook = (globalThis as Record<symbol, unknown>)[Symbol.for('clippy.import')];
  const { default: WebSocket } = (await (typeof hook === 'function'
    ? (hook as (s: string) => Promise<unknown>)('ws')
    : import('ws'))) as typeof import('ws');
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws+unix:${path}:/`);
    ws.binaryType = 'nodebuffer';
    let closeError: Error | undefined;
    let opened = false;
    const transport: Transport = {
      send(message) {
        ws.send(encodeFrame(message).subarray(FRAME_HEADER_SIZE), { binary: true });
        return ws.bufferedAmount === 0;
      },
      async drain() {
        // `ws` has no drain event; the buffered amount falls as the socket flushes.
        while (ws.readyState === WebSocket.OPEN && ws.bufferedAmount > 0) {
          await new Promise((r) => setTimeout(r, 5));
        }
      },
      close() {
        if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
        else ws.close();
      },
      onMessage: () => {},
      onClose: () => {},
    };
    ws.on('error', (err) => {
      if (!opened) reject(err);
      else closeError = err;
    });
    ws.once('open', () => {
      opened = true;
      resolve(transport);
    });
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary) {
        closeError = new Error('the broker sent a text WebSocket message; the protocol is binary');
        ws.terminate();
        return;
      }
      let payload = data;
      if (
        data.length >= FRAME_HEADER_SIZE &&
        data.readUInt32BE(0) === data.length - FRAME_HEADER_SIZE
      ) {
        payload = data.subarray(FRAME_HEADER_SIZE);
      }
      let value: unknown;
      try {
        value = decodePayload(payload);
      } catch (err) {
        closeError = err as Error;
        ws.terminate();
        return;
      }
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        transport.onMessage(value as Record<string, unknown>);
      }
    });
    ws.once('close', () => {
      if (opened) transport.onClose(closeError);
    });
  });
}
