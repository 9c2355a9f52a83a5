import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';

/** Content types of the files the page is built into; anything else is not served. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
  '.webmanifest': 'application/manifest+json',
};

export interface Asset {
  body: Buffer;
  type: string;
}

/** Where @clippy/web ships its built page (dist/assets), or null when it is not installed. */
export function webAssetsDir(): string | null {
  try {
    const require = createRequire(import.meta.url);
    return join(dirname(require.resolve('@clippy/web/package.json')), 'dist', 'assets');
  } catch {
    return null;
  }
}

/**
 * The page's files, read once when the endpoint starts (a few hundred KiB): requests are then
 * answered from memory, and no request path ever reaches the file system.
 */
export function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const type = CONTENT_TYPES[extname(name)];
    const file = join(dir, name);
    if (!type || !statSync(file).isFile()) continue;
    assets.set(`/${name}`, { body: readFileSync(file), type });
  }
  if (!assets.has('/index.html'))
    throw new Error(`${dir} has no index.html (is @clippy/web built?)`);
  return assets;
}
