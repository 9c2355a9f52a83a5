// Bundles the CLI's entry (dist/entry.js, built by tsc) into one CommonJS file, dist/clippy.cjs,
// which bin/clippy runs: one file to read and a CommonJS start are what make `clippy ls` quick.
// The full CLI (dist/run.js: yargs and every command) is bundled apart, into dist/cli.cjs, which
// the entry loads only for the command lines its fast path leaves to yargs: bundled, a command
// of it loads one file instead of some 200 ES modules, and only the code it runs initialises.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The import() calls a bundle may hold: load-module.ts's and the client's (for ws). */
const IMPORT_CALLS = 2;

/** Packages whose loading is what the fast path exists to avoid; the build fails if one creeps in. */
const KEPT_OUT = ['zod', 'yargs', 'jsonc-parser', '@clippy/turns'];

/** Marks a resolve a plugin asks for itself, so that the plugin lets it through. */
const AGAIN = 'again';

/** Where esbuild itself puts an import a plugin's onResolve sees (the plugin steps aside). */
function resolveAsEsbuildWould(b, args) {
  return b.resolve(args.path, {
    kind: args.kind,
    resolveDir: args.resolveDir,
    importer: args.importer,
    pluginData: AGAIN,
  });
}

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
        if (args.pluginData === AGAIN) return undefined;
        const r = await resolveAsEsbuildWould(b, args);
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

/**
 * Packages the full CLI loads with loadPackage() (src/load-module.ts) when a command runs, each
 * in its own ES modules: the ACP and MCP servers and their SDKs, the navigator and repomap (tree-sitter),
 * x11 (hotkeys, focus), ws. Bundled, `clippy --help` would have to initialise them; required
 * (they are ES modules), node 20 would refuse them. The broker is started, never imported.
 */
const LOADED_APART = [
  'ws',
  'x11',
  '@clippy/broker',
  '@clippy/acp',
  '@clippy/mcp',
  '@clippy/navigator',
  '@clippy/repomap',
];

/**
 * LOADED_APART, by their exact names: a subpath of theirs that is light (the navigator's
 * defaults, which `clippy navigate --help` shows) is bundled.
 */
function loadedApart() {
  const names = new RegExp(`^(${LOADED_APART.map((n) => n.replace('/', '\\/')).join('|')})$`);
  return {
    name: 'loaded-apart',
    setup(b) {
      b.onResolve({ filter: names }, (args) => ({ path: args.path, external: true }));
    },
  };
}

/**
 * Packages whose index only passes on its files' exports (`export * from`, `export { … } from`)
 * and whose files have no side effects a user of another file would miss.
 */
const BARRELS = ['@clippy/protocol', '@clippy/turns', '@clippy/reports'];

/** The statements of a barrel index: `export * from 'f'` and `export { a, b as c } from 'f'`. */
const BARREL_LINE = /^export (?:\*|\{([^}]*)\}) from '([^']+)';$/;

/**
 * Each name a barrel index exports, with the file that defines it and its name there; null
 * when the index does anything else (then it is bundled as it is).
 */
async function barrelMap(index) {
  const lines = readFileSync(index, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('//'));
  const map = new Map();
  for (const line of lines) {
    const m = BARREL_LINE.exec(line.trim());
    if (!m) return null;
    const file = resolve(dirname(index), m[2]);
    if (m[1] !== undefined) {
      for (const part of m[1]
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean)) {
        const [local, exported = local] = part.split(/\s+as\s+/);
        map.set(exported, { file, local });
      }
      continue;
    }
    // The names `export *` passes on, as esbuild sees them (a nested barrel's included).
    const r = await build({
      entryPoints: [file],
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'node',
      packages: 'external',
      logLevel: 'silent',
    });
    for (const name of Object.values(r.metafile.outputs)[0].exports) {
      if (name !== 'default') map.set(name, { file, local: name });
    }
  }
  return map;
}

/**
 * In a bundle whose modules initialise when first used (the full CLI's commands), an import of
 * a barrel would initialise every file the barrel passes on: all of protocol's schemas (zod)
 * for a `PROTOCOL_VERSION`. Each importer here gets a barrel of its own that passes on only the
 * names it imports, from the files that define them. An importer that imports a barrel in any
 * other way (`import * as`) gets the real one.
 */
function narrowBarrels() {
  const filter = new RegExp(`^(${BARRELS.map((n) => n.replace('/', '\\/')).join('|')})$`);
  const maps = new Map();
  return {
    name: 'narrow-barrels',
    setup(b) {
      b.onResolve({ filter }, async (args) => {
        if (args.pluginData === AGAIN || !args.importer.endsWith('.js')) return undefined;
        const real = await resolveAsEsbuildWould(b, args);
        if (real.errors.length > 0) return undefined;
        if (!maps.has(real.path)) maps.set(real.path, await barrelMap(real.path));
        const map = maps.get(real.path);
        if (!map) return undefined;
        const source = readFileSync(args.importer, 'utf8');
        const quoted = `'${args.path}'`;
        const names = [];
        for (const line of source.split('\n')) {
          if (!line.includes(quoted)) continue;
          const m = /^(?:import|export) \{([^}]*)\} from '([^']+)';$/.exec(line.trim());
          if (!m || m[2] !== args.path) return undefined;
          for (const part of m[1]
            .split(',')
            .map((p) => p.trim())
            .filter(Boolean)) {
            const name = part.split(/\s+as\s+/)[0];
            if (!map.has(name)) return undefined;
            names.push(name);
          }
        }
        if (names.length === 0) return undefined;
        return {
          path: `${args.path}?${[...new Set(names)].sort().join(',')}`,
          namespace: 'narrow-barrel',
          pluginData: { map, names },
        };
      });
      b.onLoad({ filter: /.*/, namespace: 'narrow-barrel' }, (args) => {
        const { map, names } = args.pluginData;
        const contents = [...new Set(names)]
          .map((n) => {
            const { file, local } = map.get(n);
            return `export { ${local === n ? n : `${local} as ${n}`} } from ${JSON.stringify(file)};`;
          })
          .join('\n');
        return { contents, loader: 'js', resolveDir: root };
      });
    },
  };
}

/**
 * yargs finds its translations (LANG=de_DE: `Optionen:`) and the package.json of `X --version`
 * from where its platform shim lies, by import.meta.url: in the bundle that would be dist/
 * (English only, version `unknown`). The shim is given its own place in node_modules back,
 * resolved at run time as node would.
 */
function yargsShimAtHome() {
  const shim = /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/;
  return {
    name: 'yargs-shim-at-home',
    setup(b) {
      b.onLoad({ filter: shim }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        // Not `require`: the shim declares a `require` of its own, not yet set here.
        const home =
          "(() => { try { const { createRequire } = process.getBuiltinModule('node:module');" +
          " const { dirname, join } = process.getBuiltinModule('node:path');" +
          " const pkg = createRequire(__clippyImportMetaUrl).resolve('yargs/package.json');" +
          " return process.getBuiltinModule('node:url').pathToFileURL(" +
          "join(dirname(pkg), 'lib/platform-shims/esm.mjs')).href;" +
          ' } catch { return __clippyImportMetaUrl; } })()';
        const contents = source.replaceAll('import.meta.url', '__clippyYargsShimUrl');
        if (contents === source) throw new Error('bundle: yargs shim without import.meta.url');
        return { contents: `const __clippyYargsShimUrl = ${home};\n${contents}`, loader: 'js' };
      });
    },
  };
}

/**
 * yargs lays out its help (and usage errors) word by word through string-width (cliui's,
 * wrap-ansi's and its own copy), which segments every word into graphemes and tests each
 * against emoji and Unicode-property expressions: most of a `clippy ask --help`. A string of
 * printable ASCII is as wide as it is long in each of them (no control, combining, ignorable,
 * emoji or wide character can be in it): those are answered at once; any other goes to
 * string-width as before.
 */
function asciiStringWidth() {
  return {
    name: 'ascii-string-width',
    setup(b) {
      b.onResolve({ filter: /^string-width$/ }, async (args) => {
        if (args.pluginData === AGAIN) return undefined;
        const real = await resolveAsEsbuildWould(b, args);
        if (real.errors.length > 0) return undefined;
        return { path: real.path, namespace: 'ascii-string-width' };
      });
      b.onLoad({ filter: /.*/, namespace: 'ascii-string-width' }, (args) => ({
        contents:
          `import stringWidth from ${JSON.stringify(args.path)};\n` +
          'const PRINTABLE_ASCII = /^[\\x20-\\x7e]*$/;\n' +
          'export default function asciiStringWidth(string, options) {\n' +
          "  return typeof string === 'string' && PRINTABLE_ASCII.test(string)\n" +
          '    ? string.length\n' +
          '    : stringWidth(string, options);\n' +
          '}\n',
        loader: 'js',
        resolveDir: dirname(args.path),
      }));
    },
  };
}

/** The build's one output: its inputs that put code in it, and what it imports at run time. */
function outputOf(result) {
  const [output] = Object.values(result.metafile.outputs);
  return output;
}

/** Fails the build when the bundle calls import() other than through load-module.ts. */
function checkImportCalls(outfile) {
  // Code run from V8's code cache (bin/compile-cache.cjs) has lost node's import() on Node 20:
  // every import() of a bundle must be load-module.ts's (or the client's ws), which use the
  // runner's hook instead.
  // Comment lines (the JSDoc of a bundled package: `{import('./index.js').T}`) call nothing.
  const code = readFileSync(outfile, 'utf8')
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .join('\n');
  const imports = code.match(/\bimport\(/g) ?? [];
  if (imports.length !== IMPORT_CALLS) {
    process.stderr.write(
      `bundle: ${relative(root, outfile)} holds ${imports.length} import() calls, ${IMPORT_CALLS} expected: ` +
        'load on demand with loadModule()/loadPackage() of src/load-module.ts, not import().\n',
    );
    process.exit(1);
  }
}

// Parts reached through `await import()` (a --host, a name carrying a host, `ls --all-hosts`)
// stay tsc's ES modules beside the bundle, loaded when a command reaches them: bundled, they
// would make esbuild initialise all of protocol (zod) at start.
const result = await build({
  ...options,
  metafile: true,
  plugins: [keptOutIsSideEffectFree(), withoutMsgpackrExtract(), dynamicImportsFromDist()],
});
checkImportCalls(options.outfile);
const included = Object.entries(outputOf(result).inputs).filter(([, v]) => v.bytesInOutput > 0);
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

// The full CLI. Its commands (the table's `import()`s) are bundled: esbuild makes each a module
// initialised when first used, so a command line initialises its command's code only. zod is
// side-effect free here too: a command that does not use a schema does not build it.
const full = {
  ...options,
  entryPoints: [join(root, 'dist/run.js')],
  outfile: join(root, 'dist/cli.cjs'),
  external: [],
  // Some 2 MB as written (zod alone is 0.8): without its blanks and comments, a third less to
  // read and hash on every start. Names stay as written (stack traces, `err.name`).
  minifyWhitespace: true,
  minifySyntax: true,
};
const fullResult = await build({
  ...full,
  metafile: true,
  plugins: [
    keptOutIsSideEffectFree(),
    withoutMsgpackrExtract(),
    loadedApart(),
    narrowBarrels(),
    yargsShimAtHome(),
    asciiStringWidth(),
  ],
});
checkImportCalls(full.outfile);
// A static import of a package loaded apart would be a require() of an ES module at start.
const required = outputOf(fullResult).imports.filter(
  (i) => i.external && LOADED_APART.includes(i.path) && i.kind !== 'dynamic-import',
);
if (required.length > 0) {
  process.stderr.write(
    `bundle: dist/cli.cjs imports ${required.map((i) => i.path).join(', ')} at start: ` +
      'load it where a command needs it, with loadPackage() of src/load-module.ts.\n',
  );
  process.exit(1);
}
