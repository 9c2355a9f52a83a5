// Bundles the CLI's entry (dist/entry.js, built by tsc) into one CommonJS file, dist/clippy.cjs,
// which bin/clippy runs: one file to read and a CommonJS start are what make `clippy ls` quick.
// The full CLI (dist/main.js) stays as tsc wrote it and is imported only when needed.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The import() calls the bundle may hold: load-module.ts's and the client's (for ws). */
const IMPORT_CALLS = 2;

/** Packages whose loading is what the fast path exists to avoid; the build fails if one creeps in. */
const KEPT_OUT = ['zod', 'yargs', 'jsonc-parser', '@clippy/turns'];

/**
 * zod declares one of its files as having side effects, which keeps all of zod in a bundle
 * that reaches it only through modules tree-shaking drops (protocol's schema files, re-exported
 * by its index). The fast path uses none of KEPT_OUT, checked below, so nothing of them may run.
 */
function keptOutIsSideEffectFree() {
  return {
    name: 'kept-out-side-effect-free',
    setup(b) {
      b.onResolve({ filter: /^zod(\/|$)/ }, async (args) => {
        if (args.pluginData === 'again') return undefined;
        const r = await b.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: 'again',
        });
        return { ...r, sideEffects: false };
      });
    },
  };
}

/** Every relative `import()` stays a run-time import of that file in dist/ (see below). */
function dynamicImportsFromDist() {
  return {
    name: 'dynamic-imports-from-dist',
    setup(b) {
      b.onResolve({ filter: /^\./ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        const target = relative(join(root, 'dist'), resolve(args.resolveDir, args.path));
        return { path: `./${target}`, external: true };
      });
    },
  };
}

/**
 * msgpackr's optional native string decoder pays off on large payloads only; finding and
 * loading the addon cost every command a few ms. In this bundle it is absent (msgpackr then
 * decodes in JavaScript, as it does wherever the addon is not built).
 */
function withoutMsgpackrExtract() {
  return {
    name: 'without-msgpackr-extract',
    setup(b) {
      b.onResolve({ filter: /^msgpackr-extract$/ }, () => ({
        path: 'msgpackr-extract',
        namespace: 'absent',
      }));
      b.onLoad({ filter: /.*/, namespace: 'absent' }, () => ({
        contents: 'module.exports = null;',
        loader: 'js',
      }));
    },
  };
}

const options = {
  entryPoints: [join(root, 'dist/entry.js')],
  outfile: join(root, 'dist/clippy.cjs'),
  bundle: true,
  platform: 'node',
  // jsonc-parser's `main` is a UMD build esbuild cannot follow.
  mainFields: ['module', 'main'],
  format: 'cjs',
  target: 'node20',
  // Loaded only by the paths that need them (ws: WebSocket transport; x11: hotkeys and focus;
  // the broker is started, never imported).
  external: ['ws', 'x11', '@clippy/broker'],
  // The bundle is CommonJS: give the sources' import.meta.url its meaning back. The version is
  // written in (cli-version.ts), so that comparing it with the daemon's reads no file.
  define: {
    'import.meta.url': '__clippyImportMetaUrl',
    __CLIPPY_VERSION__: JSON.stringify(version),
  },
  banner: { js: "var __clippyImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
};

// Parts reached through `await import()` (a --host, a name carrying a host, `ls --all-hosts`)
// stay tsc's ES modules beside the bundle, loaded when a command reaches them: bundled, they
// would make esbuild initialise all of protocol (zod) at start.
const result = await build({
  ...options,
  metafile: true,
  plugins: [keptOutIsSideEffectFree(), withoutMsgpackrExtract(), dynamicImportsFromDist()],
});
// Code run from V8's code cache (bin/compile-cache.cjs) has lost node's import() on Node 20:
// every import() of the bundle must be load-module.ts's (or the client's ws), which use the
// runner's hook instead.
const imports = readFileSync(options.outfile, 'utf8').match(/\bimport\(/g) ?? [];
if (imports.length !== IMPORT_CALLS) {
  process.stderr.write(
    `bundle: dist/clippy.cjs holds ${imports.length} import() calls, ${IMPORT_CALLS} expected: ` +
      'load on demand with loadModule()/loadPackage() of src/load-module.ts, not import().\n',
  );
  process.exit(1);
}
const [output] = Object.values(result.metafile.outputs);
const included = Object.entries(output.inputs).filter(([, v]) => v.bytesInOutput > 0);
const crept = included
  .map(([input]) => input)
  .filter((input) =>
    KEPT_OUT.some(
      (pkg) =>
        input.includes(`node_modules/${pkg}/`) ||
        input.includes(`packages/${pkg.replace('@clippy/', '')}/`),
    ),
  );
if (crept.length > 0) {
  process.stderr.write(
    `bundle: the fast path must not load ${crept.slice(0, 5).join(', ')}${crept.length > 5 ? ', …' : ''}\n` +
      'A command of src/fast.ts now imports it (or a module that does): keep it out, or import it with `await import()` where it is needed.\n',
  );
  process.exit(1);
}
