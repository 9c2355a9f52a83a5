// Renders media/icon.svg to media/icon.png (256×256, transparent corners), the icon the
// Marketplace and Open VSX show: they take PNG only. The PNG is committed, so packaging needs
// no browser; run this after changing the SVG: `node scripts/render-icon.mjs` (needs the
// system Chromium, /usr/bin/chromium, driven by playwright-core as the tests drive it).
import { chromium } from 'playwright-core';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const media = join(dirname(fileURLToPath(import.meta.url)), '..', 'media');
/** The Marketplace shows 128 px; twice that stays sharp on high-density screens. */
const SIZE = 256;

const svg = readFileSync(join(media, 'icon.svg'), 'utf8');
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  // Run as root in containers, where Chromium's sandbox cannot start.
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE } });
  await page.setContent(
    `<html><body style="margin:0;background:transparent">${svg.replace(
      /width="\d+" height="\d+"/,
      `width="${SIZE}" height="${SIZE}"`,
    )}</body></html>`,
  );
  const png = await page.screenshot({
    omitBackground: true,
    clip: { x: 0, y: 0, width: SIZE, height: SIZE },
  });
  writeFileSync(join(media, 'icon.png'), png);
  process.stdout.write(`wrote media/icon.png (${png.length} bytes)\n`);
} finally {
  await browser.close();
}
