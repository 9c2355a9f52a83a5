// Bundles the daemon (dist/main.js, built by tsc) into one ES module, dist/clippyd.mjs, which
// bin/clippyd.js runs, and its pipeline worker (dist/pipeline/worker/entry.js) into
// dist/pipeline/worker/entry.mjs, which the daemon starts (worker-start.ts). Reading one file
// instead of some 250 modules and their packages' is most of a daemon's start: measured here,
// 1.05–1.13 CPU-s and 1.5–1.8 s to its socket unbundled, 0.44–0.61 CPU-s and 0.7–1.0 s bundled.
// A daemon starts with a login's first `clippy` command, and once for each test's daemon.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A file of an installed package: its name and its path inside the package. */
const IN_PACKAGE = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/](.+)$/;

/**
 * Code that finds files beside itself by `import.meta.url` (the worker's entry, the hook entry,
 * OpenCode's plugin, the web page, the package's version; yargs' translations) keeps finding
 * them where they are: in each bundled file, `import.meta.url` becomes that file's own URL. A
 * file of the broker is found from the bundle's URL (the bundle sits in its dist/, beside what
 * tsc wrote); a file of an installed package where node resolves that package from the bundle,
 * so that a copy of the broker's files elsewhere still finds them (its relative place is kept
 * only as the fallback).
 */
function ownImportMetaUrl(outfile) {
  return {
    name: 'own-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.(m?js|cjs)$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const rel = relative(dirname(outfile), args.path).split('\\').join('/');
        const pkg = IN_PACKAGE.exec(args.path);
        const url = pkg
          ? `__clippyPackageFileUrl(${JSON.stringify(pkg[1].split('\\').join('/'))}, ${JSON.stringify(pkg[2].split('\\').join('/'))}, ${JSON.stringify(rel)})`
          : `new URL(${JSON.stringify(rel)}, import.meta.url).href`;
        return {
          contents: source.replaceAll('import.meta.url', `(${url})`),
          loader: 'js',
          resolveDir: dirname(args.path),
        };
      });
    },
  };
}

/**
 * What each bundle starts with: node's require() for the CommonJS packages in it, and the URL
 * of a file of an installed package (see ownImportMetaUrl).
 */
const BANNER = [
  "import { createRequire as __clippyCreateRequire } from 'node:module';",
  "import { dirname as __clippyDirname, join as __clippyJoin } from 'node:path';",
  "import { pathToFileURL as __clippyPathToFileURL } from 'node:url';",
  'const require = __clippyCreateRequire(import.meta.url);',
  'function __clippyPackageFileUrl(pkg, file, fallback) {',
  '  try {',
  '    const root = __clippyDirname(require.resolve(`${pkg}/package.json`));',
  '    return __clippyPathToFileURL(__clippyJoin(root, file)).href;',
  '  } catch {',
  '    return new URL(fallback, import.meta.url).href;',
  '  }',
  '}',
].join('\n');

/** One bundle of `entry` (a file of dist/) into `out` (under dist/). */
async function bundle(entry, out) {
  const outfile = join(root, out);
  await build({
    entryPoints: [join(root, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // jsonc-parser's `main` is a UMD build esbuild cannot follow: its ES modules instead.
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    // Native addons stay packages of node_modules, loaded as node would.
    external: ['node-pty', 'msgpackr-extract', 'fs-native-extensions'],
    banner: { js: BANNER },
    plugins: [ownImportMetaUrl(outfile)],
    logLevel: 'warning',
  });
}

await bundle('dist/main.js', 'dist/clippyd.mjs');
await bundle('dist/pipeline/worker/entry.js', 'dist/pipeline/worker/entry.mjs');
