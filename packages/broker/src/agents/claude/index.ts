import type { AgentDefinition } from '../types.js';
import { ClaudeChannel } from './channel.js';
import { claudeResumeArgs, wireClaude } from './wiring.js';

/** Claude Code: hooks through `--settings`, the transcript they name, `--resume ID`. */
export const claude: AgentDefinition = {
  agent: 'claude',
  identity: { bins: ['claude'], packages: ['@anthropic-ai/claude-code'] },
  wire: wireClaude,
  channel: (ctx) => new ClaudeChannel(ctx),
  resumeArgs: claudeResumeArgs,
};
