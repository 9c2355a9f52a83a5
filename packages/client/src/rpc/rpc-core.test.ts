import { describe, expect, it, vi } from 'vitest';
import { MAX_REQUEST_ID } from '@clippy/protocol';
import { RpcCore, type RpcMessage } from './rpc-core.js';

function core(isPush?: (type: string) => boolean): { rpc: RpcCore; sent: RpcMessage[] } {
  const sent: RpcMessage[] = [];
  const rpc = new RpcCore((m) => sent.push(m), isPush);
  return { rpc, sent };
}

describe('RpcCore', () => {
  it('numbers requests 1, 2, 3 and answers each by its id, in any order', async () => {
    const { rpc, sent } = core();
    const a = rpc.call('list_sessions', {});
    const b = rpc.call('get_turn', { turn_id: 'x' });
    expect(sent).toEqual([
      { type: 'list_sessions', id: 1 },
      { turn_id: 'x', type: 'get_turn', id: 2 },
    ]);
    rpc.receive({ type: 'response', id: 2, status: 'ok', turn: 'B' });
    rpc.receive({ type: 'response', id: 1, status: 'ok', sessions: [] });
    expect(await a).toMatchObject({ id: 1, sessions: [] });
    expect(await b).toMatchObject({ id: 2, turn: 'B' });
    expect(rpc.pendingCount).toBe(0);
  });

  it('answers hello under id 0 with hello_ack, or with a response of id 0', async () => {
    const { rpc, sent } = core();
    const ok = rpc.call('hello', { version: 2 }, { id: 0 });
    expect(sent[0]).toEqual({ version: 2, type: 'hello', id: 0 });
    rpc.receive({ type: 'hello_ack', id: 0, status: 'ok' });
    expect(await ok).toMatchObject({ type: 'hello_ack' });
    const refused = rpc.call('hello', { version: 1 }, { id: 0 });
    rpc.receive({ type: 'response', id: 0, status: 'error', error: 'version_mismatch' });
    expect(await refused).toMatchObject({ error: 'version_mismatch' });
  });

  it('turns the answer into the result with `answer`, a throw rejecting the call', async () => {
    const { rpc } = core();
    const call = rpc.call(
      'kill',
      {},
      {
        answer: (m) => {
          if (m.status !== 'ok') throw new Error(String(m.error));
          return m.status;
        },
      },
    );
    rpc.receive({ type: 'response', id: 1, status: 'error', error: 'session_not_found' });
    await expect(call).rejects.toThrow('session_not_found');
  });

  it('times out with the caller error and drops the late answer', async () => {
    vi.useFakeTimers();
    try {
      const { rpc } = core();
      const call = rpc.call(
        'spawn',
        {},
        {
          timeoutMs: 50,
          timeoutError: (type, ms) => new Error(`${type} took over ${ms} ms`),
        },
      );
      const failed = expect(call).rejects.toThrow('spawn took over 50 ms');
      vi.advanceTimersByTime(50);
      await failed;
      rpc.receive({ type: 'response', id: 1, status: 'ok' });
      expect(rpc.pendingCount).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects a call whose send throws, and every waiting call on failAll', async () => {
    const rpc = new RpcCore(() => {
      throw new Error('socket closed');
    });
    await expect(rpc.call('list_sessions', {})).rejects.toThrow('socket closed');
    const { rpc: live } = core();
    const waits = [live.call('a', {}), live.call('b', {})];
    live.failAll(new Error('connection lost'));
    for (const w of waits) await expect(w).rejects.toThrow('connection lost');
    expect(live.pendingCount).toBe(0);
  });

  it('hands pushes to listeners of their type, then to every-type listeners; answers are no pushes', () => {
    const { rpc } = core((type) => type !== 'unknown_push');
    const seen: string[] = [];
    const off = rpc.on('turn_completed', (m) => seen.push(`turn ${String(m.session)}`));
    rpc.onAny((m) => seen.push(`any ${String(m.type)}`));
    rpc.receive({ type: 'turn_completed', id: 0, session: 's1' });
    rpc.receive({ type: 'unknown_push', id: 0 });
    rpc.receive({ type: 'response', id: 7, status: 'ok' });
    off();
    rpc.receive({ type: 'turn_completed', id: 0, session: 's2' });
    expect(seen).toEqual(['turn s1', 'any turn_completed', 'any turn_completed']);
  });

  it("wraps request ids past the u32 top to 1 (0 is the pushes')", () => {
    const { rpc, sent } = core();
    (rpc as unknown as { nextId: number }).nextId = MAX_REQUEST_ID;
    void rpc.call('a', {});
    void rpc.call('b', {});
    expect(sent.map((m) => m.id)).toEqual([MAX_REQUEST_ID, 1]);
  });
});
