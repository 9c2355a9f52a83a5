// Bundles the extension (src/extension.ts, @clippy/client and protocol, their npm dependencies)
// into one CommonJS file, dist/extension.cjs: the .vsix then needs no node_modules. `vscode` is
// the editor's own module, provided at run time.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

await build({
  entryPoints: [join(root, 'src', 'extension.ts')],
  outfile: join(root, 'dist', 'extension.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  // VS Code 1.90's extension host runs Node 20.
  target: 'node20',
  // Our packages from their sources, as vitest sees them.
  conditions: ['source'],
  external: [
    'vscode',
    // ws's optional native speed-ups: it runs without them (it require()s them in a try).
    'bufferutil',
    'utf-8-validate',
  ],
  // msgpackr's optional native decoder: absent here, msgpackr decodes in JavaScript.
  plugins: [
    {
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
    },
  ],
  sourcemap: false,
  // Smaller to load; names kept so errors and the extension host's log stay readable.
  minify: true,
  keepNames: true,
  logLevel: 'warning',
});
