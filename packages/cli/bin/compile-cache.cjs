// Runs the bundled CLI (dist/clippy.cjs) from V8's compile cache: compiling it is some 10 ms of
// a `clippy ls`, and a cache of it in $XDG_CACHE_HOME/clippy, made by the first run of a command
// of the fast path (ls, show, a TAB…), saves that on every run after it. Node 22 does this itself (module.enableCompileCache). On Node 20 the bundle is compiled
// here as require() would, with the cache handed to V8; code run from a cache has lost node's
// import() there, so the bundle imports through IMPORT_HOOK (src/load-module.ts), set below.
// The full CLI (dist/cli.cjs: yargs and every command), which the bundle loads for any other
// command line through REQUIRE_HOOK, runs from a cache of its own the same way (`cli-full-v8-`),
// made by the first run of the full CLI.
// A cache that cannot be read, written or used only means compiling as usual.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Module = require('node:module');
const vm = require('node:vm');

const IMPORT_HOOK = Symbol.for('clippy.import');
const REQUIRE_HOOK = Symbol.for('clippy.require');

/** Each bundle's caches by the start of their names: the fast path's, and the full CLI's. */
const CACHE_PREFIX = { 'clippy.cjs': 'cli-v8-', 'cli.cjs': 'cli-full-v8-' };

/** `$XDG_CACHE_HOME/clippy` (default ~/.cache/clippy), beside the tag cache. */
function cacheDir() {
  const home = process.env.HOME || os.homedir();
  return path.join(process.env.XDG_CACHE_HOME || path.join(home, '.cache'), 'clippy');
}

/** One cache per build of the bundle and per node: V8 would refuse another's anyway. */
function cacheFile(dir, bundle, prefix) {
  const st = fs.statSync(bundle);
  const build = `${st.size}-${Math.trunc(st.mtimeMs)}`;
  return path.join(dir, `${prefix}${process.version}-${process.arch}-${build}.cache`);
}

/** Writes the cache in place of older ones; a rename, so a reader never sees half of it. */
function save(dir, file, prefix, data) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data, { mode: 0o600 });
  fs.renameSync(tmp, file);
  for (const name of fs.readdirSync(dir)) {
    const old = path.join(dir, name);
    if (name.startsWith(prefix) && name.endsWith('.cache') && old !== file)
      fs.rmSync(old, { force: true });
  }
}

/**
 * Compiles and runs the bundle as a CommonJS module, from the cache when there is one; its
 * exports. A cache is made at exit, unless `skipCache()` then says not to.
 */
function runCached(bundle, skipCache = () => false) {
  const dir = cacheDir();
  const prefix = CACHE_PREFIX[path.basename(bundle)] ?? `${path.basename(bundle)}-v8-`;
  let file;
  let cached;
  try {
    file = cacheFile(dir, bundle, prefix);
    cached = fs.readFileSync(file);
  } catch {
    cached = undefined;
  }
  const source = fs.readFileSync(bundle, 'utf8');
  const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData: cached });
  if (file !== undefined && (cached === undefined || script.cachedDataRejected)) {
    // At exit, so that the cache holds the functions this run compiled, not the top level only.
    process.once('exit', () => {
      if (skipCache()) return;
      try {
        save(dir, file, prefix, script.createCachedData());
      } catch {
        // Not writable: the next run compiles again.
      }
    });
  }
  const mod = new Module(bundle, module);
  mod.filename = bundle;
  mod.paths = Module._nodeModulePaths(path.dirname(bundle));
  const wrapper = script.runInThisContext();
  wrapper.call(
    mod.exports,
    mod.exports,
    Module.createRequire(bundle),
    mod,
    bundle,
    path.dirname(bundle),
  );
  mod.loaded = true;
  return mod.exports;
}

function run(bundle) {
  if (typeof Module.enableCompileCache === 'function') {
    Module.enableCompileCache(cacheDir());
    globalThis[REQUIRE_HOOK] = (file) => require(file);
    require(bundle);
    return;
  }
  globalThis[IMPORT_HOOK] = (specifier) => import(specifier);
  // Whether the command went on to the full CLI: such a run compiles little of the entry
  // bundle, and a cache made from it would hold little more than its top level.
  let full = false;
  globalThis[REQUIRE_HOOK] = (file) => {
    full = true;
    return runCached(file);
  };
  runCached(bundle, () => full);
}

module.exports = { run };
