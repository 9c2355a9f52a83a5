import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BOX_WIDTH,
  renderCompact,
  renderVerbose,
  truncateWords,
  wrapWords,
} from './render-turn-report.js';
import { TurnReportSchema, type TurnReport } from './turn-report.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../test/fixtures/${name}`, import.meta.url), 'utf8');
const example = TurnReportSchema.parse(JSON.parse(fixture('turn-report.seed-example.json')));

/** The seed's box with its misaligned right borders fixed: one more space before the border. */
function aligned(box: string): string[] {
  return box.split('\n').map((line) => {
    const chars = [...line];
    if (chars.length === BOX_WIDTH - 1) chars.splice(chars.length - 1, 0, ' ');
    if (chars.length === BOX_WIDTH + 1 && chars.at(-2) === ' ') chars.splice(chars.length - 2, 1);
    return chars.join('');
  });
}

describe('compact Turn Report box', () => {
  it("renders the seed's example exactly as the seed's box (aligned; reason = first sentence)", () => {
    const seed = aligned(fixture('turn-report.seed-compact.txt').split('\n\n')[0]!);
    const ours = renderCompact(example).split('\n');
    expect(ours.length).toBe(seed.length);
    for (const line of ours) expect([...line].length).toBe(BOX_WIDTH);
    for (let i = 0; i < seed.length; i++) {
      if (seed[i]!.startsWith('│ Reason:')) {
        // The seed's reason line is a hand-written paraphrase that no data field holds; we show
        // the first sentence of the reasoning instead.
        expect(ours[i]).toBe(
          `│ ${'Reason: The User model is referenced by the auth middleware.'.padEnd(BOX_WIDTH - 3)}│`,
        );
      } else {
        expect(ours[i]).toBe(seed[i]);
      }
    }
  });

  it('keeps every line the same width for long paths, completion, and an empty focus', () => {
    const r: TurnReport = {
      ...example,
      focus_areas: [],
      last_action: 'x'.repeat(200),
      reasoning: 'word '.repeat(80),
      is_complete: true,
      completion_reason: 'budget_exceeded',
    };
    const lines = renderCompact(r).split('\n');
    for (const line of lines) expect([...line].length).toBe(BOX_WIDTH);
    expect(lines.join('\n')).toContain('Focus: (none yet)');
    expect(lines.join('\n')).toContain('Done:   budget_exceeded');
  });
});

describe('long paths in the compact box', () => {
  const deep = 'packages/server/src/unstable-core-do-not-import/error/TRPCError.ts';
  it('shortens a path that does not fit (middle ellipsis) instead of dropping it', () => {
    const r: TurnReport = {
      ...example,
      focus_areas: Array.from({ length: 24 }, (_, i) => ({
        path: i === 0 ? deep : `packages/client/src/links/internals/generated-${i}.gen.ts`,
        verbosity_level: i === 0 ? 4 : 3,
      })),
      last_action: `Set focus on ${deep} and ${deep.replace('TRPCError', 'formatter')}`,
    };
    const lines = renderCompact(r).split('\n');
    for (const line of lines) expect([...line].length).toBe(BOX_WIDTH);
    const focus = lines.find((l) => l.startsWith('│ Focus:'))!;
    expect(focus).toMatch(/Focus: packages\/server\S*…\S*TRPCError\.ts \(L4\)/);
    expect(focus).toMatch(/\+\d+ more/);
    const action = lines.find((l) => l.startsWith('│ Action:'))!;
    expect(action).toMatch(/Action: Set focus on packages\/server\S*…\S*TRPCError\.ts/);
    expect(action).not.toMatch(/Action: Set\s*│/);
  });
});

describe('over the limits', () => {
  it('shows the real share past 100% (the JSON field is capped by the schema)', () => {
    const r: TurnReport = {
      ...example,
      map_size_tokens: 1200,
      token_budget: 1000,
      token_utilization: 100,
    };
    expect(renderCompact(r)).toContain('Size:  1,200 tokens (120% of 1,000) | 47 files');
    const bars = renderVerbose(r)
      .split('\n')
      .find((l) => l.includes('Utilization:'))!;
    expect([...bars].length).toBe(BOX_WIDTH);
    expect(bars).toContain('120%║');
  });
});

describe('verbose Turn Report box', () => {
  it("matches the seed's verbose box line for line except the computed bars", () => {
    const seed = aligned(fixture('turn-report.seed-verbose.txt').split('\n\n')[0]!);
    const ours = renderVerbose(example).split('\n');
    expect(ours.length).toBe(seed.length);
    for (const line of ours) expect([...line].length).toBe(BOX_WIDTH);
    for (let i = 0; i < seed.length; i++) {
      if (seed[i]!.includes('█')) {
        // Bars are computed from the numbers (the seed's are drawn by hand): same label and
        // percentage, a 51-column bar filled in proportion.
        expect(ours[i]!.slice(0, 17)).toBe(seed[i]!.slice(0, 17));
        const percent = (l: string) => /([\d.]+%)\s*║$/.exec(l)?.[1];
        expect(percent(ours[i]!)).toBe(percent(seed[i]!));
        expect(ours[i]!.endsWith('%║')).toBe(true);
      } else {
        expect(ours[i]).toBe(seed[i]);
      }
    }
    const util = ours.find((l) => l.includes('Utilization:'))!;
    expect([...util].filter((c) => c === '█').length).toBe(Math.round(0.76 * 51));
  });
});

describe('text helpers', () => {
  it('truncates at word boundaries and wraps greedily', () => {
    expect(truncateWords('alpha beta gamma', 10)).toBe('alpha beta');
    expect(truncateWords('alpha, beta gamma', 8)).toBe('alpha');
    expect(truncateWords('abcdefghijkl', 5)).toBe('ab…kl');
    expect(wrapWords('aa bb cc dd', 5)).toEqual(['aa bb', 'cc dd']);
    expect(wrapWords('abcdefgh', 3)).toEqual(['abc', 'def', 'gh']);
  });
});
