import { afterEach, describe, expect, it, vi } from 'vitest';
import { tmpdir } from 'node:os';
import { DEFAULT_FLOW_LIMITS } from '../flow-control.js';
import { spawnPty } from '@clippy/system/pty';
import { sessionTarget } from '../relay/inject-into-session.js';
import { childEnv } from '../test-support/fixtures.js';
import type { SessionTurns } from '../detection/session-turns.js';
import { Session } from './session.js';

const sessions: Session[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) {
    s.killGroupNow();
    s.dispose();
  }
});

/**
 * A session of `sh -c script` in a real PTY, built as the broker builds one, without turns
 * (or with `turns`, what the session gives its turn bookkeeping).
 */
function sessionWithoutDetection(script: string, turns: SessionTurns | null = null): Session {
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
    turns: () => turns,
  });
  sessions.push(session);
  return session;
}

/** How long the daemon is kept from running after a write, in the input timing test. */
const PREEMPTED_MS = 30;

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

describe('input written to the program', () => {
  it('is timed before its write: a turn never seems to start after the program took it', () => {
    const given: number[] = [];
    const turns = {
      onInput: (_data: Uint8Array, at: number) => given.push(at),
      dispose: () => {},
      end: () => {},
    } as unknown as SessionTurns;
    const session = sessionWithoutDetection('cat > /dev/null', turns);
    // A loaded machine: the daemon is switched out right after the write, while the program
    // takes the input and records when it did (Codex's rollout, seen 52 ms before the turn).
    const pty = (session as unknown as { pty: { write: (d: Uint8Array) => void } }).pty;
    const write = pty.write.bind(pty);
    let written = 0;
    pty.write = (d) => {
      write(d);
      written = Date.now();
      while (Date.now() - written < PREEMPTED_MS) {
        // switched out
      }
    };
    session.input('question\r');
    expect(given).toHaveLength(1);
    expect(given[0]!).toBeLessThanOrEqual(written);
  });
});
