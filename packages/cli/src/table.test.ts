import { describe, expect, it } from 'vitest';
import { clockTime, formatAge, renderTable } from './table.js';
import { normalizeSignal } from './commands/kill.js';
import { stateLabel } from './commands/ls.js';

describe('renderTable', () => {
  it('aligns columns, right-aligns numbers, cuts long cells and trims line ends', () => {
    const out = renderTable(
      [{ header: 'NAME' }, { header: 'N', right: true }, { header: 'CMD', max: 8 }],
      [
        ['bash', '7', 'bash -l'],
        ['claude-2', '123', 'claude --model opus'],
      ],
    );
    expect(out).toBe(
      ['NAME        N  CMD', 'bash        7  bash -l', 'claude-2  123  claude …', ''].join('\n'),
    );
  });

  it('counts wide code points once and flattens newlines in cells', () => {
    const out = renderTable([{ header: 'A' }, { header: 'B' }], [['✻x', 'a\nb']]);
    expect(out.split('\n')[1]).toBe('✻x  a b');
  });
});

describe('formatAge', () => {
  it('picks the largest sensible unit', () => {
    expect(formatAge(5_000)).toBe('5s');
    expect(formatAge(125_000)).toBe('2m');
    expect(formatAge(3 * 3600_000)).toBe('3h');
    expect(formatAge(72 * 3600_000)).toBe('3d');
    expect(formatAge(-5)).toBe('0s');
  });
});

describe('normalizeSignal', () => {
  it('accepts names with or without SIG and numbers', () => {
    expect(normalizeSignal('term')).toBe('SIGTERM');
    expect(normalizeSignal('SIGKILL')).toBe('SIGKILL');
    expect(normalizeSignal('9')).toBe('SIGKILL');
    expect(() => normalizeSignal('SIGNOPE')).toThrow(/unknown signal/);
  });
});

describe('stateLabel', () => {
  const base = {
    session: 'ab',
    name: 'x',
    kind: 'pty' as const,
    pid: 1,
    has_turn: false,
    turn_count: 0,
    command: 'sh',
    args: [],
    cwd: '/',
    preset: 'generic',
    cols: 80,
    rows: 24,
    clients: 0,
    created_at: 0,
  };
  it('shows exited(code) or exited(SIGNAL)', () => {
    expect(stateLabel({ ...base, state: 'idle' })).toBe('idle');
    expect(stateLabel({ ...base, state: 'exited', exit_code: 3 })).toBe('exited(3)');
    expect(stateLabel({ ...base, state: 'exited', exit_code: null, exit_signal: 'SIGKILL' })).toBe(
      'exited(SIGKILL)',
    );
  });

  it('a restored session that ran when its daemon ended says it ended with the daemon', () => {
    const info = { ...base, state: 'exited' as const, exit_code: null, restored: true };
    expect(stateLabel(info)).toBe('exited(?) restored');
    expect(stateLabel({ ...info, ended_with_daemon: true })).toBe('exited(with daemon) restored');
  });
});

describe('stateLabel: unread answers and unreadable terminals', () => {
  const base = {
    session: 'ab',
    name: 'x',
    kind: 'pty' as const,
    pid: 1,
    has_turn: true,
    turn_count: 2,
    command: 'sh',
    args: [],
    cwd: '/',
    preset: 'generic',
    cols: 80,
    rows: 24,
    clients: 0,
    created_at: 0,
  };
  it('tells an idle session with an unread answer from one never asked', () => {
    expect(stateLabel({ ...base, state: 'idle', unread: 0 })).toBe('idle');
    expect(stateLabel({ ...base, state: 'idle', unread: 2 })).toBe('idle, 2 unread');
    expect(stateLabel({ ...base, state: 'exited', exit_code: 0, unread: 2 })).toBe('exited(0)');
  });
  it('says a terminal is too narrow to read rather than trusting its state', () => {
    expect(stateLabel({ ...base, state: 'busy', cols: 2 })).toBe(
      'busy, 2 cols: too narrow to read',
    );
  });
});

describe('clockTime', () => {
  it('is the local time of day, 24-hour, two digits each', () => {
    expect(clockTime(new Date(2026, 0, 2, 9, 5, 7).getTime())).toBe('09:05:07');
    expect(clockTime(new Date(2026, 0, 2, 23, 59, 0).getTime())).toBe('23:59:00');
  });
});
