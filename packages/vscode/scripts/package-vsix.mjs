// Packs the extension into dist/clippy-<version>.vsix with @vscode/vsce, offline. What ships is
// staged in dist/vsix/: the bundle (dist/extension.cjs, built by scripts/bundle.mjs: @clippy/client
// and its dependencies inside, so no node_modules), the README, the repository's LICENSE, the
// icons (media/) and a manifest made from this package.json without the workspace's parts (its
// npm name is scoped, its scripts and dependencies are for building). The .vsix is what the
// Marketplace and Open VSX take: vsce packs it without a warning (the test checks). Run by
// `npm run package -w @clippy/vscode`; `--out DIR` writes the stage and the .vsix there instead
// of dist/ (the test does).
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

/** The workspace's parts of package.json, not the extension's (see the top of this file). */
const WORKSPACE_ONLY = ['private', 'type', 'scripts', 'dependencies', 'devDependencies'];
/** The activity bar's icon (contributes.viewsContainers): an SVG, which VS Code paints in the theme's colour. */
const ACTIVITY_BAR_ICON = pkg.contributes.viewsContainers.activitybar[0].icon;
/** What ships besides the manifest: the bundle, the README, the licence and the icons. */
const SHIPPED = ['dist/extension.js', 'README.md', 'LICENSE', pkg.icon, ACTIVITY_BAR_ICON];

// The extension's id is publisher.name: `clippy.clippy`; the file is clippy-<version>.vsix.
const manifest = {
  ...Object.fromEntries(Object.entries(pkg).filter(([k]) => !WORKSPACE_ONLY.includes(k))),
  name: 'clippy',
  // CommonJS under a .js name: the staged manifest has no "type": "module".
  main: './dist/extension.js',
  files: SHIPPED,
};
writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
copyFileSync(join(root, 'dist', 'extension.cjs'), join(stage, 'dist', 'extension.js'));
copyFileSync(join(root, 'README.md'), join(stage, 'README.md'));
// One licence for the whole repository (vsce finds LICENSE beside the manifest).
copyFileSync(join(root, '..', '..', 'LICENSE'), join(stage, 'LICENSE'));
// The Marketplace's icon (a PNG rendered from media/icon.svg) and the activity bar's.
for (const icon of [pkg.icon, ACTIVITY_BAR_ICON]) {
  mkdirSync(dirname(join(stage, icon)), { recursive: true });
  copyFileSync(join(root, icon), join(stage, icon));
}

const out = join(outDir, `clippy-${pkg.version}.vsix`);
await createVSIX({
  cwd: stage,
  packagePath: out,
  // Everything it needs is in the bundle.
  dependencies: false,
});
