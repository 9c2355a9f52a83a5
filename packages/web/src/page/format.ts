import { formatCost } from '@clippy/protocol';

/** "12s", "5m", "3h", "2d": how long ago, coarse enough to read at a glance. */
export function age(sinceMs: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - sinceMs) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** A turn's duration: "850 ms", "12.3 s", "4m 05s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

/** What an agent reported of a turn's usage (the turn's `agent` record, protocol's AgentTurn). */
export interface TurnUsage {
  model?: string;
  input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
  /** Why (part of) the cost is not known: a model with no price. */
  cost_unknown?: string;
}

/** Token counts as `clippy ls` writes them: "340", "1.2k". */
function tokens(n: number | undefined): string {
  return n === undefined ? '?' : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/**
 * A turn's tokens, cost and model as its agent reported them ("1.2k/340 tokens · $0.012 ·
 * claude-sonnet-4"; "no price" where its model has none, never a cost of nothing); '' when its
 * channel reported none (a screen-only turn).
 */
export function usage(agent: TurnUsage | undefined): string {
  if (!agent) return '';
  const parts: string[] = [];
  if (agent.input_tokens !== undefined || agent.output_tokens !== undefined)
    parts.push(`${tokens(agent.input_tokens)}/${tokens(agent.output_tokens)} tokens`);
  // One turn often costs under a cent: formatCost keeps two significant digits of it.
  if (agent.cost_usd !== undefined)
    parts.push(`${formatCost(agent.cost_usd)}${agent.cost_unknown ? '+?' : ''}`);
  else if (agent.cost_unknown) parts.push('no price');
  if (agent.model) parts.push(agent.model);
  return parts.join(' · ');
}

export function clock(ms: number): string {
  return new Date(ms).toLocaleTimeString([], { hour12: false });
}

/** Creates an element with a class and text (text is never parsed as HTML). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className = '',
  text = '',
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}
