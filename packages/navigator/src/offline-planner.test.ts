import { indexRepository, type RepoIndex } from '@clippy/repomap';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { goalTerms, stem, termMatches } from './goal-terms.js';
import { navigate, type NavigatorOptions } from './navigator.js';
import { OfflinePlanner } from './offline-planner.js';
import { TurnReportSchema } from './turn-report.js';

const appRoot = fileURLToPath(new URL('../test/fixtures/app', import.meta.url));
const pricing = { model: 'offline', input: 0, output: 0 };
let index: RepoIndex;

beforeAll(async () => {
  index = await indexRepository({ root: appRoot, cache: false });
});

function run(goal: string, extra: Partial<NavigatorOptions> = {}) {
  return navigate({
    root: appRoot,
    index,
    goal,
    planner: new OfflinePlanner(),
    pricing,
    tokenBudget: 3000,
    ...extra,
  });
}

describe('goal terms', () => {
  it('lowercases, splits identifiers, drops stopwords and task words, stems', () => {
    expect(goalTerms('fix the token refresh bug in auth')).toEqual(['token', 'refresh', 'auth']);
    expect(goalTerms('Invoices show the wrong totals')).toEqual(['invoic', 'show', 'total']);
    expect(goalTerms('refreshAccessToken fails for expired_tokens')).toEqual([
      'refresh',
      'access',
      'token',
      'fail',
      'expir',
    ]);
    expect(stem('parsing')).toBe(stem('parse'));
    expect(termMatches('auth', 'authentication')).toBe(true);
    expect(termMatches('token', 'tok')).toBe(false);
  });
});

describe('offline planner on the fixture app', () => {
  it('"fix the token refresh bug in auth": auth token files at L4, their neighbours at L3', async () => {
    const result = await run('fix the token refresh bug in auth');
    const level = (p: string) => result.map.files.find((f) => f.path === p)?.level;
    expect(result.state.completion_reason).toBe('agent_done');
    expect(level('src/auth/refresh.ts')).toBe(4);
    expect(level('src/auth/token-store.ts')).toBe(4);
    // refresh.ts calls the HTTP client and the clock: interfaces.
    expect(level('src/http/client.ts')).toBe(3);
    expect(level('src/util/clock.ts')).toBe(3);
    // Unrelated code stays structure.
    expect(level('src/ui/theme.ts')).toBe(2);
    expect(level('src/billing/tax.ts')).toBe(2);
    expect(result.map.totalTokens).toBeLessThanOrEqual(3000);
    expect(result.state.decision_log[0]!.reasoning).toContain(
      'src/auth/refresh.ts (matches token, refresh',
    );
    // The handed-over context lists the pinned files, best first, one line each with why.
    const ranked = [...result.context.matchAll(/^ {2}- (\d+)\. (\S+) \((L[34])[^)]*\): (.+)$/gm)];
    expect(ranked.map((m) => m[1])).toEqual(ranked.map((_, i) => String(i + 1)));
    expect(ranked[0]![2]).toMatch(/^src\/auth\//);
    expect(ranked[0]![4]).toMatch(/matches .*token/);
    expect(ranked.map((m) => m[2]).sort()).toEqual(
      result.map.files
        .filter((f) => f.level >= 3)
        .map((f) => f.path)
        .sort(),
    );
    for (const r of result.reports) expect(TurnReportSchema.safeParse(r).success).toBe(true);
    expect(result.state.budget.current_spend_usd).toBe(0);
    expect(result.timeline.filter((e) => e.type === 'model_call')).toHaveLength(0);
  });

  it('"invoices show the wrong total": the invoice code in full, tax as neighbour', async () => {
    const result = await run('invoices show the wrong total');
    const level = (p: string) => result.map.files.find((f) => f.path === p)?.level;
    expect(level('src/billing/invoice.ts')).toBe(4);
    expect(level('src/billing/tax.ts')).toBeGreaterThanOrEqual(3);
    expect(level('src/auth/token-store.ts')).toBeLessThanOrEqual(2);
  });

  it('"the sign in form shows no error": the login form in full', async () => {
    const result = await run('the sign in form shows no error message when the password is wrong');
    const level = (p: string) => result.map.files.find((f) => f.path === p)?.level;
    expect(level('src/ui/login-form.ts')).toBe(4);
    expect(level('src/auth/session.ts')).toBeGreaterThanOrEqual(3);
  });

  it('is deterministic', async () => {
    const a = await run('fix the token refresh bug in auth');
    const b = await run('fix the token refresh bug in auth');
    expect(b.state.flight_plan).toEqual(a.state.flight_plan);
    expect(b.map.output).toBe(a.map.output);
    expect(b.state.decision_log.map((d) => d.reasoning)).toEqual(
      a.state.decision_log.map((d) => d.reasoning),
    );
  });

  it('fits a small budget by zooming out (and stays within it)', async () => {
    const result = await run('fix the token refresh bug in auth', { tokenBudget: 700 });
    expect(result.state.completion_reason).toBe('agent_done');
    expect(result.map.overBudget).toBe(false);
    // refresh.ts (~380 tokens in full) is more than 40% of 700: shown as its interface instead.
    const level = (p: string) => result.map.files.find((f) => f.path === p)?.level;
    expect(level('src/auth/refresh.ts')).toBe(3);
    expect(level('src/auth/token-store.ts')).toBe(4);
  });

  it('finalizes with the ranked structure when the goal names nothing in the code', async () => {
    const result = await run('please fix the bug');
    expect(result.state.completion_reason).toBe('agent_done');
    expect(result.state.iterations).toBe(1);
    expect(result.state.summary).toContain('No file matched');
    // The starting map is rendered only now (the planner did not need it to plan): it is real.
    expect(result.map.totalTokens).toBeGreaterThan(0);
    expect(result.state.summary).toContain(`(${result.map.totalTokens} tokens)`);
    expect(result.reports[0]!.map_size_tokens).toBe(result.map.totalTokens);
  });

  it('takes feedback: new words re-plan the next step', async () => {
    let step = 0;
    const result = await run('fix the token refresh bug in auth', {
      onTurn: () =>
        ++step === 1
          ? { action: 'continue', feedback: 'also the invoice totals' }
          : { action: 'continue' },
    });
    const level = (p: string) => result.map.files.find((f) => f.path === p)?.level;
    expect(result.state.decision_log[1]!.reasoning).toContain(
      'Feedback: "also the invoice totals"',
    );
    expect(level('src/billing/invoice.ts')).toBeGreaterThanOrEqual(3);
    expect(level('src/auth/refresh.ts')).toBe(4);
  });

  it('stops on the user\'s "n" (context out) and "q" (no context)', async () => {
    const stopped = await run('fix the token refresh bug in auth', {
      mode: 'interactive',
      onTurn: () => ({ action: 'stop' }),
    });
    expect(stopped.state.completion_reason).toBe('user_cancelled');
    expect(stopped.user_action).toBe('stop');
    expect(stopped.context).toContain('# Context:');
    const quit = await run('fix the token refresh bug in auth', {
      mode: 'interactive',
      onTurn: () => ({ action: 'quit' }),
    });
    expect(quit.state.completion_reason).toBe('user_cancelled');
    expect(quit.user_action).toBe('quit');
    expect(quit.context).toBe('');
  });
});
