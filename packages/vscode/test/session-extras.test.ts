import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '@clippy/protocol';
import type { DaemonLink } from '../src/daemon-link.js';
import type { SessionModel } from '../src/session-model.js';
import { SessionTree } from '../src/session-tree.js';
import { EventEmitter, type ThemeIcon } from './vscode-double.js';

// The session rows with what only some daemons say: unread turns (notifications and unread
// marks) and the agent's own tokens and cost. No daemon sends these yet, so the model is given
// sessions as such a daemon would list them; the rest of the view is tested against the real one.

function session(extra: Record<string, unknown>, state: SessionInfo['state'] = 'idle') {
  return {
    session: 's1',
    name: 'claude',
    kind: 'pty',
    pid: 42,
    has_turn: true,
    turn_count: 3,
    state,
    command: 'claude',
    args: [],
    cwd: '/home/user/project',
    preset: 'claude',
    cols: 80,
    rows: 24,
    clients: 0,
    created_at: 0,
    ...extra,
  } as SessionInfo;
}

function row(s: SessionInfo) {
  const changed = new EventEmitter<void>();
  const model = {
    status: { kind: 'connected' },
    sessions: [s],
    routesOf: () => [],
    onDidChange: changed.event,
  } as unknown as SessionModel;
  const tree = new SessionTree(model, {} as DaemonLink);
  const item = tree.getTreeItem({ kind: 'session', session: s });
  tree.dispose();
  return {
    description: item.description,
    icon: (item.iconPath as ThemeIcon).id,
    tooltip: String(item.tooltip),
  };
}

describe('a session row', () => {
  it('without the extra fields: state and turns, as today', () => {
    expect(row(session({}))).toMatchObject({
      description: 'idle · 3 turns',
      icon: 'circle-large-outline',
    });
  });

  it('with unread turns: counted, and an idle session with an unread answer has its own icon', () => {
    const r = row(session({ unread: 2 }));
    expect(r).toMatchObject({ description: 'idle · 3 turns · 2 unread', icon: 'circle-filled' });
    expect(r.tooltip).toContain('2 unread turns');
    // Busy stays busy: the unread count is in the description only.
    expect(row(session({ unread: 1 }, 'busy'))).toMatchObject({
      description: 'busy · 3 turns · 1 unread',
      icon: 'sync~spin',
    });
    expect(row(session({ unread: 0 })).icon).toBe('circle-large-outline');
  });

  it("with the agent's tokens and cost", () => {
    const r = row(session({ cost_usd: 0.4213, input_tokens: 12_345, output_tokens: 3_100 }));
    expect(r.description).toBe('idle · 3 turns · $0.42 · 12k→3.1k tokens');
    expect(r.tooltip).toContain('cost $0.4213, 12345 input tokens, 3100 output tokens');
  });

  it('ignores values that are not counts', () => {
    expect(row(session({ unread: 'many', cost_usd: -1, input_tokens: null })).description).toBe(
      'idle · 3 turns',
    );
  });
});
