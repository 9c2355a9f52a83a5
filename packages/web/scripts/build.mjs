// Builds the page into dist/assets: one JavaScript bundle (xterm.js and msgpackr inside, no
// CDN: the page works offline), its service worker (sw.js), one stylesheet (xterm.js's, the
// page's and the diff panel's), index.html, the web app manifest and the icons.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'assets');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

await build({
  entryPoints: {
    app: join(root, 'src', 'page', 'main.ts'),
    sw: join(root, 'src', 'sw', 'sw.ts'),
  },
  bundle: true,
  format: 'iife',
  target: 'es2022',
  platform: 'browser',
  minify: true,
  sourcemap: false,
  outdir: out,
  logLevel: 'warning',
  legalComments: 'none',
});
// esbuild wrote the imported xterm.css beside the bundle as app.css: the page's own rules follow.
const xtermCss = readFileSync(join(out, 'app.css'), 'utf8');
writeFileSync(
  join(out, 'app.css'),
  xtermCss +
    readFileSync(join(root, 'static', 'style.css'), 'utf8') +
    readFileSync(join(root, 'static', 'diff.css'), 'utf8'),
);
for (const file of [
  'index.html',
  'favicon.svg',
  'manifest.webmanifest',
  'icon-192.png',
  'icon-512.png',
])
  copyFileSync(join(root, 'static', file), join(out, file));
