import type { AnyCommand } from '../commands/index.js';

/**
 * What shell completion knows of the command line: every command, its subcommands, positionals
 * and options, read from the commands' own yargs builders (run against a recorder) when the CLI
 * is built, and written to dist/completion-spec.json. `clippy __complete` reads that file
 * instead of loading every command module (which costs a few hundred ms a TAB).
 */

export interface SpecOption {
  name: string;
  /** Other names (`-q` for `--quiet`). */
  aliases: string[];
  /** Takes a value (`--name N`), unlike a flag. */
  takesValue: boolean;
  description: string;
  choices?: string[];
  /** A flag that is on by default: `--no-NAME` turns it off. */
  negatable?: boolean;
}

export interface SpecPositional {
  name: string;
  variadic: boolean;
  choices?: string[];
}

export interface SpecCommand {
  name: string;
  aliases: string[];
  description: string;
  positionals: SpecPositional[];
  options: SpecOption[];
  subcommands: SpecCommand[];
}

export interface CompletionSpec {
  commands: SpecCommand[];
  /** Options every command takes (`--help`), and those before a command (`--version`). */
  globalOptions: SpecOption[];
  /** The built-in presets' names (`--preset`); the user's come from presets.json at TAB time. */
  presets: string[];
}

/** Options yargs adds to every command. */
const HELP: SpecOption = {
  name: 'help',
  aliases: ['h'],
  takesValue: false,
  description: 'show help',
};

function optionOf(name: string, cfg: Record<string, unknown>): SpecOption | null {
  if (cfg.hidden === true) return null;
  const type = cfg.type as string | undefined;
  const flag = type === 'boolean' || cfg.boolean === true || type === 'count';
  const describe = cfg.describe ?? cfg.description ?? '';
  return {
    name,
    aliases: ([] as string[]).concat((cfg.alias as string | string[] | undefined) ?? []),
    takesValue: !flag,
    description: typeof describe === 'string' ? describe : '',
    ...(Array.isArray(cfg.choices) ? { choices: (cfg.choices as unknown[]).map(String) } : {}),
    ...(flag && cfg.default === true ? { negatable: true } : {}),
  };
}

/** Records a command module: its builder is run against a stand-in for yargs. */
export function recordCommand(cmd: AnyCommand): SpecCommand {
  const [head, ...words] = String(([] as string[]).concat(cmd.command ?? '')[0]).split(/\s+/);
  const out: SpecCommand = {
    name: head!,
    aliases: ([] as string[]).concat(cmd.aliases ?? []),
    description: typeof cmd.describe === 'string' ? cmd.describe : '',
    positionals: words
      .filter((w) => /^[<[]/.test(w))
      .map((w) => ({
        name: w.slice(1, -1).replace(/\.\.$/, ''),
        variadic: w.endsWith('..>') || w.endsWith('..]'),
      })),
    options: [],
    subcommands: [],
  };
  const addOption = (name: string, cfg: Record<string, unknown>) => {
    const o = optionOf(name, cfg);
    if (o) out.options.push(o);
  };
  const recorder: object = new Proxy(
    {},
    {
      get(_t, method: string) {
        return (...args: unknown[]) => {
          if (method === 'option' || method === 'options') {
            if (typeof args[0] === 'string') addOption(args[0], (args[1] ?? {}) as never);
            else
              for (const [k, v] of Object.entries(args[0] as object))
                addOption(k, (v ?? {}) as never);
          } else if (method === 'positional') {
            const cfg = (args[1] ?? {}) as Record<string, unknown>;
            const p = out.positionals.find((x) => x.name === args[0]);
            if (p && Array.isArray(cfg.choices)) p.choices = (cfg.choices as unknown[]).map(String);
          } else if (method === 'command') {
            const sub =
              typeof args[0] === 'object'
                ? (args[0] as AnyCommand)
                : ({
                    command: args[0],
                    describe: args[1],
                    builder: args[2],
                    handler: args[3],
                  } as AnyCommand);
            if (sub.describe !== false) out.subcommands.push(recordCommand(sub));
          }
          return recorder;
        };
      },
    },
  );
  const builder = cmd.builder;
  if (typeof builder === 'function') builder(recorder as never);
  else if (builder) for (const [k, v] of Object.entries(builder)) addOption(k, v as never);
  out.options.push(HELP);
  return out;
}

/** The whole spec, from every command module and the built-in preset names. */
export function buildSpec(commands: AnyCommand[], presets: string[]): CompletionSpec {
  return {
    commands: commands.map(recordCommand),
    globalOptions: [
      HELP,
      { name: 'version', aliases: [], takesValue: false, description: 'show the version' },
      {
        name: 'host',
        aliases: [],
        takesValue: true,
        description: 'run the command against the daemon on HOST through SSH',
      },
    ],
    presets,
  };
}
