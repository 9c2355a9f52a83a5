import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentName } from '@clippy/protocol';
import { claude } from './claude/index.js';
import { codex } from './codex/index.js';
import { copilot } from './copilot/index.js';
import { gemini } from './gemini/index.js';
import { opencode } from './opencode/index.js';
import { qwen } from './qwen/index.js';
import type { AgentDefinition } from './types.js';

/** Every agent whose channel clippy can wire, by the name presets give in their `agent` field. */
export const AGENT_DEFINITIONS: Record<AgentName, AgentDefinition> = {
  claude,
  codex,
  gemini,
  opencode,
  copilot,
  qwen,
};

/**
 * The hook entry's file: `bin/clippy-hook.js` of the broker package (it runs the built
 * `dist/agents/hook-entry.js`), two folders above this module in `src/` and `dist/` alike.
 */
export const HOOK_ENTRY = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'bin',
  'clippy-hook.js',
);

/**
 * The command line an agent runs for one event of one session: node (this daemon's), the hook
 * entry, the daemon's socket and the session (named explicitly: the agent's environment may
 * not lead to this daemon), the agent and the event.
 */
export function hookCommand(
  socket: string,
  session: string,
  agent: AgentName,
  event: string,
): string[] {
  return [process.execPath, HOOK_ENTRY, socket, session, agent, event];
}
