import picomatch from 'picomatch';

const cache = new Map<string, (p: string) => boolean>();

/**
 * A matcher for a plan/CLI pattern: a glob (picomatch, dotfiles included), where a pattern
 * without glob characters also matches everything below it (`src/auth` = `src/auth/**`).
 */
export function pathMatcher(pattern: string): (p: string) => boolean {
  let m = cache.get(pattern);
  if (!m) {
    const clean = pattern.replace(/^\.\//, '').replace(/\/+$/, '');
    const glob = picomatch(clean, { dot: true });
    if (picomatch.scan(clean).isGlob) m = glob;
    else m = (p) => p === clean || p.startsWith(`${clean}/`) || glob(p);
    cache.set(pattern, m);
  }
  return m;
}

/** Matcher for section names (symbols, headings): a glob over the name, case-sensitive. */
export function nameMatcher(pattern: string): (name: string) => boolean {
  const key = `name:${pattern}`;
  let m = cache.get(key);
  if (!m) {
    m = picomatch(pattern, { dot: true, bash: false });
    cache.set(key, m);
  }
  return m;
}
