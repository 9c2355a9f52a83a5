import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REFUSAL_REPORT_INTERVAL_MS, WebRefusals, type RefusalSummary } from './refusals.js';

describe('WebRefusals', () => {
  let now = 1_000_000;
  const reports: { summary: RefusalSummary; first: boolean }[] = [];
  let refusals: WebRefusals;

  beforeEach(() => {
    vi.useFakeTimers();
    reports.length = 0;
    refusals = new WebRefusals(
      (summary, first) => reports.push({ summary, first }),
      () => now,
    );
  });
  afterEach(() => {
    refusals.dispose();
    vi.useRealTimers();
  });

  it('logs the first refusal at once and the rest as one count per interval, all counted', () => {
    for (let i = 0; i < 5_000; i++)
      refusals.refused('wrong web view token', `127.0.0.${1 + (i % 3)}`, true);
    refusals.refused('foreign origin', '127.0.0.9', false);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toEqual({
      first: true,
      summary: {
        refused: 1,
        reasons: { 'wrong web view token': 1 },
        wrong_credentials: 1,
        sources: 1,
      },
    });
    vi.advanceTimersByTime(REFUSAL_REPORT_INTERVAL_MS);
    expect(reports).toHaveLength(2);
    expect(reports[1]).toEqual({
      first: false,
      summary: {
        refused: 5_000,
        reasons: { 'wrong web view token': 4_999, 'foreign origin': 1 },
        wrong_credentials: 4_999,
        sources: 4,
      },
    });
    // A quiet interval ends the reports; the next refusal is logged at once again.
    vi.advanceTimersByTime(REFUSAL_REPORT_INTERVAL_MS * 3);
    expect(reports).toHaveLength(2);
    refusals.refused('wrong web view token', '127.0.0.1', true);
    expect(reports.at(-1)!.first).toBe(true);
  });

  it('wrong credentials from one source wait longer each time, up to a bound; others do not', () => {
    const waits = Array.from({ length: 12 }, () =>
      refusals.refused('wrong web view token', '127.0.0.1', true),
    );
    expect(waits).toEqual([0, 0, 0, 250, 500, 1000, 2000, 4000, 8000, 8000, 8000, 8000]);
    // Another source, and refusals that showed no credential, are answered at once.
    expect(refusals.refused('wrong web view token', '127.0.0.2', true)).toBe(0);
    expect(refusals.refused('the token is required', '127.0.0.1', false)).toBe(0);
    // A minute without a wrong one: forgotten.
    now += 61_000;
    expect(refusals.refused('wrong web view token', '127.0.0.1', true)).toBe(0);
  });

  it('past the sources it remembers, new ones share one count: many addresses wait as one', () => {
    for (let i = 0; i < 1024; i++) refusals.refused('wrong', `10.0.${i >> 8}.${i & 255}`, true);
    const waits = Array.from({ length: 6 }, (_, i) =>
      refusals.refused('wrong', `127.1.0.${i}`, true),
    );
    expect(waits).toEqual([0, 0, 0, 250, 500, 1000]);
  });
});
