import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { formatCost, type Turn } from '@clippy/protocol';

/**
 * Most characters of a turn one result carries: agents refuse or cut longer tool results (Claude
 * Code's limit is 25,000 tokens), and a cut the agent does not see would be an answer half read.
 * A longer turn comes in pages: the result says where the rest starts (read_turn with `offset`).
 */
export const PAGE_CHARS = 40_000;

/** The largest page a call may ask for. */
export const MAX_PAGE_CHARS = 200_000;

export interface PageOptions {
  format: 'text' | 'raw';
  offset: number;
  maxChars: number;
}

const WHOLE: PageOptions = { format: 'text', offset: 0, maxChars: PAGE_CHARS };

/** A position moved back off the middle of a surrogate pair: pages hold whole characters. */
function unsplit(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return at > 0 && at < text.length && code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

/** Tokens and cost as the agent reported them, for the note ('' when it reported none). */
function usageOf(turn: Turn): string {
  const a = turn.agent;
  if (!a) return '';
  const parts = [
    ...(a.model !== undefined ? [`model ${a.model}`] : []),
    ...(a.input_tokens !== undefined ? [`${a.input_tokens} input tokens`] : []),
    ...(a.output_tokens !== undefined ? [`${a.output_tokens} output tokens`] : []),
    ...(a.cost_usd !== undefined ? [formatCost(a.cost_usd)] : []),
    // A model with no price is said, never a cost of nothing.
    ...(a.cost_usd === undefined && a.cost_unknown ? ['no price'] : []),
  ];
  return parts.join(', ');
}

/**
 * A turn as a tool result: its text exactly as the first content block, and a note about it
 * (its turn ID, the agent's tokens, interrupted, more to read) as the second. No
 * `structuredContent`: agents (Claude Code, Codex) give a tool's structured content to their
 * model in place of its text, and the answer would reach it as an escaped JSON string.
 */
export function turnResult(turn: Turn, name: string, page: PageOptions = WHOLE): CallToolResult {
  const whole = page.format === 'raw' ? Buffer.from(turn.content).toString('utf8') : turn.text;
  const offset = unsplit(whole, Math.min(page.offset, whole.length));
  const end = unsplit(whole, Math.min(whole.length, offset + page.maxChars));
  const text = whole.slice(offset, end);
  const next = end < whole.length ? end : null;
  const notes = [
    `turn ${turn.turn_id} (${name}:${turn.seq}) of session ${name}, ${page.format === 'raw' ? 'its terminal bytes' : turn.text_source === 'agent' ? "the agent's own answer" : 'read off its screen'}`,
  ];
  const usage = usageOf(turn);
  if (usage) notes.push(usage);
  if (turn.interrupted) notes.push('interrupted (Ctrl-C or Esc) before it completed');
  if (offset > 0 || next !== null) notes.push(`characters ${offset}–${end} of ${whole.length}`);
  if (next !== null)
    notes.push(
      `the answer goes on: read_turn with turn_id "${turn.turn_id}" and offset ${next} gives the rest`,
    );
  return {
    content: [
      { type: 'text', text },
      { type: 'text', text: `[clippy: ${notes.join('; ')}]` },
    ],
  };
}
