/**
 * Options whose value is the user's own words, per command: a value that starts with `-`
 * ("- add new tool() api") is still the value, not another option.
 */
export const FREE_TEXT_OPTIONS: Record<string, readonly string[]> = {
  navigate: ['--goal', '-g'],
};

/**
 * Binds a free-text option to the word after it when that word starts with `-`
 * (`--goal -x` → `--goal=-x`), which yargs would otherwise parse as options.
 */
export function bindFreeTextValues(argv: readonly string[], command: string | undefined): string[] {
  const names = command ? FREE_TEXT_OPTIONS[command] : undefined;
  if (!names) return [...argv];
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    if (names.includes(arg) && next !== undefined && next.startsWith('-') && next !== '--') {
      out.push(`${names[0]}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}
