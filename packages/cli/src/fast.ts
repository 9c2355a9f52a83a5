import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { AnyCommand } from './commands/index.js';
import capture from './commands/capture.js';
import diff from './commands/diff.js';
import ls from './commands/ls.js';
import paste from './commands/paste.js';
import relay from './commands/relay.js';
import send from './commands/send.js';
import show from './commands/show.js';
import turns from './commands/turns.js';
import { reportError } from './errors.js';
import { EXIT } from './exit-codes.js';
import { commandWords, recordBuilder, type CommandWord } from './yargs-recorder.js';

/**
 * The fast path of the commands run dozens of times an hour: a well-formed command line of one
 * of them is parsed with node's own parseArgs and run without loading yargs (nor, through the
 * lean client, zod): those two took most of a `clippy ls`. The commands' yargs builders stay
 * the only description of their options: they are run against a recorder. Anything the recorder
 * or this parser does not model exactly (help, a usage error, an array option, `--`...) goes to
 * yargs, which then answers as it always did.
 */
const FAST: readonly AnyCommand[] = [ls, send, show, capture, paste, relay, turns, diff];

interface OptionSpec {
  type: 'boolean' | 'string' | 'number' | 'array';
  modelled: boolean;
  aliases: string[];
  default?: unknown;
  /** The option's `coerce` (e.g. intOption's check): a value it refuses is yargs' to explain. */
  coerce?: (value: unknown) => unknown;
}

interface PositionalSpec extends CommandWord {
  type?: string;
}

interface CommandSpec {
  options: Map<string, OptionSpec>;
  positionals: PositionalSpec[];
  conflicts: [string, string][];
}

/** Option settings the fast parser reproduces; any other (choices, coerce...) means "use yargs". */
const MODELLED_KEYS = new Set([
  'type',
  'alias',
  'describe',
  'description',
  'requiresArg',
  'demandOption',
  'default',
  'string',
  'hidden',
  'coerce',
]);
/** Builder calls that only shape help text. */
const HELP_ONLY = new Set(['example', 'usage', 'epilogue', 'epilog', 'group']);

/** Runs a command's builder against a recorder; null when it uses something not modelled. */
function recordSpec(cmd: AnyCommand): CommandSpec | null {
  const spec: CommandSpec = {
    options: new Map(),
    positionals: commandWords(cmd).positionals,
    conflicts: [],
  };
  let unsupported = false;
  recordBuilder(cmd, {
    option(name, cfg) {
      const type = cfg.type as OptionSpec['type'] | undefined;
      // An option set up beyond what is modelled (choices, coerce...) sends the lines that use
      // it to yargs; with a default it would change every line: then the command is yargs' alone.
      const modelled =
        Object.keys(cfg).every((k) => MODELLED_KEYS.has(k)) &&
        type !== undefined &&
        ['boolean', 'string', 'number', 'array'].includes(type);
      if (!modelled && 'default' in cfg) unsupported = true;
      // yargs coerces a default too, in its own order: such a command is yargs' alone.
      if (typeof cfg.coerce === 'function' && 'default' in cfg) unsupported = true;
      const alias = cfg.alias;
      spec.options.set(name, {
        type: type ?? 'string',
        modelled,
        aliases: alias === undefined ? [] : ([] as string[]).concat(alias as string | string[]),
        ...('default' in cfg ? { default: cfg.default } : {}),
        ...(typeof cfg.coerce === 'function'
          ? { coerce: cfg.coerce as (value: unknown) => unknown }
          : {}),
      });
    },
    positional(name, cfg) {
      const p = spec.positionals.find((x) => x.name === name);
      if (!p || Object.keys(cfg).some((k) => !MODELLED_KEYS.has(k))) unsupported = true;
      else if (typeof cfg.type === 'string') p.type = cfg.type;
    },
    command() {
      unsupported = true;
    },
    other(method, args) {
      if (method === 'conflicts' && typeof args[0] === 'string')
        spec.conflicts.push([args[0], args[1] as string]);
      else if (!HELP_ONLY.has(method)) unsupported = true;
    },
  });
  return unsupported ? null : spec;
}

const camel = (s: string) => s.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * The arguments yargs would hand the command's handler for this command line, or null when the
 * line needs yargs (to explain a mistake, to print help, or a form not modelled here).
 */
function parseFast(cmd: AnyCommand, spec: CommandSpec, rest: string[]): object | null {
  if (rest.includes('--')) return null;
  const options: NonNullable<ParseArgsConfig['options']> = {};
  const owner = new Map<string, string>();
  const values: Record<string, unknown> = {};
  const args: string[] = [];
  for (const [name, o] of spec.options) {
    for (const n of [name, ...o.aliases]) {
      owner.set(n, name);
      if (n.length === 1) continue;
      const short = o.aliases.find((a) => a.length === 1);
      options[n] = {
        type: o.type === 'boolean' ? 'boolean' : 'string',
        ...(n === name && short ? { short } : {}),
      };
    }
  }
  for (const word of rest) {
    // `--no-x` of a boolean (parseArgs of node 20 has no negation).
    const negated = /^--no-(.+)$/.exec(word)?.[1];
    const target = negated === undefined ? undefined : owner.get(negated);
    const negatable = target !== undefined && spec.options.get(target)!;
    if (negatable && negatable.type === 'boolean' && negatable.modelled) {
      if (target! in values) return null;
      values[target!] = false;
    } else args.push(word);
  }
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true, tokens: true });
  } catch {
    return null;
  }
  const seen = new Set<string>(Object.keys(values));
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option') continue;
    const name = owner.get(token.name)!;
    const o = spec.options.get(name)!;
    // A repeated option (yargs makes an array of it) or an array option: yargs' own rules apply.
    if (seen.has(name) || o.type === 'array' || !o.modelled) return null;
    seen.add(name);
    const raw = token.value;
    if (o.type === 'boolean') values[name] = true;
    else if (o.type === 'number') {
      const n = Number(raw);
      if (raw === undefined || raw === '' || Number.isNaN(n)) return null;
      values[name] = n;
    } else values[name] = raw;
    if (o.coerce) {
      try {
        values[name] = o.coerce(values[name]);
      } catch {
        return null;
      }
    }
  }
  // yargs reads a `true`/`false` after a boolean flag as its value: leave such lines to it.
  for (let i = 0; i < args.length - 1; i++) {
    const name = owner.get(args[i]!.replace(/^--?/, ''));
    if (
      name &&
      args[i]!.startsWith('-') &&
      spec.options.get(name)!.type === 'boolean' &&
      /^(true|false)$/.test(args[i + 1]!)
    )
      return null;
  }
  // yargs reads a lone `-` as '' (commands that take `-` for stdin look at process.argv).
  const words = parsed.positionals.map((w) => (w === '-' ? '' : w));
  const required = spec.positionals.filter((p) => p.required).length;
  const variadic = spec.positionals.some((p) => p.variadic);
  if (words.length < required || (!variadic && words.length > spec.positionals.length)) return null;
  for (const [a, b] of spec.conflicts) if (seen.has(a) && seen.has(b)) return null;
  const argv: Record<string, unknown> = { _: [String(cmd.command).split(' ')[0]], $0: 'clippy' };
  spec.positionals.forEach((p, i) => {
    const value = p.variadic ? words.slice(i) : words[i];
    if (value === undefined) return;
    argv[p.name] = value;
    argv[camel(p.name)] = value;
  });
  // Positionals are all strings here; a command with typed ones is left to yargs.
  if (spec.positionals.some((p) => p.type !== undefined && p.type !== 'string')) return null;
  for (const [name, o] of spec.options) {
    const value = name in values ? values[name] : o.default;
    if (value === undefined) continue;
    for (const n of [name, ...o.aliases]) {
      argv[n] = value;
      argv[camel(n)] = value;
    }
  }
  return argv;
}

/**
 * The fast command and its handler's arguments for this command line, or null when the full
 * CLI (yargs) must handle it.
 */
export function fastArgs(argv: readonly string[]): { cmd: AnyCommand; args: object } | null {
  const [first, ...rest] = argv;
  if (first === undefined) return null;
  const cmd = FAST.find(
    (c) =>
      String(c.command).split(' ')[0] === first ||
      ([] as string[]).concat(c.aliases ?? []).includes(first),
  );
  const spec = cmd && recordSpec(cmd);
  const args = spec && parseFast(cmd, spec, rest);
  return args ? { cmd: cmd!, args } : null;
}

/**
 * Runs the command line on the fast path when it can: the exit code, or undefined when the
 * full CLI must handle it. Nothing is read or written before that is decided.
 */
export async function runFast(argv: readonly string[]): Promise<number | undefined> {
  const fast = fastArgs(argv);
  if (!fast) return undefined;
  try {
    await fast.cmd.handler(fast.args as never);
  } catch (err) {
    return reportError(err);
  }
  return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
}
