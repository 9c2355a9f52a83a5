import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hasOption, shellWord, withoutOptions } from '../args.js';
import { obj, type Json } from '../records.js';
import type { WireContext, Wiring } from '../types.js';

/**
 * The hook events clippy wires: the session (its ID and transcript), each prompt taken, each
 * turn's end, and a turn ended by an API error. `Notification` (`idle_prompt` a second after a
 * turn, `permission_prompt` at a dialog) is not: the screen and the window title say both
 * sooner, and the hook's process start would only come later.
 */
export const QWEN_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop', 'StopFailure'];

/** The variable naming Qwen Code's system defaults file (its lowest-priority settings). */
export const QWEN_DEFAULTS_VAR = 'QWEN_CODE_SYSTEM_DEFAULTS_PATH';

/** Seconds Qwen Code gives the hook before it stops it (the entry gives up sooner itself). */
const HOOK_TIMEOUT_S = 30;

/**
 * The hooks run `async` (Qwen Code starts them in the background and goes on): clippy's hooks
 * only report, and a `Stop` hook it waited for would come between the answer and its prompt.
 */
const HOOK_ASYNC = true;

/** The settings format of 0.24 (`$version`): a file without it is rewritten by Qwen Code. */
const SETTINGS_VERSION = 4;

/** Options that run Qwen Code without hooks. */
const NO_HOOKS = ['--bare', '--safe-mode'];

/** Where Qwen Code reads its system settings (`QWEN_CODE_SYSTEM_SETTINGS_PATH`, else per OS). */
function systemSettingsPath(env: Record<string, string>): string {
  if (env.QWEN_CODE_SYSTEM_SETTINGS_PATH) return env.QWEN_CODE_SYSTEM_SETTINGS_PATH;
  if (process.platform === 'darwin') return '/Library/Application Support/QwenCode/settings.json';
  if (process.platform === 'win32') return 'C:\\ProgramData\\qwen-code\\settings.json';
  return '/etc/qwen-code/settings.json';
}

/** The system defaults file Qwen Code would read for this environment (it may not exist). */
export function qwenSystemDefaultsPath(env: Record<string, string>): string {
  return env[QWEN_DEFAULTS_VAR] || join(dirname(systemSettingsPath(env)), 'system-defaults.json');
}

/**
 * Qwen Code's channel is wired with `QWEN_CODE_SYSTEM_DEFAULTS_PATH` (read at start; this run's
 * environment only): a file of clippy's own, in the daemon's private folder, holding the system
 * defaults the run would have read (that file's settings, copied) with clippy's command hooks
 * added to its `hooks`. Qwen Code runs system hooks beside the user's and the project's (its
 * settings.json files, never edited), without asking and whatever the file's owner (checked in
 * its 0.24.4 source: `getSystemHooks` merges the defaults' and the system file's hooks). The file
 * goes with the session (the channel's files).
 */
export function wireQwen(ctx: WireContext): Wiring {
  if (hasOption(ctx.args, NO_HOOKS))
    return { skipped: 'it runs without hooks (--bare, --safe-mode)' };
  if (!ctx.dir) return { skipped: 'the daemon has no folder for its settings file' };
  const theirs = qwenSystemDefaultsPath(ctx.env);
  let settings: Json = {};
  try {
    settings = obj(JSON.parse(readFileSync(theirs, 'utf8'))) ?? {};
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      return {
        skipped: `its system defaults ${theirs} could not be read (${(err as Error).message})`,
      };
  }
  const hooks: Json = { ...(obj(settings.hooks) ?? {}) };
  for (const event of QWEN_HOOK_EVENTS) {
    const theirHooks = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    const command = ctx.hook(event).map(shellWord).join(' ');
    const hook = { type: 'command', command, timeout: HOOK_TIMEOUT_S, async: HOOK_ASYNC };
    hooks[event] = [...theirHooks, { hooks: [hook] }];
  }
  const file = join(ctx.dir, `qwen-${ctx.session}-${randomBytes(4).toString('hex')}.json`);
  try {
    mkdirSync(ctx.dir, { recursive: true, mode: 0o700 });
    writeFileSync(
      file,
      `${JSON.stringify({ $version: SETTINGS_VERSION, ...settings, hooks }, null, 2)}\n`,
      { mode: 0o600 },
    );
  } catch (err) {
    return { skipped: `its settings file could not be written (${(err as Error).message})` };
  }
  return { args: ctx.args, env: { ...ctx.env, [QWEN_DEFAULTS_VAR]: file }, files: [file] };
}

/** `qwen --resume ID` with the original options (but those choosing a conversation). */
export function qwenResumeArgs(args: string[], agentSession: string): string[] {
  const rest = withoutOptions(
    args,
    ['--resume', '-r', '--continue', '-c', '--session-id', '--fork-session'],
    (n) => n === '--resume' || n === '-r' || n === '--session-id',
  );
  return ['--resume', agentSession, ...rest];
}
