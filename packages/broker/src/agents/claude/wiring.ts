import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { optionValue, shellWord, withoutOptions } from '../args.js';
import { obj, type Json } from '../records.js';
import type { WireContext, Wiring } from '../types.js';

/**
 * The hook events clippy wires: the session (its ID and transcript), each prompt taken, each
 * turn's end, and a turn ended by an API error. Claude Code runs no hook on an Esc interrupt:
 * those turns come from the screen.
 */
export const CLAUDE_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop', 'StopFailure'];

/** Seconds Claude Code gives the hook before it stops it (the entry gives up sooner itself). */
const HOOK_TIMEOUT_S = 30;

/**
 * The hooks of a turn run `async` (Claude Code 2.1.197: "runs in background without blocking"):
 * clippy's hooks only report, so Claude Code need not wait for them. Waited for, the Stop hook's
 * start (a node process: 1.3 s on a loaded machine) came before Claude Code drew its prompt, so
 * before the screen could complete the turn: on the path of every `ask`. The join still holds
 * the screen's turn until the report comes (CHANNEL_WAIT_MS) — once the channel is known to
 * work, which SessionStart's report tells. That one is waited for: a SessionStart hook's output
 * is context for the model, so Claude Code runs it before its first request, and the daemon
 * knows the session before any answer can end. Run in the background, under load none of the
 * hooks had come when a quick first answer was on the screen, and its turn kept the screen's
 * text. It costs one hook's run at the session's start (and after /clear), not on any turn.
 */
const WAITED_FOR = new Set(['SessionStart']);

/**
 * Claude Code's channel is wired with `--settings` (settings for this run only, merged with the
 * user's own: their hooks run too): one command hook per event, running clippy's hook entry.
 * A `--settings` the user gave (JSON or a file) is kept, with clippy's hooks added to it.
 */
export function wireClaude(ctx: WireContext): Wiring {
  const given = optionValue(ctx.args, ['--settings']);
  let settings: Json = {};
  if (given !== undefined) {
    try {
      const text = given.trimStart().startsWith('{')
        ? given
        : readFileSync(resolve(ctx.cwd, given), 'utf8');
      settings = obj(JSON.parse(text)) ?? {};
    } catch (err) {
      return { skipped: `its --settings could not be read (${(err as Error).message})` };
    }
  }
  const hooks: Json = { ...(obj(settings.hooks) ?? {}) };
  for (const event of CLAUDE_HOOK_EVENTS) {
    const theirs = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    const command = ctx.hook(event).map(shellWord).join(' ');
    const hook = {
      type: 'command',
      command,
      timeout: HOOK_TIMEOUT_S,
      async: !WAITED_FOR.has(event),
    };
    hooks[event] = [...theirs, { hooks: [hook] }];
  }
  return {
    args: [
      '--settings',
      JSON.stringify({ ...settings, hooks }),
      ...withoutOptions(ctx.args, ['--settings']),
    ],
    env: ctx.env,
  };
}

/** `claude --resume ID` with the original options (but those choosing a conversation). */
export function claudeResumeArgs(args: string[], agentSession: string): string[] {
  const rest = withoutOptions(
    args,
    ['--resume', '-r', '--continue', '-c', '--session-id', '--fork-session'],
    (n) => n === '--resume' || n === '-r' || n === '--session-id',
  );
  return ['--resume', agentSession, ...rest];
}
