// The Node transport of the protocol: a Unix socket speaking `[u32 length][MessagePack]` frames.
// In client, not protocol (which opens no socket): the CLI's client and the daemon's remote
// route source connect with it.
import net from 'node:net';
import { FrameDecoder, encodeFrame } from '@clippy/protocol';
import type { Transport } from './rpc/transport.js';

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
