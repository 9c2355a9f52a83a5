import type { StoredTurn } from '../turn-ring/turn-ring.js';

/**
 * The message `replay` injects: a heading, then each turn (oldest first) with what was asked
 * and what was answered, as readable text. Plain on purpose: a briefing for a fresh agent.
 */
export function replayMessage(sessionName: string, turns: StoredTurn[]): string {
  if (turns.length === 0) return `(session ${sessionName} has no turns to replay)`;
  const parts = [`Earlier turns of session ${sessionName} (${turns.length}, oldest first):`];
  turns.forEach((t, i) => {
    const when = new Date(t.timestamp).toISOString();
    parts.push(`--- turn ${i + 1} of ${turns.length} (${t.turn_id}, ${when}) ---`);
    if (t.prompt) parts.push(`asked: ${t.prompt}`);
    parts.push(t.text.replace(/\s+$/, ''));
  });
  return parts.join('\n');
}
