import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '@clippy/testkit/random';
import {
  countTokens,
  indexRepository,
  renderMap,
  type FlightPlan,
  type Level,
  type RepoIndex,
} from '../src/index.js';
import { makeFixtureRepo, removeDir } from './fixture.js';

let repo: string;
let index: RepoIndex;
let fullSize: number;
beforeAll(async () => {
  repo = makeFixtureRepo();
  index = await indexRepository({ root: repo, cache: false });
  fullSize = (
    await renderMap(index, { budget: 1_000_000, verbosity: [{ pattern: '**', level: 4 }] })
  ).totalTokens;
});
afterAll(() => removeDir(repo));

const PATTERNS = [
  'src/**',
  'src/auth/**',
  '**/*.md',
  'py/**',
  '**/*.ts',
  'c/*',
  'docs/**',
  '*',
  'lib',
  'go/**',
];

function randomPlan(next: () => number): FlightPlan {
  const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)]!;
  const plan: FlightPlan = { budget: 50 + Math.floor(next() * 2500) };
  if (next() < 0.5) plan.focus = { paths: [{ pattern: pick(PATTERNS), weight: 1 + next() * 9 }] };
  if (next() < 0.7) {
    plan.verbosity = [];
    const n = Math.floor(next() * 4);
    for (let i = 0; i < n; i++) {
      if (next() < 0.2)
        plan.verbosity.push({
          pattern: pick(PATTERNS),
          sections: [
            { pattern: pick(['Install*', '*', 'Session*']), level: pick([0, 2, 3, 4] as Level[]) },
          ],
        });
      else
        plan.verbosity.push({ pattern: pick(PATTERNS), level: pick([0, 1, 2, 3, 4] as Level[]) });
    }
  }
  return plan;
}

describe('budget', () => {
  it('never exceeds the budget silently over many random plans, and counts exactly', async () => {
    const next = seededRandom(42);
    for (let i = 0; i < 150; i++) {
      const plan = randomPlan(next);
      const format = (['md', 'json', 'xml'] as const)[i % 3];
      const r = await renderMap(index, { plan, format });
      expect(r.totalTokens, JSON.stringify(plan)).toBe(countTokens(r.output));
      if (!r.overBudget) expect(r.totalTokens).toBeLessThanOrEqual(plan.budget!);
      else {
        // Only pinned rules can push a map over budget, and then it says so.
        expect(plan.verbosity?.length ?? 0).toBeGreaterThan(0);
        expect(r.output).toMatch(/OVER BUDGET|over_budget="true"|"overBudget":true/);
      }
    }
  });

  it('lands between 90% and 100% of the budget with no plan', async () => {
    const budgets = [150, 300, 500, 800, 1200, 1600, Math.floor(fullSize * 0.95)];
    for (const [i, budget] of budgets.entries()) {
      const r = await renderMap(index, { budget, focus: i % 2 ? ['src/auth'] : [] });
      expect(r.overBudget).toBe(false);
      expect(r.totalTokens, `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(r.totalTokens, `budget ${budget}`).toBeGreaterThanOrEqual(Math.floor(budget * 0.9));
    }
    // A budget larger than the whole repository maps everything in full.
    const all = await renderMap(index, { budget: fullSize * 3 });
    expect(all.files.every((f) => f.level === 4 || f.level === 1)).toBe(true);
  });

  it('refuses a budget of 0 or below', async () => {
    await expect(renderMap(index, { budget: 0 })).rejects.toThrow(/budget must be a number > 0/);
    await expect(renderMap(index, { budget: -10 })).rejects.toThrow(/budget/);
  });

  it('reports a plan over budget with its top contributors', async () => {
    const r = await renderMap(index, {
      plan: { budget: 200, verbosity: [{ pattern: '**', level: 4 }] },
    });
    expect(r.overBudget).toBe(true);
    expect(r.topContributors[0]!.path).toBe('src/auth/session.ts');
    expect(r.topContributors[0]!.tokens).toBeGreaterThanOrEqual(r.topContributors[1]!.tokens);
  });

  it('fits files under a max_level rule by rank but never above that level', async () => {
    const r = await renderMap(index, {
      budget: 100_000,
      plan: {
        verbosity: [
          { pattern: '**', max_level: 2 },
          { pattern: 'src/auth/session.ts', level: 4 },
        ],
      },
    });
    const levelOf = (p: string) => r.files.find((f) => f.path === p)!.level;
    expect(levelOf('src/auth/session.ts')).toBe(4);
    // A budget that would show everything in full: the rest stops at structure.
    expect(r.files.filter((f) => f.level > 2).map((f) => f.path)).toEqual(['src/auth/session.ts']);
    expect(r.files.filter((f) => f.level === 2).length).toBeGreaterThan(3);
  });

  it('applies section rules inside files and leaves the rest at the file level', async () => {
    const r = await renderMap(index, {
      budget: 100_000,
      plan: {
        verbosity: [
          { pattern: '**', level: 0 },
          { pattern: 'docs/guide.md', level: 2 },
          { pattern: 'docs/**', sections: [{ pattern: 'Install', level: 4 }] },
        ],
      },
    });
    expect(r.output).toContain('./install.sh');
    expect(r.output).toContain('## Usage');
    expect(r.output).not.toContain('Open the shop and buy things.');
    expect(r.files.filter((f) => f.level > 0).map((f) => f.path)).toEqual(['docs/guide.md']);
  });

  it('applies custom queries and reports an invalid one without losing the map', async () => {
    const r = await renderMap(index, {
      budget: 100_000,
      plan: {
        verbosity: [
          { pattern: '**', level: 0 },
          { pattern: 'src/auth/tokens.ts', level: 2 },
          { pattern: 'py/models.py', level: 2 },
        ],
        custom_queries: [
          { pattern: 'src/auth/tokens.ts', query: '(template_string) @tpl' },
          { pattern: 'py/**', query: '(this_is_not_a_node) @x' },
        ],
      },
    });
    expect(r.output).toContain('return `${SECRET_PREFIX}${userId}`;');
    expect(r.output).toContain('## py/models.py (L2)');
    expect(r.warnings.join('\n')).toMatch(
      /custom_queries\[1\]: invalid tree-sitter query for python/,
    );
  });
});

describe('ranking', () => {
  it('puts the focused module first (after README and manifests)', async () => {
    const r = await renderMap(index, { budget: 5000, focus: ['src/auth'] });
    const ordinary = r.files.filter((f) => !['README.md', 'package.json'].includes(f.path));
    expect(
      ordinary
        .slice(0, 2)
        .map((f) => f.path)
        .sort(),
    ).toEqual(['src/auth/session.ts', 'src/auth/tokens.ts']);
    expect(r.files[0]!.path).toBe('README.md');
    const py = await renderMap(index, { budget: 5000, focus: ['Product'] });
    expect(py.files.find((f) => !['README.md', 'package.json'].includes(f.path))!.path).toBe(
      'py/models.py',
    );
    const plan = await renderMap(index, {
      plan: { budget: 5000, focus: { paths: [{ pattern: 'go/**', weight: 10 }] } },
    });
    expect(plan.files[2]!.path).toBe('go/server.go');
  });

  it('gives focused files more detail than the rest', async () => {
    const r = await renderMap(index, { budget: 700, focus: ['src/auth'] });
    const lvl = (p: string) => r.files.find((f) => f.path === p)!.level;
    expect(lvl('src/auth/session.ts')).toBeGreaterThanOrEqual(3);
    expect(lvl('src/auth/session.ts')).toBeGreaterThanOrEqual(lvl('cs/Program.cs'));
  });

  it('is deterministic: two copies of the repository give byte-identical maps', async () => {
    const other = makeFixtureRepo();
    try {
      const index2 = await indexRepository({ root: other, cache: false, workers: 0 });
      for (const format of ['md', 'json', 'xml'] as const) {
        const a = await renderMap(index, { budget: 900, focus: ['src/auth'], format });
        const b = await renderMap(index2, { budget: 900, focus: ['src/auth'], format });
        expect(b.output).toBe(a.output);
      }
    } finally {
      removeDir(other);
    }
  });
});
