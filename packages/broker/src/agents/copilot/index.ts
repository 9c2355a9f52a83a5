import { randomUUID } from 'node:crypto';
import { hasOption, optionValue } from '../args.js';
import type { AgentDefinition, WireContext, Wiring } from '../types.js';
import { CopilotChannel } from './channel.js';

/** A session ID as Copilot CLI makes them (a UUID): `--session-id` and `--resume` take it. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/iu;

/** Its commands other than its interactive interface: no session of its own to read. */
const NOT_THE_TUI = new Set([
  'app',
  'login',
  'help',
  'init',
  'config',
  'update',
  'version',
  'workflow',
  'sessions',
  'memories',
  'plugin',
  'mcp',
  'skill',
  'instruction',
  'lsp',
  'sandbox',
  'completion',
]);

/**
 * Copilot CLI is started with `--session-id <new UUID>`, so its events file is known; a command
 * line that names its session by ID (`--session-id`, `--resume ID`) keeps it, and one that does
 * not say which (`--continue`, `--resume` alone, a name or a prefix) is not wired, nor a
 * non-interactive run (`-p`, `--acp`) or a command other than its interface.
 */
function wireCopilot(ctx: WireContext): Wiring {
  const sub = ctx.args[0];
  if (sub !== undefined && NOT_THE_TUI.has(sub))
    return { skipped: `\`copilot ${sub}\` is not its interactive interface` };
  if (hasOption(ctx.args, ['-p', '--prompt', '--acp']))
    return { skipped: 'it does not run its interactive interface (-p, --acp)' };
  if (hasOption(ctx.args, ['--continue'])) return { skipped: 'it resumes its latest session' };
  const given = optionValue(ctx.args, ['--session-id']) ?? resumed(ctx.args);
  if (given !== undefined) {
    if (!SESSION_ID.test(given)) return { skipped: `its session (${given}) is not named by an ID` };
    return { args: ctx.args, env: ctx.env, agentSession: given };
  }
  if (hasOption(ctx.args, ['--resume', '-r']))
    return { skipped: 'it picks the session to resume itself' };
  const id = randomUUID();
  return { args: ['--session-id', id, ...ctx.args], env: ctx.env, agentSession: id };
}

/** The value of `--resume` / `-r`, which takes one optionally: undefined when none is given. */
function resumed(args: readonly string[]): string | undefined {
  const v = optionValue(args, ['--resume', '-r']);
  return v === undefined || v.startsWith('-') ? undefined : v;
}

/** Options that pick the conversation or start it with a prompt: a revive names its session. */
function withoutConversation(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      out.push(...args.slice(i));
      break;
    }
    if (a === '--continue' || /^(?:--session-id|--resume|-r|-i|--interactive)=/u.test(a)) continue;
    if (a === '--session-id' || a === '-i' || a === '--interactive') {
      i++;
      continue;
    }
    if (a === '--resume' || a === '-r') {
      if (args[i + 1] !== undefined && !args[i + 1]!.startsWith('-')) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** Copilot CLI: its session's events file (by `--session-id`), resumed with `--session-id ID`. */
export const copilot: AgentDefinition = {
  agent: 'copilot',
  identity: { bins: ['copilot'], packages: ['@github/copilot'] },
  wire: wireCopilot,
  channel: (ctx) => new CopilotChannel(ctx),
  resumeArgs: (args, agentSession) => ['--session-id', agentSession, ...withoutConversation(args)],
};
