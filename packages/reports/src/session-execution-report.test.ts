import { describe, expect, it } from 'vitest';
import { renderExecutionReport } from './execution-report.js';
import { sessionExecutionReport } from './session-execution-report.js';

const session = {
  id: 'k3f9a2',
  name: 'claude',
  command: ['claude'],
  cwd: '/home/u/proj',
  preset: 'claude',
  createdAt: new Date('2026-11-22T10:00:00.000Z'),
  exitedAt: new Date('2026-11-22T10:05:00.000Z'),
  exitCode: 0,
  state: 'exited',
};

describe('sessionExecutionReport', () => {
  it('makes one action per turn, oldest first, interrupted turns as failures', () => {
    const input = sessionExecutionReport(
      {
        session,
        turns: [
          {
            turn_id: 'k3f9a2:2',
            timestamp: '2026-11-22T10:03:00.000Z',
            duration_ms: 1500,
            byte_length: 40,
            interrupted: true,
            truncated: false,
            prompt: 'second',
            text: 'partial',
          },
          {
            turn_id: 'k3f9a2:1',
            timestamp: '2026-11-22T10:01:00.000Z',
            duration_ms: 2000,
            byte_length: 80,
            interrupted: false,
            truncated: false,
            prompt: 'first',
            text: 'the answer',
          },
        ],
      },
      { os: 'linux' },
    );
    expect(input.actions.map((a) => [a.name, a.status])).toEqual([
      ['turn k3f9a2:1', 'SUCCESS'],
      ['turn k3f9a2:2', 'FAILURE'],
    ]);
    const md = renderExecutionReport(input);
    expect(md).toContain('- **Status:** PARTIAL_SUCCESS');
    expect(md).toContain('- **Duration:** 300.00 seconds');
    expect(md).toContain('- **Working Directory:** /home/u/proj');
    expect(md).toContain('### Action 1: turn k3f9a2:1');
    expect(md).toContain('Answered "first" in 2.00 seconds (80 bytes).');
    expect(md).toContain('```\nthe answer\n```');
    expect(md).toContain('Interrupted (Ctrl-C)');
  });

  it('ends a live session’s report at `now`', () => {
    const now = new Date('2026-11-22T10:00:10.000Z');
    const input = sessionExecutionReport(
      { session: { ...session, exitedAt: null, state: 'idle' }, turns: [] },
      { now },
    );
    expect(input.endTime).toEqual(now);
    expect(input.actions).toEqual([]);
  });
});
