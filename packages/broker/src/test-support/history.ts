import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { pino } from 'pino';

// Pieces shared by the turn store's tests: turns with binary content, sessions, and a history
// written by clippy before segment keys (format 1). Records of that format are in
// @clippy/testkit/history-records (the CLI's end-to-end tests write them too).

/**
 * A segment written by the store of format 1 (the code at e00274f): sessions lgcy01 "claude"
 * (turns 1–3 of 300, 1000 and 0 bytes, an exit with code 0 and screen "final screen\r\n$ "),
 * lgcy02 "shell" (turn 1, 50 bytes) and lgcy03 (turn 1, 20 bytes, then removed). Turn N's
 * content is turnContent(N, size), its text `answer N of ID about the migration`, its prompt
 * `question N`.
 */
export const LEGACY_SEGMENT = join(
  dirname(fileURLToPath(import.meta.url)),
  'fixtures',
  'history-v1',
  '000001.seg',
);

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
