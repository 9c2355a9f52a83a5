import type { AnyCommand } from '../commands/index.js';
import { commandWords, recordBuilder } from '../yargs-recorder.js';

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
  const { name, positionals } = commandWords(cmd);
  const out: SpecCommand = {
    name,
    aliases: ([] as string[]).concat(cmd.aliases ?? []),
    description: typeof cmd.describe === 'string' ? cmd.describe : '',
    positionals: positionals.map((p) => ({ name: p.name, variadic: p.variadic })),
    options: [],
    subcommands: [],
  };
  recordBuilder(cmd, {
    option(optionName, cfg) {
      const o = optionOf(optionName, cfg);
      if (o) out.options.push(o);
    },
    positional(positionalName, cfg) {
      const p = out.positionals.find((x) => x.name === positionalName);
      if (p && Array.isArray(cfg.choices)) p.choices = (cfg.choices as unknown[]).map(String);
    },
    command(sub) {
      if (sub.describe !== false) out.subcommands.push(recordCommand(sub));
    },
    other() {
      // help text and checks: nothing completion offers
    },
  });
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
