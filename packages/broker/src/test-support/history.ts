import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';

// Pieces shared by the turn store's tests: turns with binary content, and records of the
// history's first on-disk format (what clippy wrote before segment keys), which a hostile
// session can shape exactly (its checksum is no secret) and which old histories hold.

/** A logger whose lines go to `lines`. */
export function captureLogger(lines: string[]) {
  return pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    }),
  );
}

/** Every byte value, then the turn's number: content is binary, not text. */
export function turnContent(n: number, size = 300): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 7 + n) & 0xff;
  return b;
}

export function testTurn(
  session: string,
  seq: number,
  text: string,
  size = 300,
  timestamp = Date.now(),
) {
  return {
    session,
    seq,
    timestamp,
    interrupted: false,
    truncated: false,
    duration_ms: 5,
    prompt: `q${seq}`,
    content: turnContent(seq, size),
    text,
  };
}

export function testSessionMeta(id: string) {
  return {
    id,
    name: `name-${id}`,
    command: 'bash',
    args: [],
    cwd: '/',
    preset: 'generic',
    created_at: Date.now(),
    cols: 80,
    rows: 24,
  };
}

/**
 * A record of format 1: `"CLTR" | length | first 4 bytes of SHA-256(payload) | payload`,
 * payload `meta length | meta JSON | blobs`. Anyone can compute it: content shaped like this
 * is what a session printing "records" produces.
 */
export function legacyRecord(meta: object, blobs: Uint8Array[] = []): Buffer {
  const json = Buffer.from(JSON.stringify(meta));
  const payload = Buffer.concat([Buffer.alloc(4), json, ...blobs]);
  payload.writeUInt32BE(json.length, 0);
  const header = Buffer.alloc(12);
  header.writeUInt32BE(0x434c5452, 0);
  header.writeUInt32BE(payload.length, 4);
  header.writeUInt32BE(createHash('sha256').update(payload).digest().readUInt32BE(0), 8);
  return Buffer.concat([header, payload]);
}

/** A format 1 turn record with its content and text blobs. */
export function legacyTurnRecord(
  session: string,
  seq: number,
  content: Buffer,
  text: string,
  meta: Record<string, unknown> = {},
): Buffer {
  const textBytes = Buffer.from(text);
  return legacyRecord(
    {
      k: 'turn',
      session,
      seq,
      timestamp: Date.now(),
      interrupted: false,
      truncated: false,
      duration_ms: 1,
      prompt: 'p',
      cl: content.length,
      tl: textBytes.length,
      ...meta,
    },
    [content, textBytes],
  );
}
