// The package boundaries of docs/architecture.md ("Packages"), checked by `npm run lint` rather
// than remembered (scripts/lint-boundaries.test.ts checks that page's table against ALLOWED). Each package lists the @clippy packages its code may import; anything
// else of ours is refused, static (`import`, `export … from`) or dynamic (`import()`, `require()`).
// Not covered: `require.resolve()` (a path, not an import: cli finds clippyd's bin that way).
// Two more rules of the plugin below keep the same arrows where a module name is not used:
// - a relative import that leaves its package for another (`../../cli/src/x.js`) is refused,
//   in shipped and test code alike (tsc's rootDir catches it in shipped code only at build);
// - a package.json may list of ours only what its code may import (ALLOWED), the packages it
//   runs or serves without importing them (RUNTIME), and testkit among devDependencies.
//
// Shipped code and test code differ in three ways:
// - only test code (`*.test.ts`, `test/`, `test-support/`, vitest configs, all of testkit) may
//   import @clippy/testkit;
// - node-pty belongs to system/src/pty/ alone in shipped code (the daemon's sessions and testkit's
//   terminal see PtyProcess). Test code may use node-pty directly: it plays the person at a
//   terminal (navigator's interactive test, repomap's progress-bar test, attach-direct's) or
//   feeds a PTY to the turn machinery without a daemon (broker's session-turns test);
// - turns is pure ("no I/O, no timers of its own: time is passed in"): its shipped code may import
//   no Node built-in but the ones in PURE_BUILTINS, use no timers and read no clock. Its tests
//   read recorded screens from disk.
//
// ESLint keeps one set of options per rule and file (the last block that matches wins), so every
// block below carries the whole rule for the files it matches; keep these blocks last in
// eslint.config.js.
import { builtinModules } from 'node:module';
import { dirname, relative, resolve, sep } from 'node:path';

/**
 * What each package may import of ours: the table of docs/architecture.md "Packages", which says
 * why where it is not obvious (every client speaks protocol; cli runs turns offline and hosts
 * `clippy acp` and `clippy mcp`; the daemon is a client of another daemon for remote routes).
 */
export const ALLOWED = {
  protocol: [],
  turns: [],
  reports: [],
  repomap: [],
  system: ['protocol'],
  client: ['protocol'],
  broker: ['protocol', 'turns', 'client', 'system'],
  navigator: ['client', 'repomap', 'reports'],
  cli: ['client', 'navigator', 'reports', 'repomap', 'protocol', 'turns', 'acp', 'mcp', 'system'],
  testkit: ['client', 'protocol', 'system'],
  // A subpath alone: the page is bundled for a browser, and the rest of client loads Node.
  web: ['protocol', 'client/core'],
  acp: ['client', 'protocol'],
  mcp: ['client', 'protocol'],
  vscode: ['client', 'protocol'],
};

/**
 * Packages of ours a package needs at run time without importing them: cli starts clippyd's bin
 * (found with require.resolve) and the daemon serves the web page's built assets.
 */
const RUNTIME = { cli: ['broker'], broker: ['web'] };

/** Node built-ins the turn engine may use: pure computation, no I/O and no timers. */
const PURE_BUILTINS = ['string_decoder'];

const SOURCE_FILES = '**/*.{ts,mts,cts,js,mjs,cjs}';
const TEST_FILES = ['**/*.test.ts', '**/test/**', '**/test-support/**', '**/vitest.config.ts'];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A module specifier and its subpaths: `name` and `name/…`. */
const moduleRegex = (names) => `^(?:${names.map(escape).join('|')})(?:/|$)`;

const nodePty = {
  regex: moduleRegex(['node-pty']),
  message: 'node-pty is imported in system/src/pty/ only; other code uses PtyProcess.',
};

function ourPackages(pkg, extra) {
  const allowed = [...ALLOWED[pkg], ...extra];
  const except = allowed.length > 0 ? `(?!${moduleRegex(allowed).slice(1)})` : '';
  const may = allowed.length > 0 ? allowed.join(', ') : 'nothing of ours';
  return {
    regex: `^@clippy/${except}`,
    message: `${pkg} may import ${may} (docs/architecture.md "Packages").`,
  };
}

const ioBuiltins = {
  // `node:` names (some exist only with the prefix) and bare names of the same modules.
  regex:
    `^(?:node:(?!${moduleRegex(PURE_BUILTINS).slice(1)})|` +
    `${moduleRegex([...new Set(builtinModules.map((m) => m.split('/')[0]))].filter((m) => !PURE_BUILTINS.includes(m))).slice(1)})`,
  message: `turns is pure (docs/architecture.md "Packages"): of Node's modules it may import ${PURE_BUILTINS.join(', ')} only (no I/O).`,
};

/** The import restrictions as rules: static imports and re-exports, `import()` and `require()`. */
function importRules(restrictions, extraSyntax = []) {
  const literal = (regex) => `/${regex.replace(/\//g, '\\/')}/`;
  return {
    'no-restricted-imports': [
      'error',
      { patterns: restrictions.map(({ regex, message }) => ({ regex, message })) },
    ],
    'no-restricted-syntax': [
      'error',
      ...restrictions.flatMap(({ regex, message }) => [
        { selector: `ImportExpression[source.value=${literal(regex)}]`, message },
        // require('x'), and createRequire(import.meta.url)('x') without naming it.
        {
          selector: `CallExpression[callee.name='require'][arguments.0.value=${literal(regex)}]`,
          message,
        },
        {
          selector: `CallExpression[callee.callee.name='createRequire'][arguments.0.value=${literal(regex)}]`,
          message,
        },
      ]),
      ...extraSyntax,
    ],
    // Set by turns' shipped block only; off here so a later block resets them.
    'no-restricted-globals': 'off',
    'no-restricted-properties': 'off',
  };
}

const TIMERS = [
  'setTimeout',
  'setInterval',
  'setImmediate',
  'clearTimeout',
  'clearInterval',
  'clearImmediate',
  'queueMicrotask',
];
const CLOCK_MESSAGE =
  'turns is pure: time is passed in, never read (docs/architecture.md "Packages").';

/** Shipped turns code: no timers, no clock, no I/O. */
const pureTurnsRules = {
  ...importRules(
    [ourPackages('turns', []), nodePty, ioBuiltins],
    [{ selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: CLOCK_MESSAGE }],
  ),
  'no-restricted-globals': [
    'error',
    ...TIMERS.map((name) => ({
      name,
      message: 'turns is pure: no timers of its own (docs/architecture.md "Packages").',
    })),
    {
      name: 'process',
      message: 'turns is pure: no process state or I/O (docs/architecture.md "Packages").',
    },
    { name: 'fetch', message: 'turns is pure: no I/O (docs/architecture.md "Packages").' },
  ],
  'no-restricted-properties': [
    'error',
    { object: 'Date', property: 'now', message: CLOCK_MESSAGE },
    { object: 'performance', property: 'now', message: CLOCK_MESSAGE },
  ],
};

/** The package (`packages/<name>/…`) a file is in, and the packages folder; null elsewhere. */
function packageOf(filename) {
  const parts = filename.split(sep);
  const at = parts.lastIndexOf('packages');
  if (at === -1 || at + 1 >= parts.length - 1) return null;
  return { name: parts[at + 1], root: parts.slice(0, at + 1).join(sep) };
}

/** `import … from './x'`, `export … from`, `import()` and `require()` with a literal path. */
function onModuleSpecifiers(check) {
  const literal = (node) =>
    node && node.type === 'Literal' && typeof node.value === 'string' ? node : null;
  return {
    ImportDeclaration: (node) => check(node.source),
    ExportNamedDeclaration: (node) => node.source && check(node.source),
    ExportAllDeclaration: (node) => check(node.source),
    ImportExpression: (node) => literal(node.source) && check(node.source),
    CallExpression: (node) => {
      if (node.callee.type === 'Identifier' && node.callee.name === 'require') {
        const arg = literal(node.arguments[0]);
        if (arg) check(arg);
      }
    },
  };
}

const noRelativeAcrossPackages = {
  meta: {
    type: 'problem',
    docs: { description: 'a relative import stays inside its own package' },
    schema: [],
  },
  create(context) {
    const own = packageOf(context.filename);
    if (!own) return {};
    return onModuleSpecifiers((source) => {
      if (!source.value.startsWith('.')) return;
      const target = resolve(dirname(context.filename), source.value);
      const into = relative(own.root, target).split(sep)[0];
      if (into === own.name || into.startsWith('..') || !(into in ALLOWED)) return;
      context.report({
        node: source,
        message:
          `${own.name} imports packages/${into}'s files by a relative path: a package reaches ` +
          `another only by its name (@clippy/${into}), where docs/architecture.md "Packages" allows it.`,
      });
    });
  },
};

const DEPENDENCY_FIELDS = [
  'dependencies',
  'devDependencies',
  'peerDependencies',
  'optionalDependencies',
];

const packageDependencies = {
  meta: {
    type: 'problem',
    docs: { description: "a package.json lists of ours only what the package's layer allows" },
    schema: [],
  },
  create(context) {
    const own = packageOf(context.filename);
    if (!own || !(own.name in ALLOWED)) return {};
    return {
      // The processor below made the JSON `export default {…}`.
      'ExportDefaultDeclaration > ObjectExpression > Property'(field) {
        const fieldName = field.key.value;
        if (!DEPENDENCY_FIELDS.includes(fieldName) || field.value.type !== 'ObjectExpression')
          return;
        for (const dep of field.value.properties) {
          const match = /^@clippy\/(.+)$/.exec(dep.key.value ?? '');
          if (!match) continue;
          const name = match[1];
          const may = [
            // A subpath allowed (`client/core`) needs its package.
            ...ALLOWED[own.name].map((allowed) => allowed.split('/')[0]),
            ...(RUNTIME[own.name] ?? []),
            ...(fieldName === 'devDependencies' ? ['testkit'] : []),
          ];
          if (name === own.name || may.includes(name)) continue;
          context.report({
            node: dep,
            message:
              `${own.name} lists @clippy/${name} in ${fieldName}, which points up or across its layer: ` +
              `${own.name} may depend on ${may.join(', ') || 'nothing of ours'} (docs/architecture.md "Packages").`,
          });
        }
      },
    };
  },
};

/** The rules above as a plugin, and a processor that lets ESLint read a package.json. */
const plugin = {
  meta: { name: 'clippy-boundaries' },
  rules: {
    'no-relative-across-packages': noRelativeAcrossPackages,
    'package-dependencies': packageDependencies,
  },
  processors: {
    // JSON is a JavaScript expression: `export default {…}` on the same lines keeps positions.
    'package-json': {
      preprocess: (text) => [{ text: `export default ${text}`, filename: 'package.js' }],
      postprocess: (messages) => messages.flat(),
    },
  },
};

/** Flat-config blocks, in order: shipped code, system's PTY folder, then test code (wins). */
export const packageBoundaries = Object.keys(ALLOWED).flatMap((pkg) => {
  const root = `packages/${pkg}`;
  const shipped = {
    name: `clippy/boundaries/${pkg}`,
    files: [`${root}/${SOURCE_FILES}`],
    rules: pkg === 'turns' ? pureTurnsRules : importRules([ourPackages(pkg, []), nodePty]),
  };
  const tests = {
    name: `clippy/boundaries/${pkg}/tests`,
    // testkit is test code throughout.
    files: pkg === 'testkit' ? [`${root}/**`] : TEST_FILES.map((glob) => `${root}/${glob}`),
    rules: importRules([ourPackages(pkg, pkg === 'testkit' ? [] : ['testkit'])]),
  };
  const pty = {
    name: 'clippy/boundaries/system/pty',
    files: [`${root}/src/pty/${SOURCE_FILES}`],
    rules: importRules([ourPackages(pkg, [])]),
  };
  return pkg === 'system' ? [shipped, pty, tests] : [shipped, tests];
});

/** The plugin's rules: relative imports in every package's files, dependencies in package.json. */
export const packageLinks = [
  {
    name: 'clippy/boundaries/relative-imports',
    files: [`packages/*/${SOURCE_FILES}`],
    plugins: { clippy: plugin },
    rules: { 'clippy/no-relative-across-packages': 'error' },
  },
  {
    name: 'clippy/boundaries/package-json',
    files: ['packages/*/package.json'],
    plugins: { clippy: plugin },
    processor: 'clippy/package-json',
  },
  {
    name: 'clippy/boundaries/package-json/dependencies',
    files: ['packages/*/package.json/*.js'],
    plugins: { clippy: plugin },
    rules: { 'clippy/package-dependencies': 'error' },
  },
];
