import { connect } from 'node:net';
// The packer alone: the package's main entry loads its native extension, 4× slower to start.
import { Packr } from 'msgpackr/pack';

/**
 * `clippy-hook SOCKET SESSION AGENT EVENT [PAYLOAD]`: what an agent's hook runs. It hands the
 * event — its JSON from stdin (the agent's hooks; a last argument is taken instead, for a person
 * trying it by hand) — to the daemon on its socket, naming the session, with the session's
 * secret from the environment (the agent's, inherited), and exits 0 whatever happens: a failing hook
 * must never change what the agent does (a Claude Code Stop hook that fails can keep it
 * working). It prints nothing on stdout (Claude Code reads a hook's stdout as instructions);
 * a problem goes to stderr. Kept small: it runs once per event, and its start is part of the
 * time until a turn completes.
 */

/** Longest the entry waits for the daemon before it gives up (the agent waits for it). */
const GIVE_UP_MS = 10_000;
/** The protocol version it speaks (protocol's PROTOCOL_VERSION; checked by a test). */
export const HOOK_PROTOCOL_VERSION = 2;
/**
 * Where the session's secret reaches the hook: the agent's environment, inherited (the daemon's
 * agents/hook-secret.ts sets it; a copy here, as this entry imports nothing of the daemon).
 */
export const HOOK_SECRET_VAR = 'CLIPPY_HOOK_SECRET';
/** Largest stdin read (a Stop hook's input holds the whole answer). */
const MAX_STDIN_BYTES = 14 * 1024 * 1024;

const packr = new Packr({ useRecords: false, mapsAsObjects: true, variableMapSize: true });

function frame(message: object): Buffer {
  const body = packr.pack(message);
  const out = Buffer.allocUnsafe(4 + body.length);
  out.writeUInt32BE(body.length, 0);
  body.copy(out, 4);
  return out;
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_STDIN_BYTES) throw new Error('the event on stdin is too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Sends hello + the event, and resolves with the daemon's answer to the event. */
function send(socket: string, event: object): Promise<{ status?: string; message?: string }> {
  return new Promise((resolve, reject) => {
    const conn = connect(socket);
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => {
      conn.destroy();
      reject(new Error(`the daemon did not answer within ${GIVE_UP_MS} ms`));
    }, GIVE_UP_MS);
    conn.on('connect', () => {
      // Both at once: the daemon reads them in order.
      conn.write(
        Buffer.concat([
          frame({ type: 'hello', id: 0, version: HOOK_PROTOCOL_VERSION, role: 'client' }),
          frame(event),
        ]),
      );
    });
    conn.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
        const len = buf.readUInt32BE(0);
        const msg = packr.unpack(buf.subarray(4, 4 + len)) as Record<string, unknown>;
        buf = buf.subarray(4 + len);
        if (msg.type === 'hello_ack' && msg.status !== 'ok') {
          clearTimeout(timer);
          conn.destroy();
          return resolve({ status: 'error', message: String(msg.message) });
        }
        if (msg.type === 'response' && msg.id === 1) {
          clearTimeout(timer);
          conn.end();
          return resolve(msg as { status?: string; message?: string });
        }
      }
    });
    conn.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

export async function main(argv: string[]): Promise<void> {
  const [socket, session, agent, event, arg] = argv;
  if (!socket || !session || !agent || !event) {
    process.stderr.write('usage: clippy-hook SOCKET SESSION AGENT EVENT [PAYLOAD]\n');
    return;
  }
  try {
    const payload = arg ?? (await readStdin());
    const secret = process.env[HOOK_SECRET_VAR];
    const answer = await send(socket, {
      type: 'agent_event',
      id: 1,
      session,
      agent,
      event,
      payload,
      ...(secret !== undefined ? { secret } : {}),
    });
    if (answer.status !== 'ok')
      process.stderr.write(`clippy-hook: ${answer.message ?? 'the daemon refused the event'}\n`);
  } catch (err) {
    process.stderr.write(`clippy-hook: ${(err as Error).message}\n`);
  }
}
