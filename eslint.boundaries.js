// The package boundaries of /work/shared/DESIGN.md ("Packages"), checked by `npm run lint`
// rather than remembered. Each package lists the @clippy packages its code may import; anything
// else of ours is refused, static (`import`, `export … from`) or dynamic (`import()`, `require()`).
// Not covered: `require.resolve()` (a path, not an import: cli finds clippyd's bin that way) and
// relative paths into another package (tsc's rootDir refuses those when a package is built).
//
// Shipped code and test code differ in three ways:
// - only test code (`*.test.ts`, `test/`, `test-support/`, vitest configs, all of testkit) may
//   import @clippy/testkit;
// - node-pty belongs to broker/src/pty/ alone in shipped code (the session code sees PtyProcess).
//   Test code may use node-pty directly: it plays the person at a terminal (testkit's cli-pty
//   driver, navigator's interactive test, repomap's progress-bar test) or feeds a PTY to the turn
//   machinery without a daemon (broker/src/detection/session-turns.test.ts);
// - turns is pure ("no I/O, no timers of its own: time is passed in"): its shipped code may import
//   no Node built-in but the ones in PURE_BUILTINS, use no timers and read no clock. Its tests
//   read recorded screens from disk.
//
// ESLint keeps one set of options per rule and file (the last block that matches wins), so every
// block below carries the whole rule for the files it matches; keep these blocks last in
// eslint.config.js.
import { builtinModules } from 'node:module';

/** What each package may import of ours (DESIGN.md "Packages": arrows point to what it may import). */
const ALLOWED = {
  protocol: [],
  turns: [],
  reports: [],
  repomap: [],
  client: ['protocol'],
  broker: ['protocol', 'turns'],
  // Reaches protocol through client, as the diagram says.
  navigator: ['client', 'repomap', 'reports'],
  // protocol and turns are not arrows from cli in DESIGN.md's diagram, but cli uses protocol's
  // types and error codes and runs the turn engine for `clippy classify` and `clippy report`
  // (issue 13 reports this; the design or the code is to follow).
  cli: ['client', 'navigator', 'reports', 'repomap', 'protocol', 'turns', 'acp'],
  // Test helpers: start daemons and speak the protocol like a client.
  testkit: ['client', 'protocol'],
  // The page speaks the protocol over a WebSocket (its tests drive a daemon through testkit).
  web: ['protocol'],
  // The ACP adapter is a client (DESIGN.md "Homes"): the daemon through client, the protocol's
  // types and error codes.
  acp: ['client', 'protocol'],
  // The VS Code extension is a client (DESIGN.md "Homes"): the daemon through client, the
  // protocol's types and constants.
  vscode: ['client', 'protocol'],
};

/** Node built-ins the turn engine may use: pure computation, no I/O and no timers. */
const PURE_BUILTINS = ['string_decoder'];

const SOURCE_FILES = '**/*.{ts,mts,cts,js,mjs,cjs}';
const TEST_FILES = ['**/*.test.ts', '**/test/**', '**/test-support/**', '**/vitest.config.ts'];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A module specifier and its subpaths: `name` and `name/…`. */
const moduleRegex = (names) => `^(?:${names.map(escape).join('|')})(?:/|$)`;

const nodePty = {
  regex: moduleRegex(['node-pty']),
  message: 'node-pty is imported in broker/src/pty/ only; other code uses PtyProcess.',
};

function ourPackages(pkg, extra) {
  const allowed = [...ALLOWED[pkg], ...extra];
  const except = allowed.length > 0 ? `(?!${moduleRegex(allowed).slice(1)})` : '';
  const may = allowed.length > 0 ? allowed.join(', ') : 'nothing of ours';
  return {
    regex: `^@clippy/${except}`,
    message: `${pkg} may import ${may} (DESIGN.md "Packages").`,
  };
}

const ioBuiltins = {
  // `node:` names (some exist only with the prefix) and bare names of the same modules.
  regex:
    `^(?:node:(?!${moduleRegex(PURE_BUILTINS).slice(1)})|` +
    `${moduleRegex([...new Set(builtinModules.map((m) => m.split('/')[0]))].filter((m) => !PURE_BUILTINS.includes(m))).slice(1)})`,
  message: `turns is pure (DESIGN.md "Packages"): of Node's modules it may import ${PURE_BUILTINS.join(', ')} only (no I/O).`,
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
const CLOCK_MESSAGE = 'turns is pure: time is passed in, never read (DESIGN.md "Packages").';

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
      message: 'turns is pure: no timers of its own (DESIGN.md "Packages").',
    })),
    { name: 'process', message: 'turns is pure: no process state or I/O (DESIGN.md "Packages").' },
    { name: 'fetch', message: 'turns is pure: no I/O (DESIGN.md "Packages").' },
  ],
  'no-restricted-properties': [
    'error',
    { object: 'Date', property: 'now', message: CLOCK_MESSAGE },
    { object: 'performance', property: 'now', message: CLOCK_MESSAGE },
  ],
};

/** Flat-config blocks, in order: shipped code, broker's PTY folder, then test code (wins). */
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
    name: 'clippy/boundaries/broker/pty',
    files: [`${root}/src/pty/${SOURCE_FILES}`],
    rules: importRules([ourPackages(pkg, [])]),
  };
  return pkg === 'broker' ? [shipped, pty, tests] : [shipped, tests];
});
