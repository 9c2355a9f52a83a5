/**
 * `import()` for the parts of the CLI that load on demand. The bundled entry (dist/clippy.cjs)
 * may run from V8's code cache (bin/compile-cache.cjs), and on Node 20 code run from a cache
 * has lost node's import() loader (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING): the runner then
 * registers an import() of its own under IMPORT_HOOK, which these use. Everything the bundle
 * imports on demand goes through here (scripts/bundle.mjs checks it).
 */

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** Where the runner puts its import(): a global symbol, as the bundle has no other link to it. */
const IMPORT_HOOK = Symbol.for('clippy.import');

/**
 * Where the runner puts its require() of a bundle beside dist/clippy.cjs (dist/cli.cjs), which
 * runs that bundle from its own compile cache.
 */
const REQUIRE_HOOK = Symbol.for('clippy.require');

/** dist/: this module sits at its root, and so does the bundle that holds it. */
const DIST = new URL('./', import.meta.url);

function load<T>(specifier: string): Promise<T> {
  const hook = (globalThis as Record<symbol, unknown>)[IMPORT_HOOK];
  return typeof hook === 'function'
    ? (hook as (s: string) => Promise<T>)(specifier)
    : (import(specifier) as Promise<T>);
}

/** A module of dist/ by its path there (`remote/host-ref.js`). */
export function loadModule<T>(path: string): Promise<T> {
  return load<T>(new URL(path, DIST).href);
}

/** An installed package (`x11`): bin/ and dist/ find the same node_modules. */
export function loadPackage<T>(name: string): Promise<T> {
  return load<T>(name);
}

/**
 * A CommonJS bundle of dist/ (`cli.cjs`, the full CLI) by its path there: through the runner,
 * from V8's compile cache, when the runner is there; else by node's require().
 */
export function loadBundle<T>(path: string): T {
  const file = fileURLToPath(new URL(path, DIST));
  const hook = (globalThis as Record<symbol, unknown>)[REQUIRE_HOOK];
  return typeof hook === 'function'
    ? (hook as (f: string) => T)(file)
    : (createRequire(DIST)(file) as T);
}
