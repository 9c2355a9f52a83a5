import { afterEach, describe, expect, it, vi } from 'vitest';
import { tmpdir } from 'node:os';
import { DEFAULT_FLOW_LIMITS } from '../flow-control.js';
import { spawnPty } from '@clippy/system/pty';
import { sessionTarget } from '../relay/inject-into-session.js';
import { childEnv } from '../test-support/fixtures.js';
import { Session } from './session.js';

const sessions: Session[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) {
    s.killGroupNow();
    s.dispose();
  }
});

/** A session of `sh -c script` in a real PTY, built as the broker builds one, without turns. */
function sessionWithoutDetection(script: string): Session {
  const pty = spawnPty({
    file: '/bin/sh',
    args: ['-c', script],
    cwd: tmpdir(),
    env: childEnv() as Record<string, string>,
    cols: 80,
    rows: 24,
  });
  const session = new Session({
    id: 'act001',
    name: 'plain',
    kind: 'pty',
    command: 'sh',
    args: ['-c', script],
    cwd: tmpdir(),
    cols: 80,
    rows: 24,
    preset: 'generic',
    pattern: undefined,
    pty,
    pid: pty.pid,
    flowLimits: DEFAULT_FLOW_LIMITS,
    killGraceMs: 1_000,
    observer: { stateChanged: () => {}, exited: () => {}, slowConsumer: () => {} },
    turns: () => null,
  });
  sessions.push(session);
  return session;
}

/** Longer than any test may run: a wait that ends did so on an event, not on this timeout. */
const NEVER_MS = 3_600_000;

describe('a session without a turn detector', () => {
  it('wakes a wait for output when output comes, not when the wait times out', async () => {
    const session = sessionWithoutDetection('read line; echo "got $line"; sleep 30');
    const target = sessionTarget(session);
    const before = target.outputBytes();
    const waited = target.waitOutput(before, NEVER_MS);
    session.input('x\r');
    expect(await waited).toBe(true);
    expect(session.outputBytes).toBeGreaterThan(before);
  });

  it('wakes a wait for a state when the state changes', async () => {
    const session = sessionWithoutDetection('sleep 30');
    const idle = sessionTarget(session).waitState(['idle'], NEVER_MS);
    session.setState('idle');
    expect(await idle).toBe(true);
  });
});

describe('input an injection writes', () => {
  it('is waited for on the PTY taking it, not by polling a timer', async () => {
    // The program reads nothing for a moment, so the paste waits in the PTY's queue; then it
    // reads all of it. Timers are frozen meanwhile: a wait that polled them would never end.
    const session = sessionWithoutDetection('stty raw -echo; sleep 1; cat > /dev/null');
    const target = sessionTarget(session);
    const paste = Buffer.alloc(256 * 1024, 0x61);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    try {
      session.input(paste);
      expect(session.pendingInputBytes).toBeGreaterThan(0);
      await target.drain();
    } finally {
      vi.useRealTimers();
    }
    expect(session.pendingInputBytes).toBe(0);
  });
});
