import { readFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { homedir } from 'node:os';
import type { WebSocket, RawData } from 'ws';
import { openForward, type Forward } from '@clippy/client/ssh';
import {
  CONFIG_FILE_NAME,
  ConfigFileSchema,
  FRAME_HEADER_SIZE,
  MAX_PAYLOAD_SIZE,
  encodeFrame,
  loadConfigFile,
} from '@clippy/protocol';
import type { Logger } from '../log.js';

/** The host name of config.json's `hosts` that means this machine. */
const LOCAL_HOST = 'local';
/**
 * Bytes sent to a page and not yet written out before the host's output is paused: the
 * protocol's own acks bound a session's output; this bounds what a slow page costs the daemon.
 */
const BRIDGE_HIGH_WATER_BYTES = 4 * 1024 * 1024;
/** A page's close code when its host cannot be reached (RFC 6455: the server met a condition). */
const CLOSE_UNREACHABLE = 1011;

/** A machine of config.json's `hosts` whose sessions the web view shows. */
export interface WebRemoteHost {
  name: string;
  destination: string;
}

/**
 * The web view's other machines (docs/web.md, "Every host"): a page opens one more WebSocket
 * per host of config.json (`/ws?session=…&host=NAME`), and the daemon joins it to that
 * machine's daemon through the SSH forwarding of its broker socket (the one `clippy --host`
 * uses, opened here when it is not there). The page then speaks to the other daemon directly,
 * message for message (a WebSocket message is a frame without its length), so opening,
 * answering and attaching work there as here. Nothing listens on a port of clippy's own.
 */
export class WebRemotes {
  private readonly opening = new Map<string, Promise<Forward>>();
  private readonly bridges = new Set<() => void>();

  constructor(
    private readonly env: Record<string, string | undefined>,
    private readonly log: Logger,
  ) {}

  /** config.json's `hosts` other than this machine, read now (it may change while we run). */
  hosts(): WebRemoteHost[] {
    let hosts: Record<string, string> = {};
    try {
      hosts =
        loadConfigFile(CONFIG_FILE_NAME, ConfigFileSchema, this.env, {
          home: homedir(),
          readFile: (path) => readFileSync(path, 'utf8'),
        })?.hosts ?? {};
    } catch {
      // A config.json that cannot be read names no host (the CLI says why when it is run).
    }
    return Object.entries(hosts)
      .filter(([, destination]) => destination !== LOCAL_HOST)
      .map(([name, destination]) => ({ name, destination }));
  }

  /** Joins a page's WebSocket to the daemon of host `name`; says why and closes when it cannot. */
  bridge(ws: WebSocket, name: string): void {
    ws.on('error', () => {});
    const host = this.hosts().find((h) => h.name === name);
    if (!host) {
      refuse(ws, `no host '${name.slice(0, 100)}' in config.json's hosts`);
      return;
    }
    // What the page sends while the link is made is kept, in order.
    const early: Buffer[] = [];
    const keep = (data: RawData) => early.push(toBuffer(data));
    ws.on('message', keep);
    let gone = false;
    ws.once('close', () => (gone = true));
    void this.reach(host)
      .then((socket) => {
        ws.off('message', keep);
        if (gone) {
          socket.destroy();
          return;
        }
        this.join(ws, socket, early);
      })
      .catch((err: Error) => {
        this.log.warn({ host: name, err: err.message }, 'web view: a host could not be reached');
        refuse(ws, `${name}: ${err.message}`);
      });
  }

  /** A socket to the host's daemon: through its forwarding, made again once when it leads nowhere. */
  private async reach(host: WebRemoteHost): Promise<Socket> {
    const env = this.env as NodeJS.ProcessEnv;
    try {
      return await connectTo((await this.forward(host, env, false)).socket);
    } catch {
      // A forwarding kept from before may point at a daemon that has gone since.
      return await connectTo((await this.forward(host, env, true)).socket);
    }
  }

  /** One SSH setup per host at a time: pages reconnecting together share it. */
  private forward(host: WebRemoteHost, env: NodeJS.ProcessEnv, fresh: boolean): Promise<Forward> {
    const key = `${host.destination}\0${fresh}`;
    let p = this.opening.get(key);
    if (!p) {
      p = openForward(host.destination, env, fresh).finally(() => this.opening.delete(key));
      this.opening.set(key, p);
    }
    return p;
  }

  /** Frames in both directions, until either side closes. */
  private join(ws: WebSocket, socket: Socket, early: Buffer[]): void {
    let held = 0;
    let paused = false;
    const frames = new FrameSplitter();
    const end = () => {
      this.bridges.delete(end);
      socket.destroy();
      ws.terminate();
    };
    this.bridges.add(end);
    const toHost = (payload: Buffer) => {
      const header = Buffer.alloc(FRAME_HEADER_SIZE);
      header.writeUInt32BE(payload.length, 0);
      socket.write(Buffer.concat([header, payload]));
    };
    for (const data of early) toHost(data);
    ws.on('message', (data) => toHost(toBuffer(data)));
    socket.on('data', (chunk: Buffer) => {
      let payloads: Buffer[];
      try {
        payloads = frames.push(chunk);
      } catch (err) {
        refuse(ws, `the other daemon sent a bad frame: ${(err as Error).message}`);
        socket.destroy();
        return;
      }
      for (const payload of payloads) {
        held += payload.length;
        ws.send(payload, { binary: true }, () => {
          held -= payload.length;
          if (paused && held < BRIDGE_HIGH_WATER_BYTES / 2) {
            paused = false;
            socket.resume();
          }
        });
      }
      if (!paused && held > BRIDGE_HIGH_WATER_BYTES) {
        paused = true;
        socket.pause();
      }
    });
    socket.on('error', () => {});
    socket.once('close', end);
    ws.once('close', end);
  }

  /** Ends every bridge (the web view stops). */
  dispose(): void {
    for (const end of [...this.bridges]) end();
  }
}

function connectTo(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Says why in the protocol's words (an error with id 0, as the daemon's last words), then closes. */
function refuse(ws: WebSocket, message: string): void {
  const frame = encodeFrame({
    type: 'response',
    id: 0,
    status: 'error',
    error: 'host_unreachable',
    message,
  });
  ws.send(frame.subarray(FRAME_HEADER_SIZE), { binary: true }, () =>
    ws.close(CLOSE_UNREACHABLE, 'host unreachable'),
  );
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** Splits a byte stream of frames (u32 BE length + payload) into payloads, undecoded. */
class FrameSplitter {
  private buffer: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const out: Buffer[] = [];
    while (this.buffer.length >= FRAME_HEADER_SIZE) {
      const length = this.buffer.readUInt32BE(0);
      if (length > MAX_PAYLOAD_SIZE) throw new Error(`a frame of ${length} bytes`);
      if (this.buffer.length < FRAME_HEADER_SIZE + length) break;
      // Copied: ws may send it after more data reuses the chunk's memory.
      out.push(Buffer.from(this.buffer.subarray(FRAME_HEADER_SIZE, FRAME_HEADER_SIZE + length)));
      this.buffer = this.buffer.subarray(FRAME_HEADER_SIZE + length);
    }
    return out;
  }
}
