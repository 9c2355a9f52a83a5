import type { AgentDefinition, WireContext, Wiring } from '../types.js';
import { CodexChannel } from './channel.js';

/**
 * Codex needs no wiring: its channel reads the rollout Codex writes anyway (channel.ts says why
 * neither its `notify` program nor its hooks are used). Its command line stays as it was.
 */
function wireCodex(ctx: WireContext): Wiring {
  return { args: ctx.args, env: ctx.env };
}

/** Codex: its rollout, `codex resume ID`. */
export const codex: AgentDefinition = {
  agent: 'codex',
  identity: { bins: ['codex'], packages: ['@openai/codex'] },
  wire: wireCodex,
  channel: (ctx) => new CodexChannel(ctx),
  // A session revived before starts with `resume ID` already: that part is replaced.
  resumeArgs: (args, agentSession) => {
    const rest = args[0] === 'resume' ? args.slice(args[1]?.startsWith('-') ? 1 : 2) : args;
    return ['resume', agentSession, ...rest];
  },
};
