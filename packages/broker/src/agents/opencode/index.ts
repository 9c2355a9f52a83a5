import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { hasOption, optionValue, withoutOptions } from '../args.js';
import { obj, type Json } from '../records.js';
import type { AgentDefinition, WireContext, Wiring } from '../types.js';
import { OpenCodeChannel } from './channel.js';

/** Where the plugin finds the hook entry's command lines, by event (read in ./plugin.ts). */
export const HOOKS_VAR = 'CLIPPY_OPENCODE_HOOKS';
/** The events the plugin reports. */
export const OPENCODE_HOOK_EVENTS = ['session', 'turn'] as const;

/**
 * The plugin's file: `plugin.js` beside this module in `dist/`; `plugin.ts` when the daemon
 * runs from its sources (OpenCode runs on Bun, which loads TypeScript).
 */
export const OPENCODE_PLUGIN = (() => {
  const js = fileURLToPath(new URL('./plugin.js', import.meta.url));
  return existsSync(js) ? js : fileURLToPath(new URL('./plugin.ts', import.meta.url));
})();

/**
 * OpenCode's commands other than its terminal interface (`opencode [project]`): no session of
 * its own to report (`run` prints one answer and exits, `attach` talks to another's server).
 */
const NOT_THE_TUI = new Set([
  'completion',
  'acp',
  'mcp',
  'attach',
  'run',
  'debug',
  'providers',
  'auth',
  'agent',
  'upgrade',
  'uninstall',
  'serve',
  'web',
  'models',
  'stats',
  'export',
  'import',
  'github',
  'pr',
  'session',
  'plugin',
  'plug',
  'db',
]);

/** Options that pick the conversation: replaced by a revive's `--session ID`. */
const CONVERSATION_OPTIONS = ['--session', '-s', '--continue', '-c', '--fork', '--prompt'];

function truthy(v: string | undefined): boolean {
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/**
 * OpenCode's channel is wired through its environment, for this session only: clippy's plugin
 * is added to OPENCODE_CONFIG_CONTENT (the inline config OpenCode merges over the user's own
 * files: their plugins run too, their files are not touched), with its paste summary off (text
 * typed into it arrives exactly), and the hook entry's command lines go in
 * CLIPPY_OPENCODE_HOOKS, which the plugin reads. A command line that runs without
 * plugins (`--pure`), or is not OpenCode's terminal interface, is not wired.
 */
function wireOpenCode(ctx: WireContext): Wiring {
  if (hasOption(ctx.args, ['--pure']) || truthy(ctx.env.OPENCODE_PURE))
    return { skipped: 'it runs without plugins (--pure)' };
  const sub = ctx.args[0];
  if (sub !== undefined && NOT_THE_TUI.has(sub))
    return { skipped: `\`opencode ${sub}\` is not its terminal interface` };
  let content: Json = {};
  const theirs = ctx.env.OPENCODE_CONFIG_CONTENT;
  if (theirs !== undefined && theirs.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(theirs);
    } catch (err) {
      return {
        skipped: `its OPENCODE_CONFIG_CONTENT could not be read (${(err as Error).message})`,
      };
    }
    const o = obj(parsed);
    if (!o) return { skipped: 'its OPENCODE_CONFIG_CONTENT is not a JSON object' };
    content = o;
  }
  const plugins = Array.isArray(content.plugin) ? (content.plugin as unknown[]) : [];
  const experimental = obj(content.experimental) ?? {};
  const hooks = Object.fromEntries(OPENCODE_HOOK_EVENTS.map((e) => [e, ctx.hook(e)]));
  const session = optionValue(ctx.args, ['--session', '-s']);
  return {
    args: ctx.args,
    env: {
      ...ctx.env,
      OPENCODE_CONFIG_CONTENT: JSON.stringify({
        ...content,
        plugin: [...plugins, pathToFileURL(OPENCODE_PLUGIN).href],
        // A paste of 3 lines or more is otherwise kept as a "[Pasted ~N lines]" summary, which
        // OpenCode sends trimmed and followed by a space: a relayed answer would not arrive
        // exactly. (Its own toggle in the TUI still wins.)
        experimental: { disable_paste_summary: true, ...experimental },
      }),
      [HOOKS_VAR]: JSON.stringify(hooks),
    },
    ...(session && !hasOption(ctx.args, ['--fork']) ? { agentSession: session } : {}),
  };
}

/** OpenCode: clippy's plugin (through OPENCODE_CONFIG_CONTENT), `--session ID`. */
export const opencode: AgentDefinition = {
  agent: 'opencode',
  identity: { bins: ['opencode'], packages: ['opencode-ai'] },
  wire: wireOpenCode,
  channel: (ctx) => new OpenCodeChannel(ctx),
  resumeArgs: (args, agentSession) => [
    '--session',
    agentSession,
    ...withoutOptions(
      args,
      CONVERSATION_OPTIONS,
      (n) => n === '--session' || n === '-s' || n === '--prompt',
    ),
  ],
};
