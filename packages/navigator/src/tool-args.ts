import { z } from 'zod';
import { FINALIZE_CONTEXT, UPDATE_FLIGHT_PLAN, type ToolCall } from './tools.js';

/** "a number", "an array", "null": what a model sent where something else was expected. */
function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  const t = typeof v;
  return t === 'object' || t === 'undefined' ? `an ${t}` : `a ${t}`;
}

/** An error for a value of the wrong type, or for a missing one. */
const expected =
  (what: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? 'is missing' : `must be ${what}, not ${kindOf(issue.input)}`;

const argsObject = <T extends z.ZodRawShape>(shape: T) =>
  z.object(shape, {
    error: (issue) =>
      issue.input === undefined
        ? 'no arguments were given'
        : `the arguments must be an object, not ${kindOf(issue.input)}`,
  });

/**
 * `update_flight_plan` arguments. `updates` may be anything present here: whether it is a valid
 * change is for the plan update to say (a rejected change, not a malformed call).
 */
export const UpdateFlightPlanArgsSchema = argsObject({
  reasoning: z.string({ error: expected('a string') }),
  updates: z.unknown().refine((v) => v !== undefined, { error: 'is missing' }),
});
export type UpdateFlightPlanArgs = z.infer<typeof UpdateFlightPlanArgsSchema>;

export const FinalizeContextArgsSchema = argsObject({
  summary: z.string({ error: expected('a string') }),
});
export type FinalizeContextArgs = z.infer<typeof FinalizeContextArgsSchema>;

/** What each tool takes, as the error for a malformed call shows it. */
const SIGNATURES: Record<string, string> = {
  [UPDATE_FLIGHT_PLAN]: '{reasoning: string, updates: object | array}',
  [FINALIZE_CONTEXT]: '{summary: string}',
};

/** A call whose name and arguments were checked. */
export type CheckedToolCall =
  | { name: typeof UPDATE_FLIGHT_PLAN; args: UpdateFlightPlanArgs }
  | { name: typeof FINALIZE_CONTEXT; args: FinalizeContextArgs };

export type ToolCallCheck = { ok: true; call: CheckedToolCall } | { ok: false; error: string };

/** One line per problem, each naming the argument it is about. */
function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((i) => (i.path.length ? `"${i.path.map(String).join('.')}" ${i.message}` : i.message))
    .join('; ');
}

function badArguments(name: string, error: z.ZodError): ToolCallCheck {
  return {
    ok: false,
    error: `bad arguments for ${name}: ${describeIssues(error.issues)} (it takes ${SIGNATURES[name]})`,
  };
}

/**
 * Checks a planner's tool call: a known tool, with the arguments it takes. The error says which
 * argument is wrong and how, so the model can correct its next call.
 */
export function checkToolCall(call: ToolCall): ToolCallCheck {
  if (call.name === UPDATE_FLIGHT_PLAN) {
    const parsed = UpdateFlightPlanArgsSchema.safeParse(call.args);
    return parsed.success
      ? { ok: true, call: { name: UPDATE_FLIGHT_PLAN, args: parsed.data } }
      : badArguments(call.name, parsed.error);
  }
  if (call.name === FINALIZE_CONTEXT) {
    const parsed = FinalizeContextArgsSchema.safeParse(call.args);
    return parsed.success
      ? { ok: true, call: { name: FINALIZE_CONTEXT, args: parsed.data } }
      : badArguments(call.name, parsed.error);
  }
  return {
    ok: false,
    error: `unknown function "${call.name}"; the tools are ${UPDATE_FLIGHT_PLAN} and ${FINALIZE_CONTEXT}`,
  };
}
