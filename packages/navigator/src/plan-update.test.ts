import { describe, expect, it } from 'vitest';
import { applyPlanUpdate, mergePatch } from './plan-update.js';

const plan = { budget: 20000, verbosity: [{ pattern: 'src/**', level: 2 as const }] };

describe('plan updates', () => {
  it('merges a partial plan (arrays replace, null removes) and reports RFC 6902 operations', () => {
    const r = applyPlanUpdate(plan, { focus: { paths: [{ pattern: 'src/auth/**', weight: 5 }] } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.plan).toEqual({ ...plan, focus: { paths: [{ pattern: 'src/auth/**', weight: 5 }] } });
    expect(r.operations).toEqual([
      { op: 'add', path: '/focus', value: { paths: [{ pattern: 'src/auth/**', weight: 5 }] } },
    ]);
    const removed = applyPlanUpdate(r.plan, { focus: null });
    expect(removed.ok && removed.plan).toEqual(plan);
    expect(mergePatch({ a: { b: 1, c: 2 } }, { a: { c: null, d: 3 } })).toEqual({
      a: { b: 1, d: 3 },
    });
  });

  it('applies RFC 6902 operations', () => {
    const r = applyPlanUpdate(plan, [
      { op: 'add', path: '/verbosity/-', value: { pattern: 'src/auth/**', level: 4 } },
    ]);
    expect(r.ok && r.plan.verbosity).toEqual([
      { pattern: 'src/**', level: 2 },
      { pattern: 'src/auth/**', level: 4 },
    ]);
  });

  it('rejects invalid changes with the reason and leaves the plan alone', () => {
    const before = structuredClone(plan);
    const cases: [unknown, RegExp][] = [
      [
        { verbosity: [{ pattern: 'x', level: 9 }] },
        /verbosity\[0\]\.level: level must be 0, 1, 2, 3 or 4/,
      ],
      [
        { verbosity: [{ pattern: 'x', level: 2, sections: [] }] },
        /exactly one of "level", "sections" or "max_level"/,
      ],
      [{ colour: 'red' }, /unknown key "colour"/],
      [[{ op: 'remove', path: '/focus' }], /invalid JSON Patch/],
      [[{ op: 'jump', path: '/x' }], /invalid JSON Patch/],
      [{ budget: 5 }, /budget is fixed by the user at 20000 tokens/],
      ['everything', /updates must be an object/],
    ];
    for (const [updates, error] of cases) {
      const r = applyPlanUpdate(plan, updates);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatch(error);
    }
    expect(plan).toEqual(before);
  });
});
