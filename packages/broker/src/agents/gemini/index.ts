import { randomUUID } from 'node:crypto';
import { optionValue, withoutOptions } from '../args.js';
import type { AgentDefinition, WireContext, Wiring } from '../types.js';
import { GeminiChannel } from './channel.js';

/** A Gemini CLI session ID as `--resume` and `--session-id` take it. */
const SESSION_ID = /^[A-Za-z0-9_-]+$/u;

/**
 * Gemini CLI is started with `--session-id` (a new UUID), so its chat file is known; a command
 * line that names the session itself (`--session-id`, `--resume ID`) keeps it, and one that
 * does not say which (`--resume latest`, `--session-file`) is not wired.
 */
function wireGemini(ctx: WireContext): Wiring {
  const given =
    optionValue(ctx.args, ['--session-id']) ?? optionValue(ctx.args, ['--resume', '-r']);
  if (given !== undefined) {
    if (!SESSION_ID.test(given) || given === 'latest' || /^\d+$/u.test(given))
      return { skipped: `its session (${given}) is not named by an ID` };
    return { args: ctx.args, env: ctx.env, agentSession: given };
  }
  if (optionValue(ctx.args, ['--session-file']) !== undefined)
    return { skipped: 'it loads its session from a file' };
  const id = randomUUID();
  return { args: ['--session-id', id, ...ctx.args], env: ctx.env, agentSession: id };
}

/** Gemini CLI: its chat file (by `--session-id`), `--resume ID`. */
export const gemini: AgentDefinition = {
  agent: 'gemini',
  identity: { bins: ['gemini'], packages: ['@google/gemini-cli'] },
  wire: wireGemini,
  channel: (ctx) => new GeminiChannel(ctx),
  resumeArgs: (args, agentSession) => [
    '--resume',
    agentSession,
    ...withoutOptions(args, ['--resume', '-r', '--session-id', '--session-file']),
  ],
};
