import { resolve } from 'node:path';
import { repoRoot } from '../paths.js';

/** The fake agents, by name. Each is a built node script run in a real PTY. */
export const AGENT_NAMES = ['claude', 'aider', 'slow', 'big', 'crash'] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

/** Path of a fake agent's built script (needs `npm run build`). */
export function agentScript(name: AgentName): string {
  return resolve(repoRoot, 'packages', 'testkit', 'dist', 'agents', `${name}.js`);
}

/** The command and arguments that start a fake agent (for `spawn` or `clippy new --`). */
export function agentCommand(
  name: AgentName,
  args: string[] = [],
): { command: string; args: string[] } {
  return { command: process.execPath, args: [agentScript(name), ...args] };
}

export type { Submission } from './lib/log.js';
export { answerLines, bigLine, pieceLine } from './lib/answer.js';
