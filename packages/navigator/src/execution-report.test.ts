import { indexRepository, type RepoIndex } from '@clippy/repomap';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { navigatorExecutionReport, renderNavigatorExecutionReport } from './execution-report.js';
import { navigate, type NavigatorOptions, type NavigatorResult } from './navigator.js';
import { OfflinePlanner } from './offline-planner.js';
import type { Planner } from './planner.js';
import { ScriptedPlanner } from '../test/scripted-planner.js';
import { FINALIZE_CONTEXT, UPDATE_FLIGHT_PLAN, type ToolCall } from './tools.js';

const appRoot = fileURLToPath(new URL('../test/fixtures/app', import.meta.url));
const START = Date.parse('2026-03-01T12:00:00.000Z');
/** Each clock reading is this much later than the one before: times differ and stay exact. */
const TICK_MS = 250;

let index: RepoIndex;
beforeAll(async () => {
  index = await indexRepository({ root: appRoot, cache: false });
});

const update = (reasoning: string, updates: unknown): ToolCall => ({
  name: UPDATE_FLIGHT_PLAN,
  args: { reasoning, updates },
});
const finalize = (summary: string): ToolCall => ({ name: FINALIZE_CONTEXT, args: { summary } });

async function run(
  planner: Planner,
  extra: Partial<NavigatorOptions> = {},
): Promise<NavigatorResult> {
  let t = START;
  return navigate({
    root: appRoot,
    index,
    goal: 'fix the token refresh bug in auth',
    planner,
    pricing: { model: 'scripted', input: 0, output: 0 },
    tokenBudget: 3000,
    now: () => new Date((t += TICK_MS)),
    ...extra,
  });
}

const n = (v: number) => v.toLocaleString('en-US');

/** The report's head for a run, from its own start/end (the clock is the test's). */
function head(result: NavigatorResult, status: string): string {
  const start = Date.parse(result.started_at);
  const end = Date.parse(result.finished_at);
  return [
    '# Execution Report',
    '',
    '**Run Summary:**',
    `- **Status:** ${status}`,
    '- **Start Time:** 2026-03-01T12:00:00.250Z',
    `- **End Time:** ${result.finished_at}`,
    `- **Duration:** ${((end - start) / 1000).toFixed(2)} seconds`,
    '',
    '**Environment:**',
    '- **Operating System:** linux',
    `- **Working Directory:** ${appRoot}`,
    '',
    '---',
    '',
    '## Action Log',
    '',
    '',
  ].join('\n');
}

describe('navigator run → Execution Report', () => {
  it('a finished run: SUCCESS, one action per tool call, plan change as RFC 6902 ops', async () => {
    const result = await run(
      new ScriptedPlanner([
        [update('auth in full', { verbosity: [{ pattern: 'src/auth/**', level: 4 }] })],
        [finalize('auth module in full')],
      ]),
    );
    const [d1, d2] = result.state.decision_log;
    const files = d2!.counts_by_level!;
    const md = renderNavigatorExecutionReport(result, { os: 'linux' });
    expect(md).toBe(
      head(result, 'SUCCESS') +
        [
          '### Action 1: update_flight_plan',
          '',
          '- **Status:** SUCCESS',
          `- **Details:** Set src/auth/** to L4; ${d1!.counts_by_level![4]} files now at L4, ${d1!.counts_by_level![3]} at L3; map ${n(d1!.tokens)} of 3,000 tokens. Reasoning: auth in full`,
          '- **Output:**',
          '```',
          '{"op":"add","path":"/verbosity","value":[{"pattern":"src/auth/**","level":4}]}',
          '```',
          '',
          '---',
          '',
          '### Action 2: finalize_context',
          '',
          '- **Status:** SUCCESS',
          '- **Details:** auth module in full',
          '- **Output:**',
          '```',
          `Final context: ${n(d2!.tokens)} of 3,000 tokens; ${files[1]! + files[2]! + files[3]! + files[4]!} files (L4 ${files[4]}, L3 ${files[3]}, L2 ${files[2]}, L1 ${files[1]})`,
          '```',
          '',
          '---',
          '',
        ].join('\n'),
    );
    expect(d2!.tokens).toBe(result.map.totalTokens);
  });

  it('a change rejected by validation is a FAILURE with the error: PARTIAL_SUCCESS', async () => {
    const bad = { verbosity: [{ pattern: 'src/**', level: 7 }] };
    const result = await run(
      new ScriptedPlanner([
        [update('everything in full', bad)],
        [update('auth as interfaces', { verbosity: [{ pattern: 'src/auth/**', level: 3 }] })],
        [finalize('auth interfaces')],
      ]),
    );
    const error = result.state.decision_log[0]!.error!;
    expect(error).toContain('level must be 0, 1, 2, 3 or 4');
    const input = navigatorExecutionReport(result, { os: 'linux' });
    expect(input.status).toBe('PARTIAL_SUCCESS');
    expect(input.actions.map((a) => `${a.name} ${a.status}`)).toEqual([
      'update_flight_plan FAILURE',
      'update_flight_plan SUCCESS',
      'finalize_context SUCCESS',
    ]);
    const md = renderNavigatorExecutionReport(result, { os: 'linux' });
    expect(md.startsWith(head(result, 'PARTIAL_SUCCESS'))).toBe(true);
    expect(md).toContain(
      [
        '### Action 1: update_flight_plan',
        '',
        '- **Status:** FAILURE',
        '- **Details:** The change failed validation and was not applied; the flight plan is unchanged. Reasoning: everything in full',
        '- **Output:**',
        '```',
        JSON.stringify(bad),
        '```',
        '- **Error:**',
        '```',
        error,
        '```',
        '',
        '---',
        '',
        '### Action 2: update_flight_plan',
      ].join('\n'),
    );
  });

  it('a step the user rejected with a reason is SKIPPED with the reason; the plan is reverted and the planner told', async () => {
    const planner = new ScriptedPlanner([
      [update('billing too', { verbosity: [{ pattern: 'src/billing/**', level: 4 }] })],
      [update('auth in full', { verbosity: [{ pattern: 'src/auth/**', level: 4 }] })],
      [finalize('auth module in full')],
    ]);
    const result = await run(planner, {
      onTurn: (report) =>
        report.step_number === 1
          ? { action: 'reject', reason: 'billing is not part of "auth"' }
          : { action: 'continue' },
    });
    // Step 2 saw the plan from before step 1 and the rejection, in its prompt's feedback.
    expect(planner.seen[1]!.plan).toBe(planner.seen[0]!.plan);
    expect(planner.seen[1]!.rejection).toMatchObject({
      step: 1,
      reason: 'billing is not part of "auth"',
      description: 'Set src/billing/** to L4',
    });
    expect(planner.seen[1]!.prompt).toContain(
      '## User feedback (follow it)\n- I rejected your step 1 (Set src/billing/** to L4) and reverted it',
    );
    expect(planner.seen[1]!.prompt).toContain('Reason: billing is not part of "auth"');
    expect(planner.seen[1]!.prompt).toContain(
      'update_flight_plan: rejected by the user: billing is not part of "auth"; the change was reverted',
    );
    expect(planner.seen[2]!.rejection).toBeNull();
    expect(result.state.flight_plan.verbosity).toEqual([{ pattern: 'src/auth/**', level: 4 }]);
    expect(result.state.decision_log[0]!.user_rejected).toEqual({
      reason: 'billing is not part of "auth"',
    });
    const md = renderNavigatorExecutionReport(result, { os: 'linux' });
    expect(md.startsWith(head(result, 'SUCCESS'))).toBe(true);
    expect(md).toContain(
      [
        '### Action 1: update_flight_plan',
        '',
        '- **Status:** SKIPPED',
        '- **Details:** User rejected this action. These changes have not been implemented, and the previous state is still the current one.',
        '- **Reason:** "billing is not part of \\"auth\\""',
        '',
        '---',
        '',
        '### Action 2: update_flight_plan',
        '',
        '- **Status:** SUCCESS',
        '- **Details:** Set src/auth/** to L4;',
      ].join('\n'),
    );
  });

  it('a rejection without a reason has no Reason line; a run that hits the step limit is PARTIAL_SUCCESS', async () => {
    const result = await run(
      new ScriptedPlanner([
        [update('auth', { verbosity: [{ pattern: 'src/auth/**', level: 3 }] })],
        [update('billing', { verbosity: [{ pattern: 'src/billing/**', level: 3 }] })],
      ]),
      {
        maxIterations: 2,
        onTurn: (report) =>
          report.step_number === 1 ? { action: 'reject' } : { action: 'continue' },
      },
    );
    expect(result.state.completion_reason).toBe('max_iterations');
    const input = navigatorExecutionReport(result, { os: 'linux' });
    expect(input.status).toBe('PARTIAL_SUCCESS');
    expect(input.actions.map((a) => a.status)).toEqual(['SKIPPED', 'SUCCESS']);
    expect(input.actions[0]!.reason).toBeUndefined();
    expect(renderNavigatorExecutionReport(result)).not.toContain('**Reason:**');
  });

  it('malformed and unknown calls are FAILURE actions carrying their errors', async () => {
    const result = await run(
      new ScriptedPlanner([
        [{ name: 'delete_repository', args: {} }],
        [{ name: UPDATE_FLIGHT_PLAN, args: { reasoning: 42 } }],
        [finalize('nothing to change')],
      ]),
    );
    const input = navigatorExecutionReport(result, { os: 'linux' });
    expect(input.status).toBe('PARTIAL_SUCCESS');
    expect(input.actions.slice(0, 2)).toEqual([
      {
        name: 'delete_repository',
        status: 'FAILURE',
        details: 'Invalid call of delete_repository, answered with the error; nothing was changed.',
        error: expect.stringContaining('unknown function "delete_repository"') as string,
      },
      {
        name: UPDATE_FLIGHT_PLAN,
        status: 'FAILURE',
        details:
          'Invalid call of update_flight_plan, answered with the error; nothing was changed.',
        error: expect.stringContaining('bad arguments') as string,
      },
    ]);
  });

  it('the offline planner does not propose a rejected change again', async () => {
    let rejected: string[] = [];
    const result = await run(new OfflinePlanner(), {
      onTurn: (report, view) => {
        if (report.step_number !== 1) return { action: 'continue' };
        rejected = (view.state.flight_plan.verbosity ?? [])
          .filter((r) => (r.level ?? 0) >= 3)
          .map((r) => r.pattern);
        return { action: 'reject', reason: 'not these files' };
      },
    });
    expect(rejected.length).toBeGreaterThan(0);
    expect(result.state.completion_reason).toBe('agent_done');
    const raised = (result.state.flight_plan.verbosity ?? [])
      .filter((r) => (r.level ?? 0) >= 3)
      .map((r) => r.pattern);
    for (const p of rejected) expect(raised).not.toContain(p);
    expect(result.state.decision_log[1]!.reasoning).toContain(
      'Step 1 was rejected ("not these files")',
    );
  });
});
