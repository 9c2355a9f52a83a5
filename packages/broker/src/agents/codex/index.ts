import { hasOption } from '../args.js';
import type { AgentDefinition, WireContext, Wiring } from '../types.js';
import { CodexChannel } from './channel.js';

/**
 * Codex's channel is wired with `-c notify=[…]` (this run's config only): its notify program
 * is clippy's hook entry. A `notify` the user set in their config.toml is replaced for this
 * session (Codex runs one); `--no-agent-channel` keeps theirs.
 */
function wireCodex(ctx: WireContext): Wiring {
  if (ctx.args.some((a) => /^notify\s*=/u.test(a)) && hasOption(ctx.args, ['-c', '--config']))
    return { skipped: 'its command line sets notify itself' };
  return {
    args: ['-c', `notify=${JSON.stringify(ctx.hook('notify'))}`, ...ctx.args],
    env: ctx.env,
  };
}

/** Codex: `notify`, the rollout it names, `codex resume ID`. */
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
