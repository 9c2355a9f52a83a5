import type { z } from 'zod';
import type { ErrorCode } from './errors.js';
import { isRequestId } from './schemas/common.js';
import { REQUEST_SCHEMAS, isRequestType, type Request, type RequestType } from './messages.js';

export type ValidationResult =
  { ok: true; message: Request } | { ok: false; id: number; error: ErrorCode; message: string };

/**
 * Checks a decoded payload against the client message set. Returns the parsed request, or the
 * error code to answer with (`invalid_message`, `unknown_type`, `missing_field`) and the id to
 * echo (0 when the payload has no usable id).
 */
export function validateClientMessage(value: unknown): ValidationResult {
  const obj = (value ?? {}) as Record<string, unknown>;
  const rawId = obj.id;
  const id = isRequestId(rawId) ? rawId : 0;
  if (typeof obj.type !== 'string') {
    return { ok: false, id, error: 'invalid_message', message: 'message has no string `type`' };
  }
  if (typeof rawId !== 'number' || id !== rawId) {
    return {
      ok: false,
      id: 0,
      error: 'invalid_message',
      message: '`id` must be an unsigned 32-bit integer',
    };
  }
  if (!isRequestType(obj.type)) {
    return {
      ok: false,
      id,
      error: 'unknown_type',
      message: `unknown message type '${obj.type.slice(0, 64)}'`,
    };
  }
  const hot = hotMessage(obj);
  if (hot) return { ok: true, message: hot };
  const schema = REQUEST_SCHEMAS[obj.type as RequestType] as z.ZodType;
  // Plain parse first: zod's compiled fast path is off with `reportInput` (measured 5x slower,
  // and every ack of a flood comes through here); the input is only needed to explain a failure.
  const fast = schema.safeParse(value);
  if (fast.success) return { ok: true, message: fast.data as Request };
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return { ok: true, message: parsed.data as Request };
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join('.') || '(message)';
  const missing =
    issue.code === 'invalid_type' && (issue as { input?: unknown }).input === undefined;
  return {
    ok: false,
    id,
    error: missing ? 'missing_field' : 'invalid_message',
    message: missing
      ? `${obj.type}: missing field '${field}'`
      : `${obj.type}: field '${field}': ${issue.message}`,
  };
}

/** Own keys of a decoded message, counted without allocating. */
function keyCount(obj: Record<string, unknown>): number {
  let n = 0;
  for (const key in obj) if (Object.hasOwn(obj, key)) n++;
  return n;
}

/**
 * `input` (one per keystroke) and `ack` (one per 64 KiB of a flood) checked by hand: zod's
 * parse was the largest single cost of a keystroke in the broker (measured: 7% of its main
 * thread's CPU while echoing keys). Only what their schemas accept is taken here (same keys,
 * same checks, a fresh object as zod returns); anything else goes to zod, which explains it.
 */
function hotMessage(obj: Record<string, unknown>): Request | null {
  const session = obj.session;
  if (typeof session !== 'string' || session.length === 0 || keyCount(obj) !== 4) return null;
  if (obj.type === 'input' && obj.data instanceof Uint8Array) {
    return { type: 'input', id: obj.id as number, session, data: obj.data };
  }
  const bytes = obj.bytes;
  if (obj.type === 'ack' && Number.isSafeInteger(bytes) && (bytes as number) >= 0) {
    return { type: 'ack', id: obj.id as number, session, bytes: bytes as number };
  }
  return null;
}
