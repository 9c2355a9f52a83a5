import { FRAME_HEADER_SIZE, decodePayload, encodeFrame } from '@clippy/protocol';
import type { Transport } from './rpc/transport.js';

export type { Transport } from './rpc/transport.js';
export { openUnixTransport } from './unix-transport.js';

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
