import { createHash } from 'node:crypto';

/**
 * Records of the turn history's first on-disk format (what clippy wrote before segment keys):
 * `"CLTR" | length | first 4 bytes of SHA-256(payload) | payload`, payload `meta length | meta
 * JSON | blobs`, all big-endian. Anyone can compute one — content shaped like this is what a
 * session printing "records" produces — and old histories hold them: tests write them to
 * check both.
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

/** A first-format turn record with its content and text blobs (`meta` overrides fields). */
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
      prompt: `q${seq}`,
      cl: content.length,
      tl: textBytes.length,
      ...meta,
    },
    [content, textBytes],
  );
}
