import type { SessionInfo } from '@clippy/protocol';
import { plural } from './text.js';

/**
 * What a session row shows beyond its state and turns, from `list_sessions` fields that only
 * some daemons send: unread turns (the daemon's notifications and unread marks) and what the
 * agent's own channel reports of tokens and cost. Absent fields show nothing; the protocol
 * schema does not carry them yet, so they are read as optional extras here and nowhere else.
 */
interface Extras {
  /** Completed turns nobody has looked at yet. */
  unread?: unknown;
  /** What the agent reported spending, in US dollars. */
  cost_usd?: unknown;
  /** Tokens the agent reported, in and out. */
  input_tokens?: unknown;
  output_tokens?: unknown;
}

function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** `1.2k`, `34k`, `1.5M`: token counts at a glance. */
function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** The number of unread turns a session has (0 when the daemon does not say). */
export function unreadOf(s: SessionInfo): number {
  return count((s as SessionInfo & Extras).unread) ?? 0;
}

/** The row's extra parts, e.g. `2 unread`, `$0.42`, `12k→3.1k tokens`; none when unknown. */
export function extrasOf(s: SessionInfo): string[] {
  const x = s as SessionInfo & Extras;
  const parts: string[] = [];
  const unread = unreadOf(s);
  if (unread > 0) parts.push(`${unread} unread`);
  const cost = count(x.cost_usd);
  if (cost !== undefined) parts.push(`$${cost.toFixed(2)}`);
  const tin = count(x.input_tokens);
  const tout = count(x.output_tokens);
  if (tin !== undefined || tout !== undefined) {
    parts.push(`${tokens(tin ?? 0)}→${tokens(tout ?? 0)} tokens`);
  }
  return parts;
}

/** The same for a tooltip line, spelled out. */
export function extrasTooltip(s: SessionInfo): string | undefined {
  const x = s as SessionInfo & Extras;
  const parts: string[] = [];
  const unread = unreadOf(s);
  if (unread > 0) parts.push(`${plural(unread, 'unread turn')}`);
  const cost = count(x.cost_usd);
  if (cost !== undefined) parts.push(`cost $${cost.toFixed(4)}`);
  const tin = count(x.input_tokens);
  const tout = count(x.output_tokens);
  if (tin !== undefined) parts.push(`${tin} input tokens`);
  if (tout !== undefined) parts.push(`${tout} output tokens`);
  return parts.length > 0 ? parts.join(', ') : undefined;
}
