import { readFileSync } from 'node:fs';

/** Set by the bundle (scripts/bundle.mjs) to package.json's version: no file read at run time. */
declare const __CLIPPY_VERSION__: string | undefined;

/** This clippy's release (the CLI package's version; the daemon beside it is the same release). */
export function cliVersion(): string {
  if (typeof __CLIPPY_VERSION__ === 'string') return __CLIPPY_VERSION__;
  const pkg = new URL('../package.json', import.meta.url);
  return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
}
