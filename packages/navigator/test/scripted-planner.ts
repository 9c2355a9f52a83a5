// A planner for tests: answers each step from a script, records its model calls like the Gemini
// planner does, and keeps what it was shown.
import type { Planner, PlannerHooks, PlannerInput, PlannerOutcome } from '../src/planner.js';
import { buildPrompt } from '../src/prompt.js';
import { FINALIZE_CONTEXT, type ToolCall } from '../src/tools.js';
import type { ModelCallEvent } from '../src/state.js';

/** One scripted step: tool calls, or an outcome other than calls. */
export type ScriptStep =
  | ToolCall[]
  | { budgetExceeded: string }
  | { failed: string }
  /** Model call events to record before the calls (retries, truncation). */
  | { events: Partial<ModelCallEvent>[]; calls: ToolCall[] };

export class ScriptedPlanner implements Planner {
  readonly kind = 'gemini' as const;
  readonly model = 'scripted';
  readonly seen: { step: number; prompt: string; plan: string; rejection: unknown }[] = [];
  constructor(
    private readonly script: ScriptStep[],
    private readonly startedAt = '2026-03-01T12:00:00.000Z',
  ) {}

  private event(step: number, extra: Partial<ModelCallEvent> = {}): ModelCallEvent {
    return {
      type: 'model_call',
      step,
      started_at: this.startedAt,
      duration_ms: 1234,
      model: this.model,
      prompt_tokens_estimate: 900 + step,
      estimate_source: 'o200k',
      prompt_tokens: 900,
      output_tokens: 40,
      thoughts_tokens: 0,
      cost: 0,
      finish_reason: 'STOP',
      retry: false,
      ...extra,
    };
  }

  next(input: PlannerInput, hooks: PlannerHooks): Promise<PlannerOutcome> {
    this.seen.push({
      step: input.step,
      prompt: buildPrompt(input),
      plan: JSON.stringify(input.state.flight_plan),
      rejection: input.rejection ?? null,
    });
    const entry = this.script[input.step - 1] ?? [
      { name: FINALIZE_CONTEXT, args: { summary: 'done' } },
    ];
    if ('budgetExceeded' in entry)
      return Promise.resolve({
        kind: 'budget_exceeded',
        estimate: 1,
        message: entry.budgetExceeded,
      });
    if ('failed' in entry) {
      hooks.recordModelCall(
        this.event(input.step, { finish_reason: null, error: entry.failed, prompt_tokens: 0 }),
      );
      return Promise.resolve({ kind: 'failed', error: entry.failed, cost: 0 });
    }
    if ('events' in entry) {
      for (const e of entry.events) hooks.recordModelCall(this.event(input.step, e));
      return Promise.resolve({ kind: 'calls', calls: entry.calls, cost: 0 });
    }
    hooks.recordModelCall(this.event(input.step));
    return Promise.resolve({ kind: 'calls', calls: entry, cost: 0 });
  }
}
