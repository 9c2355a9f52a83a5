import type { AnyCommand } from './commands/index.js';

/**
 * The commands' yargs builders are the one description of their options. Two readers need that
 * description without loading yargs: the fast path (fast.ts) and shell completion
 * (completion/spec.ts). This runs a builder against a stand-in for yargs and reports each call.
 */

/** A positional word of a command string: `<name>`, `[name]`, `<names..>`. */
export interface CommandWord {
  name: string;
  required: boolean;
  variadic: boolean;
}

/** A command's name and positionals, from its `command` string (`send <session> [text..]`). */
export function commandWords(cmd: AnyCommand): { name: string; positionals: CommandWord[] } {
  const [name, ...words] = String(([] as string[]).concat(cmd.command ?? '')[0]).split(/\s+/);
  return {
    name: name!,
    positionals: words
      .filter((w) => /^[<[]/.test(w))
      .map((w) => ({
        name: w.slice(1, -1).replace(/\.\.$/, ''),
        required: w.startsWith('<'),
        variadic: w.endsWith('..>') || w.endsWith('..]'),
      })),
  };
}

/** What a builder asked of yargs, one callback a kind of call. */
export interface BuilderCalls {
  /** `.option(name, cfg)`, each entry of `.options({...})`, or of a builder object. */
  option(name: string, cfg: Record<string, unknown>): void;
  positional(name: string, cfg: Record<string, unknown>): void;
  /** `.command(module)` or `.command(cmd, describe, builder, handler)`, as a module. */
  command(sub: AnyCommand): void;
  /** Every other call (`conflicts`, `example`, `check`…). */
  other(method: string, args: unknown[]): void;
}

/** Runs `cmd`'s builder (a function or an object of options) against a recorder of `calls`. */
export function recordBuilder(cmd: AnyCommand, calls: BuilderCalls): void {
  const options = (all: object) => {
    for (const [k, v] of Object.entries(all)) calls.option(k, (v ?? {}) as Record<string, unknown>);
  };
  const recorder: object = new Proxy(
    {},
    {
      get(_t, method: string) {
        return (...args: unknown[]) => {
          const cfg = (args[1] ?? {}) as Record<string, unknown>;
          if ((method === 'option' || method === 'options') && typeof args[0] === 'string')
            calls.option(args[0], cfg);
          else if (method === 'options' && typeof args[0] === 'object' && args[0]) options(args[0]);
          else if (method === 'positional') calls.positional(args[0] as string, cfg);
          else if (method === 'command')
            calls.command(
              typeof args[0] === 'object'
                ? (args[0] as AnyCommand)
                : ({
                    command: args[0],
                    describe: args[1],
                    builder: args[2],
                    handler: args[3],
                  } as AnyCommand),
            );
          else calls.other(method, args);
          return recorder;
        };
      },
    },
  );
  const builder = cmd.builder;
  if (typeof builder === 'function') builder(recorder as never);
  else if (builder) options(builder);
}
