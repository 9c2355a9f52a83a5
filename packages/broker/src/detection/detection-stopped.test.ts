import { afterEach, describe, expect, it, vi } from 'vitest';
import { BUILTIN_PRESETS } from '@clippy/turns';
import { DETECTOR_STALL_MS } from '../constants.js';
import type { DetectorPort, WorkerRequest } from './worker-detector.js';
import { SessionTurns } from './session-turns.js';

/** A detector worker that is stuck: it takes every request and handles none. */
class StuckWorker implements DetectorPort {
  readonly requests: WorkerRequest[] = [];
  postMessage(m: WorkerRequest): void {
    this.requests.push(m);
  }
}

const turns: SessionTurns[] = [];
afterEach(() => {
  for (const t of turns.splice(0)) t.dispose();
  vi.useRealTimers();
});

describe('SessionTurns when its detector is stuck', () => {
  it('stops detection with a reason the session shows and logs, and lets output go on', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] });
    const stopped: string[] = [];
    let backlogChanges = 0;
    const t = new SessionTurns({
      sessionId: 's1',
      preset: BUILTIN_PRESETS.bash!,
      limits: { depth: 4, maxTurnBytes: 1 << 20 },
      events: {
        ready: () => {},
        state: () => {},
        turn: () => {},
        error: () => {},
        stopped: (reason) => stopped.push(reason),
        backlog: () => backlogChanges++,
      },
      detectorPort: new StuckWorker(),
    });
    turns.push(t);
    expect(t.detectionStopped).toBeNull();
    const line = Buffer.from(`${'x'.repeat(79)}\n`);
    // Past DETECTOR_HOLD_BYTES (4 MiB) unread, the session holds its PTY.
    for (let i = 0; i < 100_000 && !t.overloaded; i++) t.onOutput(line);
    expect(t.overloaded).toBe(true);
    expect(backlogChanges).toBe(1);
    vi.advanceTimersByTime(DETECTOR_STALL_MS + 1);
    expect(stopped).toEqual([
      `turn detection stopped: the detector took none of this session's output for ${DETECTOR_STALL_MS} ms`,
    ]);
    expect(t.detectionStopped).toBe(stopped[0]);
    // The PTY is released and later output is no longer held for detection.
    expect(t.overloaded).toBe(false);
    expect(backlogChanges).toBe(2);
    for (let i = 0; i < 100_000; i++) t.onOutput(line);
    expect(t.overloaded).toBe(false);
  });
});
