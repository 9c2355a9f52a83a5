import { readFileSync } from 'node:fs';
import { constants, homedir } from 'node:os';
import { connectDetailed, type ClippyClient } from '@clippy/client/lean';
import { configDir } from '@clippy/protocol';
import type { CompletionSpec, SpecCommand, SpecOption } from './spec.js';

/**
 * `clippy __complete SHELL -- WORD…`: what the completion scripts (completion/scripts.ts) call
 * on TAB. The words are the command line after `clippy` up to the cursor, the last one being
 * the word under it (maybe empty). Prints one candidate a line (`value<TAB>description` for zsh
 * and fish), or the single line `:files` when the shell should complete file names
 * (`:files<TAB>--option=` for what follows the `=` of an `--option=FILE` word). A word
 * `--option=VALUE` gets candidates `--option=…`. Session names and turn IDs come from the
 * daemon already running: nothing is started, no host is reached over SSH, and any failure
 * prints nothing.
 */

/** Longest a TAB may wait for the daemon: a person notices a pause beyond this. */
export const COMPLETE_TIMEOUT_MS = 1_000;
/** What the scripts read as "complete file names here". */
export const FILES_DIRECTIVE = ':files';

interface Candidate {
  value: string;
  description?: string;
}

type Want =
  | { kind: 'none' }
  | { kind: 'files' }
  | { kind: 'words'; words: Candidate[] }
  | { kind: 'sessions'; which: 'live' | 'exited' | 'any'; list?: boolean }
  | { kind: 'ref' }
  | { kind: 'routes' }
  | { kind: 'presets' }
  | { kind: 'hosts' };

/** Options whose value is a file or directory name. */
const FILE_OPTIONS = new Set([
  'socket',
  'cwd',
  'plan',
  'output',
  'report',
  'execution-report',
  'flight-plan',
  'path',
  'include',
  'exclude',
]);
/** `--option=VALUE` (or `-o=VALUE`): the option's name, and the part up to the `=`. */
const INLINE_VALUE = /^(--?([^=]+)=)/su;
/** Options whose value is a live session (`relay --focused-to`, `replay --into`). */
const LIVE_SESSION_OPTIONS = new Set(['focused-to', 'into']);
/** Commands whose SESSION is any session, exited ones included (`rm` takes exited ones only). */
const ANY_SESSION_COMMANDS = new Set(['turns', 'snapshot', 'report', 'replay']);

function loadSpec(): CompletionSpec {
  return JSON.parse(
    readFileSync(new URL('./completion-spec.json', import.meta.url), 'utf8'),
  ) as CompletionSpec;
}

function findOption(options: SpecOption[], name: string): SpecOption | undefined {
  return options.find((o) => o.name === name || o.aliases.includes(name));
}

function findCommand(commands: SpecCommand[], name: string): SpecCommand | undefined {
  return commands.find((c) => c.name === name || c.aliases.includes(name));
}

/** What an option's value is. */
function optionWant(cmd: SpecCommand | undefined, o: SpecOption): Want {
  if (o.choices) return { kind: 'words', words: o.choices.map((value) => ({ value })) };
  if (FILE_OPTIONS.has(o.name) || o.aliases.some((a) => FILE_OPTIONS.has(a)))
    return { kind: 'files' };
  if (o.name === 'preset') return { kind: 'presets' };
  if (o.name === 'after') return { kind: 'ref' }; // `wait --after TURN`
  if (o.name === 'host') return { kind: 'hosts' };
  if (o.name === 'signal')
    return {
      kind: 'words',
      words: Object.keys(constants.signals).map((s) => ({ value: s.replace(/^SIG/, '') })),
    };
  if (LIVE_SESSION_OPTIONS.has(o.name)) return { kind: 'sessions', which: 'live' };
  // `--session S` names an existing session, but a new one for `navigate`.
  if (o.name === 'session' && cmd?.name !== 'navigate')
    return { kind: 'sessions', which: cmd?.name === 'search' ? 'any' : 'live' };
  return { kind: 'none' };
}

/** What a positional argument is, by its name in the command's usage. */
function positionalWant(path: SpecCommand[], name: string): Want {
  const top = path[0]!.name;
  switch (name) {
    case 'session':
      if (top === 'rm') return { kind: 'sessions', which: 'exited' };
      return { kind: 'sessions', which: ANY_SESSION_COMMANDS.has(top) ? 'any' : 'live' };
    case 'ref':
    case 'from':
      return { kind: 'ref' };
    case 'to':
    case 'a':
    case 'b':
      return { kind: 'sessions', which: 'live' };
    case 'sources':
      return { kind: 'sessions', which: 'live', list: true };
    case 'route':
      return { kind: 'routes' };
    case 'path':
    case 'command':
      return { kind: 'files' };
    default:
      return { kind: 'none' };
  }
}

interface Parsed {
  want: Want;
  /** The word under the cursor is `--option=VALUE`: this is `--option=`, put back before each
   * candidate for VALUE (the shells replace the whole word, or only what follows the `=`). */
  valuePrefix?: string;
  /** `--socket` and `--host` given on the line (they choose the daemon asked). */
  socket?: string;
  host?: string;
}

/** Reads the words before the cursor: which command, which option awaits a value, which positional. */
export function parseLine(spec: CompletionSpec, words: string[], cur: string): Parsed {
  const path: SpecCommand[] = [];
  const positionals: string[] = [];
  let pending: SpecOption | undefined;
  let afterDashDash = false;
  const given: { socket?: string; host?: string } = {};
  const optionsHere = () => [...(path.at(-1)?.options ?? []), ...spec.globalOptions];
  for (const w of words) {
    if (pending) {
      if (pending.name === 'socket' || pending.name === 'host') given[pending.name] = w;
      pending = undefined;
    } else if (afterDashDash) positionals.push(w);
    else if (w === '--') afterDashDash = true;
    else if (w.startsWith('-') && w !== '-') {
      const [name, value] = w.replace(/^--?/, '').split(/=(.*)/s) as [string, string?];
      const o = findOption(optionsHere(), name.replace(/^no-/, ''));
      if (o?.takesValue && value === undefined) pending = o;
      else if (o && value !== undefined && (o.name === 'socket' || o.name === 'host'))
        given[o.name] = value;
    } else {
      const here = path.at(-1);
      const next =
        here === undefined
          ? findCommand(spec.commands, w)
          : positionals.length === 0
            ? findCommand(here.subcommands, w)
            : undefined;
      if (next) path.push(next);
      else if (here === undefined) return { want: { kind: 'none' } };
      else positionals.push(w);
    }
  }
  const cmd = path.at(-1);
  const result = (want: Want): Parsed => ({ want, ...given });
  if (pending) return result(optionWant(cmd, pending));
  if (afterDashDash) return result({ kind: 'files' });
  const inline = INLINE_VALUE.exec(cur);
  if (inline) {
    const o = findOption(optionsHere(), inline[2]!);
    if (!o?.takesValue) return result({ kind: 'none' });
    return { ...result(optionWant(cmd, o)), valuePrefix: inline[1]! };
  }
  if (cur.startsWith('-')) {
    const words: Candidate[] = [];
    for (const o of cmd ? [...cmd.options] : spec.globalOptions) {
      words.push({ value: `--${o.name}`, description: o.description });
      if (o.negatable) words.push({ value: `--no-${o.name}`, description: o.description });
    }
    if (cmd && path.length === 1 && !cmd.options.some((o) => o.name === 'host'))
      words.push({ value: '--host', description: 'run against the daemon on HOST through SSH' });
    return result({ kind: 'words', words });
  }
  if (!cmd)
    return result({
      kind: 'words',
      words: spec.commands.flatMap((c) =>
        [c.name, ...c.aliases].map((value) => ({ value, description: c.description })),
      ),
    });
  if (cmd.subcommands.length > 0 && positionals.length === 0 && cmd.positionals.length === 0)
    return result({
      kind: 'words',
      words: cmd.subcommands.map((c) => ({ value: c.name, description: c.description })),
    });
  const at = cmd.positionals[Math.min(positionals.length, cmd.positionals.length - 1)];
  if (!at || (positionals.length >= cmd.positionals.length && !at.variadic))
    return result({ kind: 'none' });
  if (at.choices) return result({ kind: 'words', words: at.choices.map((value) => ({ value })) });
  return result(positionalWant(path, at.name));
}

/** A JSON settings file's top-level object, or {} (completion never reports a broken file). */
function readJsonObject(file: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

async function withDaemon<T>(
  parsed: Parsed,
  env: NodeJS.ProcessEnv,
  fn: (c: ClippyClient) => Promise<T>,
): Promise<T | undefined> {
  // Another machine's sessions would take an SSH connection per TAB: not offered.
  if (parsed.host !== undefined || env.CLIPPY_HOST) return undefined;
  const { client } = await connectDetailed({
    ...(parsed.socket ? { socket: parsed.socket } : {}),
    env,
    transport: 'unix',
  });
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

const REQUEST = { timeoutMs: COMPLETE_TIMEOUT_MS };

/** The candidates for what the line wants (files: undefined). */
async function candidates(
  spec: CompletionSpec,
  parsed: Parsed,
  cur: string,
  env: NodeJS.ProcessEnv,
): Promise<Candidate[] | undefined> {
  const want = parsed.want;
  switch (want.kind) {
    case 'none':
      return [];
    case 'files':
      return undefined;
    case 'words':
      return want.words;
    case 'presets': {
      const user = readJsonObject(`${configDir(env, homedir())}/presets.json`);
      return [...new Set([...spec.presets, ...Object.keys(user)])].map((value) => ({ value }));
    }
    case 'hosts': {
      const hosts = readJsonObject(`${configDir(env, homedir())}/config.json`).hosts;
      const names = hosts && typeof hosts === 'object' ? Object.keys(hosts) : [];
      return ['local', ...names].map((value) => ({ value }));
    }
    case 'routes':
      return (
        (await withDaemon(parsed, env, async (c) => {
          const { routes } = await c.request('list_routes', {}, REQUEST);
          return routes.map((r) => ({ value: r.route, description: `${r.from} → ${r.to}` }));
        })) ?? []
      );
    case 'ref': {
      const colon = cur.lastIndexOf(':');
      if (colon < 0) return sessions(parsed, env, 'any', '');
      const session = cur.slice(0, colon);
      return (
        (await withDaemon(parsed, env, async (c) => {
          const { turns } = await c.request('list_turns', { session }, REQUEST);
          return turns.map((t) => ({
            value: `${session}:${t.seq}`,
            description: t.prompt.replace(/\s+/g, ' ').slice(0, 60),
          }));
        })) ?? []
      );
    }
    case 'sessions': {
      const prefix = want.list ? cur.slice(0, cur.lastIndexOf(',') + 1) : '';
      return sessions(parsed, env, want.which, prefix);
    }
  }
}

async function sessions(
  parsed: Parsed,
  env: NodeJS.ProcessEnv,
  which: 'live' | 'exited' | 'any',
  prefix: string,
): Promise<Candidate[]> {
  return (
    (await withDaemon(parsed, env, async (c) => {
      const { sessions: all } = await c.request('list_sessions', {}, REQUEST);
      return all
        .filter((s) => which === 'any' || (s.state === 'exited') === (which === 'exited'))
        .map((s) => ({
          value: `${prefix}${s.name}`,
          description: `${s.state} ${[s.command, ...s.args].join(' ')}`.slice(0, 60),
        }));
    })) ?? []
  );
}

/** Runs `__complete`: prints the candidates, or nothing when anything goes wrong. */
export async function runComplete(args: readonly string[]): Promise<void> {
  const dashes = args.indexOf('--');
  const shell = args[0];
  const words = dashes < 0 ? [] : args.slice(dashes + 1);
  const word = words.pop() ?? '';
  const timer = setTimeout(() => process.exit(0), COMPLETE_TIMEOUT_MS);
  timer.unref();
  let out: Candidate[] | undefined;
  let prefix = '';
  let cur = word;
  try {
    const spec = loadSpec();
    const parsed = parseLine(spec, words, word);
    prefix = parsed.valuePrefix ?? '';
    cur = word.slice(prefix.length);
    out = await candidates(spec, parsed, cur, process.env);
  } catch {
    return;
  } finally {
    clearTimeout(timer);
  }
  if (out === undefined) {
    // File names for what follows `--option=`: the script completes them and puts it back.
    process.stdout.write(`${FILES_DIRECTIVE}${prefix ? `\t${prefix}` : ''}\n`);
    return;
  }
  const describe = shell === 'zsh' || shell === 'fish';
  const lines = out
    .filter((c) => c.value.startsWith(cur))
    .map((c) =>
      describe && c.description
        ? `${prefix}${c.value}\t${c.description.replace(/[\t\n]/g, ' ')}`
        : `${prefix}${c.value}`,
    );
  if (lines.length > 0) process.stdout.write(`${[...new Set(lines)].join('\n')}\n`);
}
