import type { MapResult } from '@clippy/repomap';
import type { NavigatorState, RunStats } from './state.js';

/** The final context: a Markdown header saying what this is and how it was made, then the map. */
export function renderFinalContext(a: {
  state: NavigatorState;
  map: MapResult;
  generatedAt: Date;
  model: string;
  stats: RunStats;
}): string {
  const { state, map } = a;
  const levels = map.countsByLevel;
  const cost =
    state.planner === 'offline'
      ? '$0.0000 (offline planner)'
      : `$${state.budget.current_spend_usd.toFixed(4)} (${a.model}, ${a.stats.model_calls} model call${a.stats.model_calls === 1 ? '' : 's'})`;
  const header = [
    `# Context: ${state.goal.replace(/\s+/g, ' ')}`,
    '',
    `- Goal: ${state.goal.replace(/\s+/g, ' ')}`,
    `- Generated at: ${a.generatedAt.toISOString()}`,
    `- Tokens: ${map.totalTokens.toLocaleString('en-US')} of ${state.budget.token_budget.toLocaleString('en-US')}${map.overBudget ? ' (over budget)' : ''}`,
    `- Files: ${state.map.file_count} (L4 ${levels[4]}, L3 ${levels[3]}, L2 ${levels[2]}, L1 ${levels[1]}; excluded ${levels[0]})`,
    `- Cost: ${cost}`,
    `- Completion: ${state.completion_reason ?? 'error'} after ${state.iterations} step${state.iterations === 1 ? '' : 's'}`,
  ];
  if (state.summary) {
    // The first line is the summary; further lines (the planner's ranked files) stay one each.
    const [first, ...rest] = state.summary.split('\n').filter((l) => l.trim());
    header.push(`- Summary: ${first!.replace(/\s+/g, ' ')}`);
    for (const line of rest) header.push(`  - ${line.replace(/\s+/g, ' ').trim()}`);
  }
  return `${header.join('\n')}\n\n${map.output.trimEnd()}\n`;
}
