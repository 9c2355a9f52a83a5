// Packs the extension into dist/clippy-<version>.vsix with @vscode/vsce, offline. What ships is
// staged in dist/vsix/: the bundle (dist/extension.cjs, built by scripts/bundle.mjs: @clippy/client
// and its dependencies inside, so no node_modules), the README and a manifest made from this
// package.json without the workspace's parts (its npm name is scoped, its scripts and
// dependencies are for building). Run by `npm run package -w @clippy/vscode`; `--out DIR` writes
// the stage and the .vsix there instead of dist/ (the test does).
import { createVSIX } from '@vscode/vsce';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const outDir = values.out ? resolve(values.out) : join(root, 'dist');
const stage = join(outDir, 'vsix');
rmSync(stage, { recursive: true, force: true });
mkdirSync(join(stage, 'dist'), { recursive: true });

// The extension's id is publisher.name: `clippy.clippy`; the file is clippy-<version>.vsix.
const manifest = {
  name: 'clippy',
  displayName: pkg.displayName,
  version: pkg.version,
  description: pkg.description,
  publisher: pkg.publisher,
  license: pkg.license,
  engines: pkg.engines,
  categories: pkg.categories,
  // CommonJS under a .js name: the staged manifest has no "type": "module".
  main: './dist/extension.js',
  activationEvents: pkg.activationEvents,
  contributes: pkg.contributes,
  files: ['dist/extension.js', 'README.md'],
};
writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
copyFileSync(join(root, 'dist', 'extension.cjs'), join(stage, 'dist', 'extension.js'));
copyFileSync(join(root, 'README.md'), join(stage, 'README.md'));

const out = join(outDir, `clippy-${pkg.version}.vsix`);
await createVSIX({
  cwd: stage,
  packagePath: out,
  // Everything it needs is in the bundle.
  dependencies: false,
  // Not published to a marketplace: installed from the file (docs/editors.md).
  allowMissingRepository: true,
  skipLicense: true,
});
