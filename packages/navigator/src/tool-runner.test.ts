import { indexRepository, type FlightPlan, type RepoIndex } from '@clippy/repomap';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ScriptedPlanner, type ScriptStep } from '../test/scripted-planner.js';
import { navigate, type NavigatorOptions } from './navigator.js';
import { describeChange } from './tool-runner.js';
import { FINALIZE_CONTEXT, UPDATE_FLIGHT_PLAN, type ToolCall } from './tools.js';

const appRoot = fileURLToPath(new URL('../test/fixtures/app', import.meta.url));

let index: RepoIndex;
beforeAll(async () => {
  index = await indexRepository({ root: appRoot, cache: false });
});

const update = (reasoning: unknown, updates: unknown): ToolCall => ({
  name: UPDATE_FLIGHT_PLAN,
  args: { reasoning, updates },
});
const finalize: ToolCall = { name: FINALIZE_CONTEXT, args: { summary: 'auth in full' } };

function run(planner: ScriptedPlanner, extra: Partial<NavigatorOptions> = {}) {
  return navigate({
    root: appRoot,
    index,
    goal: 'fix the token refresh bug in auth',
    planner,
    pricing: { model: 'scripted', input: 0, output: 0 },
    tokenBudget: 3000,
    ...extra,
  });
}

describe('tool calls in a run', () => {
  it('a malformed call changes nothing and the planner is told which argument was wrong', async () => {
    const script: ScriptStep[] = [
      [update(42, { verbosity: [{ pattern: 'src/auth/**', level: 4 }] })],
      [update('auth in full', { verbosity: [{ pattern: 'src/auth/**', level: 4 }] })],
      [finalize],
    ];
    const planner = new ScriptedPlanner(script);
    const result = await run(planner);
    expect(planner.seen[1]!.prompt).toContain('"reasoning" must be a string, not a number');
    expect(planner.seen[1]!.plan).toBe(JSON.stringify({ budget: 3000 }));
    expect(result.stats.malformed_calls).toBe(1);
    expect(result.state.flight_plan.verbosity).toEqual([{ pattern: 'src/auth/**', level: 4 }]);
    expect(result.state.decision_log.map((d) => [d.action, d.tool ?? null])).toEqual([
      ['invalid call', UPDATE_FLIGHT_PLAN],
      [UPDATE_FLIGHT_PLAN, null],
      [FINALIZE_CONTEXT, null],
    ]);
    expect(result.state.completion_reason).toBe('agent_done');
  });

  it('every time the run records comes from its clock, tool calls included', async () => {
    const at = new Date('2030-01-02T03:04:05.000Z');
    const result = await run(
      new ScriptedPlanner([[update('zoom', { verbosity: [{ pattern: 'src/**', level: 3 }] })]]),
      { now: () => new Date(at) },
    );
    const tools = result.timeline.filter((e) => e.type === 'tool_call');
    expect(tools.map((t) => t.name)).toEqual([UPDATE_FLIGHT_PLAN, FINALIZE_CONTEXT]);
    for (const t of tools) expect([t.started_at, t.duration_ms]).toEqual([at.toISOString(), 0]);
    expect(new Set(result.state.decision_log.map((d) => d.timestamp))).toEqual(
      new Set([at.toISOString()]),
    );
    expect([result.started_at, result.finished_at]).toEqual([at.toISOString(), at.toISOString()]);
  });
});

describe('describeChange (the one-line account of a plan change)', () => {
  const op = (path: string) => ({ op: 'add' as const, path });

  it('names the levels set, and how many more there were', () => {
    const after: FlightPlan = {
      verbosity: ['a/**', 'b/**', 'c/**', 'd/**', 'e/**'].map((pattern) => ({ pattern, level: 3 })),
    };
    expect(describeChange({}, after, [op('/verbosity')])).toBe(
      'Set a/** to L3, b/** to L3, c/** to L3 and 2 more',
    );
  });

  it('names released rules and other parts of the plan that changed', () => {
    const before: FlightPlan = { verbosity: [{ pattern: 'src/**', level: 4 }] };
    const after: FlightPlan = { focus: { paths: [{ pattern: 'src/auth/**', weight: 5 }] } };
    expect(describeChange(before, after, [op('/focus'), op('/verbosity')])).toBe(
      'Released src/**; changed focus',
    );
  });

  it('says when nothing changed', () => {
    expect(describeChange({ budget: 10 }, { budget: 10 }, [])).toBe(
      'Kept the flight plan unchanged',
    );
  });
});
