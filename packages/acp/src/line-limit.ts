import { DEFAULT_MAX_MESSAGE_BYTES, RequestError, type JsonRpcId } from '@agentclientprotocol/sdk';

/**
 * The longest message (one line of JSON) `clippy acp` reads: the SDK's own bound. A prompt this
 * long is far past what the daemon takes anyway (its 16 MiB frame); the bound keeps a longer one
 * from being held in memory at all.
 */
export const MAX_MESSAGE_BYTES = DEFAULT_MAX_MESSAGE_BYTES;

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Longest `id` string looked for in a message too long to read (JSON-RPC IDs are short). */
const MAX_ID_BYTES = 256;

/**
 * Lets the editor's messages through line by line, as the SDK's stream reads them, except one
 * longer than `limit`: its bytes are dropped as they come (never held), and `refuse` is given
 * the JSON-RPC error answering it — with its request's `id` when the line named one at its top
 * level, so the editor's pending request ends — and the lines after it are read as usual. (The
 * SDK's own reader ends the whole connection on such a line: the adapter then exited without a
 * word.)
 */
export function limitLines(
  limit: number,
  refuse: (response: object) => void,
): TransformStream<Uint8Array, Uint8Array> {
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  /** The line being dropped: its length so far and what its top level said of its id. */
  let dropping: { bytes: number; id: TopLevelId } | null = null;

  const refuseDropped = () => {
    const { bytes, id } = dropping!;
    dropping = null;
    const error = RequestError.invalidRequest(
      undefined,
      `the message is ${bytes} bytes or more, over the ${limit} bytes clippy acp reads; it was dropped unread`,
    );
    refuse({ jsonrpc: '2.0', id: id.value ?? null, error: error.toErrorResponse() });
  };

  const drop = (bytes: Uint8Array) => {
    dropping!.bytes += bytes.length;
    dropping!.id.push(bytes);
  };

  return new TransformStream({
    transform(chunk, controller) {
      let start = 0;
      while (start < chunk.length) {
        const nl = chunk.indexOf(NEWLINE, start);
        const end = nl < 0 ? chunk.length : nl;
        const piece = chunk.subarray(start, end);
        if (dropping) drop(piece);
        else if (heldBytes + piece.length > limit) {
          dropping = { bytes: 0, id: new TopLevelId() };
          for (const h of held) drop(h);
          held = [];
          heldBytes = 0;
          drop(piece);
        } else if (nl >= 0) {
          // A whole line: handed on in one piece (the SDK splits it without copying).
          const line = held.length === 0 ? chunk.subarray(start, nl + 1) : concat(held, piece);
          held = [];
          heldBytes = 0;
          controller.enqueue(line);
        } else {
          held.push(piece);
          heldBytes += piece.length;
        }
        if (nl < 0) break;
        if (dropping) refuseDropped();
        start = nl + 1;
      }
    },
    flush(controller) {
      if (dropping) refuseDropped();
      else if (heldBytes > 0) controller.enqueue(concat(held, new Uint8Array(0)));
    },
  });
}

function concat(held: Uint8Array[], last: Uint8Array): Uint8Array {
  const out = Buffer.allocUnsafe(held.reduce((n, h) => n + h.length, 0) + last.length + 1);
  let at = 0;
  for (const h of [...held, last]) {
    out.set(h, at);
    at += h.length;
  }
  out[at] = NEWLINE;
  return out;
}

/**
 * Finds a JSON-RPC message's `id` in its bytes as they stream by, without holding them: only the
 * top level of the object is looked at (nested values are skipped by their brackets and
 * strings), so the `id` is found wherever it stands. Undefined while none was seen, or when the
 * bytes are not such an object.
 */
class TopLevelId {
  value: JsonRpcId | undefined;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The current top-level string's bytes (null: too long to be a key or an id, or nested). */
  private text: number[] | null = null;
  private key: string | null = null;
  private afterColon = false;
  private scalar = '';
  private done = false;

  push(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length && !this.done; i++) this.byte(bytes[i]!);
  }

  private byte(b: number): void {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (b === BACKSLASH) this.escaped = true;
      else if (b === QUOTE) return this.endString();
      if (this.text && this.text.push(b) > MAX_ID_BYTES) this.text = null;
      return;
    }
    switch (b) {
      case QUOTE:
        this.inString = true;
        this.text = this.depth === 1 ? [] : null;
        return;
      case 0x7b: // {
      case 0x5b: // [
        if (this.depth === 1 && this.afterColon && this.key === 'id') this.done = true;
        this.depth++;
        return;
      case 0x7d: // }
      case 0x5d: // ]
        if (this.depth === 1) this.endValue();
        this.depth--;
        if (this.depth <= 0) this.done = true;
        return;
      case 0x3a: // :
        if (this.depth === 1) this.afterColon = true;
        return;
      case 0x2c: // ,
        if (this.depth === 1) this.endValue();
        return;
      default:
        if (this.depth === 0 && b > 0x20)
          this.done = true; // not an object
        else if (this.depth === 1 && this.afterColon && this.key === 'id' && b > 0x20)
          this.scalar += String.fromCharCode(b);
    }
  }

  private endString(): void {
    this.inString = false;
    const raw = this.text;
    this.text = null;
    if (this.depth !== 1 || !raw) return;
    let s: string;
    try {
      s = JSON.parse(`"${Buffer.from(raw).toString('utf8')}"`) as string;
    } catch {
      return;
    }
    if (!this.afterColon) this.key = s;
    else if (this.key === 'id') this.found(s);
  }

  private endValue(): void {
    if (this.key === 'id' && this.scalar !== '') {
      const n = this.scalar === 'null' ? null : Number(this.scalar);
      if (n === null || Number.isFinite(n)) this.found(n);
    }
    this.key = null;
    this.afterColon = false;
    this.scalar = '';
  }

  private found(id: JsonRpcId): void {
    this.value = id;
    this.done = true;
  }
}
