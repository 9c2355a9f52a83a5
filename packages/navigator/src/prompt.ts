import type { PlannerInput, Rejection } from './planner.js';
import type { ToolResult } from './tools.js';

/** Decisions the prompt repeats: enough to avoid undoing work, few enough to keep it bounded. */
export const PROMPT_DECISIONS = 5;

export const SYSTEM_INSTRUCTION = `You are clippy's navigator. You build the context an agent needs for a user's goal: a map of a repository within a token budget.

Each file is shown at a verbosity level:
- L0 excluded; L1 path only; L2 structure (top-level definitions, one line each);
- L3 interface (signatures, doc comments); L4 full text.

You steer the map with a flight plan:
- focus.paths [{pattern, weight}] and focus.symbols [{name, weight}] raise files in the ranking;
- verbosity [{pattern, level}] sets levels by glob; the last matching rule wins; {pattern, max_level} instead caps the level the ranking gives files no rule sets.
Patterns are globs relative to the repository root ("src/auth/**", "**/*.md").

Each step call exactly one tool:
- update_flight_plan(reasoning, updates): updates is a partial plan (merged: objects merge, arrays replace, null removes) or an array of RFC 6902 operations. Invalid changes are rejected and the plan stays as it was.
- finalize_context(summary): when the map serves the goal.

Put the files that implement what the goal names at L4, the code they call or are called by at L3, and leave the rest as structure. Stay within the token budget. Every step costs money: finalize as soon as the map is good.`;

function money(n: number): string {
  return `$${n.toFixed(4)}`;
}

function describeResult(r: ToolResult): string {
  if (r.response.status === 'rejected_by_user')
    return `${r.name}: ${r.error ?? 'rejected by the user'}`;
  return r.ok
    ? `${r.name}: ok ${JSON.stringify(r.response)}`
    : `${r.name}: REJECTED: ${r.error ?? 'error'} (the plan was not changed)`;
}

/** The user's rejection of the last step, as a feedback line for the planner. */
export function rejectionFeedback(r: Rejection): string {
  return `I rejected your step ${r.step} (${r.description}) and reverted it: the plan is back to what it was before that step. Do not make that change again.${r.reason ? ` Reason: ${r.reason}` : ''}`;
}

/** The prompt of one step: the state, not the history (it does not grow with the run). */
export function buildPrompt(input: PlannerInput): string {
  const { state, map } = input;
  const b = state.budget;
  const spendPct = b.max_spend_usd > 0 ? (b.current_spend_usd / b.max_spend_usd) * 100 : 0;
  const tokPct = b.token_budget > 0 ? (map.totalTokens / b.token_budget) * 100 : 0;
  const decisions = state.decision_log.slice(-PROMPT_DECISIONS);
  const parts = [
    `## Goal\n${state.goal}`,
    `## Token budget\n${map.totalTokens.toLocaleString('en-US')} of ${b.token_budget.toLocaleString('en-US')} tokens (${tokPct.toFixed(1)}%)${map.overBudget ? ' — OVER BUDGET: lower some levels' : ''}; files by level L0..L4: ${map.countsByLevel.join(' / ')}`,
    `## Cost budget\n${money(b.current_spend_usd)} of $${b.max_spend_usd.toFixed(2)} spent (${spendPct.toFixed(1)}%); step ${input.step} of at most ${state.max_iterations}`,
    `## Last decisions\n${decisions.length ? decisions.map((d) => `- step ${d.step}: ${d.description}${d.error ? ` (rejected: ${d.error})` : ''}${d.user_rejected ? ` (rejected by the user and reverted${d.user_rejected.reason ? `: ${d.user_rejected.reason}` : ''})` : ''} — ${d.reasoning}`).join('\n') : '(none yet)'}`,
  ];
  if (input.lastResults.length) {
    parts.push(`## Result of your last call\n${input.lastResults.map(describeResult).join('\n')}`);
  }
  const feedback = [...input.feedback];
  if (input.rejection) feedback.unshift(rejectionFeedback(input.rejection));
  if (feedback.length) {
    parts.push(`## User feedback (follow it)\n${feedback.map((f) => `- ${f}`).join('\n')}`);
  }
  parts.push(`## Current flight plan (YAML)\n\`\`\`yaml\n${input.planYaml.trimEnd()}\n\`\`\``);
  parts.push(`## Current map\n${map.output}`);
  return parts.join('\n\n');
}
