import { describe, expect, it } from 'vitest';
import type { Rpc } from './rpc.js';
import { Store } from './store.js';

/**
 * The daemon's end of the page's connection, as far as the store uses it: its answers to the
 * store's requests, and the pushes a test sends (each one a message of its own).
 */
function daemon(sessions: object[]) {
  const listeners = new Map<string, (push: Record<string, unknown>) => void>();
  const rpc = {
    on(type: string, listener: (push: Record<string, unknown>) => void) {
      listeners.set(type, listener);
      return () => listeners.delete(type);
    },
    request: (type: string) =>
      Promise.resolve(
        type === 'list_sessions' ? { sessions } : type === 'list_routes' ? { routes: [] } : {},
      ),
  };
  const push = (type: string, fields: object) => listeners.get(type)!({ type, id: 0, ...fields });
  return { rpc: rpc as unknown as Rpc, push };
}

const row = {
  session: 's1',
  name: 'fresh',
  state: 'idle',
  command: 'bash',
  args: [],
  turn_count: 0,
  created_at: 1,
  cols: 80,
  rows: 24,
};

describe('Store', () => {
  it('shows a session exited only with how it ended, though its state change came first', async () => {
    const d = daemon([row]);
    const store = new Store(d.rpc);
    await store.load();
    const seen: { state: string; signal: string | null | undefined }[] = [];
    store.onChange(() => {
      const r = store.sessions.get('s1')!;
      seen.push({ state: r.state, signal: r.exit_signal });
    });
    // The daemon's order when a session ends: its state, then how it ended. Every change the
    // page is told of is seen (the view draws each): none may show an exit of no known cause.
    d.push('state_changed', { session: 's1', state: 'exited', previous: 'idle' });
    d.push('session_exited', { session: 's1', name: 'fresh', exit_code: null, signal: 'SIGHUP' });
    expect(seen.filter((s) => s.state === 'exited')).toEqual([
      { state: 'exited', signal: 'SIGHUP' },
    ]);
    expect(store.sessions.get('s1')).toMatchObject({ state: 'exited', exit_signal: 'SIGHUP' });
  });
});
