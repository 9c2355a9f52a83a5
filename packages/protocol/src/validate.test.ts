import { describe, expect, it } from 'vitest';
import { validateClientMessage } from './validate.js';
import { REQUEST_SCHEMAS } from './messages.js';
import { resolveSocketPaths, NoRuntimeDirError } from './paths.js';
import { ERROR_CODES, FATAL_ERROR_CODES } from './errors.js';
import { IdSchema, isRequestId } from './schemas/common.js';

describe('validateClientMessage', () => {
  it('accepts a well-formed request and applies defaults', () => {
    const r = validateClientMessage({ type: 'spawn', id: 4, command: 'bash' });
    expect(r).toEqual({ ok: true, message: { type: 'spawn', id: 4, command: 'bash', args: [] } });
  });

  it('answers unknown_type with the id echoed', () => {
    expect(validateClientMessage({ type: 'frobnicate', id: 7 })).toMatchObject({
      ok: false,
      id: 7,
      error: 'unknown_type',
    });
  });

  it('names a missing field', () => {
    const r = validateClientMessage({ type: 'capture', id: 5 });
    expect(r).toMatchObject({ ok: false, id: 5, error: 'missing_field' });
    expect(!r.ok && r.message).toContain("'session'");
  });

  it('names a field of the wrong type', () => {
    const r = validateClientMessage({ type: 'resize', id: 2, session: 's', cols: 'wide', rows: 3 });
    expect(r).toMatchObject({ ok: false, id: 2, error: 'invalid_message' });
    expect(!r.ok && r.message).toContain("'cols'");
  });

  it('rejects messages without a type or with a bad id', () => {
    expect(validateClientMessage({ id: 1 })).toMatchObject({ ok: false, error: 'invalid_message' });
    expect(validateClientMessage({ type: 'list_sessions', id: -1 })).toMatchObject({
      ok: false,
      id: 0,
    });
    expect(validateClientMessage({ type: 'list_sessions', id: 2 ** 32 })).toMatchObject({
      ok: false,
      id: 0,
    });
  });

  it('rejects unknown keys so typos are caught', () => {
    expect(validateClientMessage({ type: 'list_sessions', id: 1, verbose: true })).toMatchObject({
      ok: false,
      error: 'invalid_message',
    });
  });

  it('takes input and ack exactly as their schemas do (the hand-checked fast path)', () => {
    const data = new Uint8Array([120]);
    const cases: Record<string, unknown>[] = [
      { type: 'input', id: 0, session: 's1', data },
      { type: 'input', id: 3, session: 'name', data: Buffer.from('x') },
      { type: 'ack', id: 0, session: 's1', bytes: 65536 },
      { type: 'ack', id: 0, session: 's1', bytes: 0 },
      // Refused by both: the answers must come from zod, naming the problem.
      { type: 'input', id: 0, session: '', data },
      { type: 'input', id: 0, session: 's1', data: 'x' },
      { type: 'input', id: 0, session: 's1', data, extra: 1 },
      { type: 'input', id: 0, data },
      { type: 'ack', id: 0, session: 's1', bytes: -1 },
      { type: 'ack', id: 0, session: 's1', bytes: 1.5 },
      { type: 'ack', id: 0, session: 's1', bytes: Number.NaN },
      { type: 'ack', id: 0, session: 's1', bytes: '10' },
      { type: 'ack', id: 0, session: 7, bytes: 10 },
    ];
    for (const m of cases) {
      const schema = REQUEST_SCHEMAS[m.type as 'input' | 'ack'];
      const zod = schema.safeParse(m);
      const r = validateClientMessage(m);
      expect(r.ok, JSON.stringify(m)).toBe(zod.success);
      if (r.ok) {
        expect(r.message).toEqual(zod.data);
        expect(r.message).not.toBe(m);
      } else {
        expect(r.message).toMatch(new RegExp(`^${m.type}: `));
      }
    }
  });

  it('keeps clippy’s message names', () => {
    for (const t of [
      'hello',
      'register',
      'deregister',
      'turn_completed',
      'capture',
      'capture_by_id',
      'paste',
      'deliver',
      'get_turn',
      'list_turns',
      'list_sessions',
    ]) {
      expect(Object.keys(REQUEST_SCHEMAS)).toContain(t);
    }
    for (const c of [
      'session_not_found',
      'version_mismatch',
      'unknown_type',
      'payload_too_large',
      'no_turn',
      'buffer_empty',
    ]) {
      expect(Object.keys(ERROR_CODES)).toContain(c);
    }
    expect(FATAL_ERROR_CODES.has('unknown_type')).toBe(false);
  });
});

describe('resolveSocketPaths', () => {
  it('uses XDG_RUNTIME_DIR/clippy/broker.sock', () => {
    expect(resolveSocketPaths({ XDG_RUNTIME_DIR: '/run/user/1000/' })).toEqual({
      dir: '/run/user/1000/clippy',
      socket: '/run/user/1000/clippy/broker.sock',
      wsSocket: '/run/user/1000/clippy/ws.sock',
    });
  });
  it('refuses without XDG_RUNTIME_DIR unless a path is explicit', () => {
    expect(() => resolveSocketPaths({})).toThrowError(NoRuntimeDirError);
    expect(resolveSocketPaths({}, '/tmp/x/b.sock').socket).toBe('/tmp/x/b.sock');
    expect(resolveSocketPaths({ CLIPPY_SOCKET: '/tmp/y/c.sock' })).toMatchObject({
      wsSocket: '/tmp/y/c.ws.sock',
    });
  });
});

describe('isRequestId', () => {
  it('accepts exactly what IdSchema accepts', () => {
    for (const value of [0, 1, 0xffff_ffff, 0x1_0000_0000, -1, 1.5, NaN, '3', null, undefined]) {
      expect(isRequestId(value), String(value)).toBe(IdSchema.safeParse(value).success);
    }
  });
});
