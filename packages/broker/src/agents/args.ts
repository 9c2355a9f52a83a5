/** Reading and changing an agent's command line (its own options, as its CLI parses them). */

/** The value of `--name V` / `--name=V` (any of `names`), or undefined. */
export function optionValue(args: readonly string[], names: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return undefined;
    for (const n of names) {
      if (a === n) return args[i + 1];
      if (a.startsWith(`${n}=`)) return a.slice(n.length + 1);
    }
  }
  return undefined;
}

/** Whether any of `names` is given (as a flag, or with a value). */
export function hasOption(args: readonly string[], names: readonly string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (names.some((n) => a === n || a.startsWith(`${n}=`))) return true;
  }
  return false;
}

/**
 * The arguments without the options `names` (and the value after each that takes one): `takesValue`
 * says which do.
 */
export function withoutOptions(
  args: readonly string[],
  names: readonly string[],
  takesValue: (name: string) => boolean = () => true,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      out.push(...args.slice(i));
      break;
    }
    const n = names.find((x) => a === x || a.startsWith(`${x}=`));
    if (n === undefined) {
      out.push(a);
      continue;
    }
    if (a === n && takesValue(n)) i++;
  }
  return out;
}

/** One shell word: the hook commands Claude Code runs go through `sh -c`. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/u.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
