/**
 * `npm run bench -- web-switch`: does the web view stay flat when the user switches between
 * session views all day? The real daemon, `clippy web` (the real CLI), the page in headless
 * Chromium (the system one), three sessions with turns (fake agents). The bench opens one
 * session view after another, SWITCHES times, as a click on a card does (`#s=NAME`), waiting each
 * time for the view to be attached and its turns listed. After the first switch (the baseline)
 * and every SAMPLE_EVERY switches it collects garbage and reads Chromium's own counters: JS heap
 * used, DOM nodes, event listeners, and the page's elements. Prints each against the baseline.
 * Asserts nothing.
 */
import type { CDPSession, Page } from 'playwright-core';
import { TestBrowser, chromiumMissing } from '@clippy/testkit/chromium';
import { runClippy } from '@clippy/testkit/cli-pty';
import { TestDaemon, spawnAgent } from './_turns-common.js';

/** Session views opened, one after another (the figure). */
const SWITCHES = 100;
/** Figures are read this often (and after the first switch: the baseline). */
const SAMPLE_EVERY = 25;
/** Sessions switched between. */
const SESSIONS = ['alpha', 'beta', 'gamma'];
/** Generous waits for start-up on a loaded 2-core machine. */
const TIMEOUT_MS = 60_000;

interface Sample {
  switches: number;
  heapMb: number;
  nodes: number;
  listeners: number;
  elements: number;
}

async function sample(page: Page, cdp: CDPSession, switches: number): Promise<Sample> {
  await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = (await cdp.send('Performance.getMetrics')) as {
    metrics: { name: string; value: number }[];
  };
  const metric = (name: string) => metrics.find((m) => m.name === name)?.value ?? NaN;
  return {
    switches,
    heapMb: metric('JSHeapUsedSize') / 1024 / 1024,
    nodes: metric('Nodes'),
    listeners: metric('JSEventListeners'),
    elements: await page.evaluate<number>("document.getElementsByTagName('*').length"),
  };
}

export async function run(): Promise<void> {
  const missing = chromiumMissing();
  if (missing) {
    process.stdout.write(`skipped: ${missing}\n`);
    return;
  }
  const d = await TestDaemon.start();
  let browser: TestBrowser | null = null;
  try {
    const c = await d.connect();
    for (const name of SESSIONS) await spawnAgent(d, c, name, 'aider', 'aider');
    for (const name of SESSIONS) {
      await c.request('send', { session: name, text: `hello ${name}`, enter: true });
    }
    const web = await runClippy(['web', '--json'], d.env.env);
    if (web.code !== 0) throw new Error(`clippy web failed: ${web.stderr}`);
    const { url } = JSON.parse(web.stdout) as { url: string };
    browser = await TestBrowser.launch();
    const page = await browser.browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(TIMEOUT_MS);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]');
    const samples: Sample[] = [];
    for (let i = 1; i <= SWITCHES; i++) {
      const name = SESSIONS[i % SESSIONS.length]!;
      await page.evaluate(`location.hash = 's=${name}'`);
      // Attached (the terminal painted) and its turns listed. A locator's wait keeps no handle:
      // waitForSelector's ElementHandle would hold each old view in the page (DevTools' global
      // handles) and be counted as the page's own leak.
      await page.locator(`#session[data-name="${name}"] .timeline li.turn`).first().waitFor();
      await page.locator(`#session[data-name="${name}"] .xterm-screen`).waitFor();
      if (i === 1 || i % SAMPLE_EVERY === 0) samples.push(await sample(page, cdp, i));
    }
    const base = samples[0]!;
    process.stdout.write(
      `${SWITCHES} session view switches between ${SESSIONS.length} fake agents, headless Chromium 1280×800; ` +
        `figures after garbage collection, baseline = after the first switch\n`,
    );
    process.stdout.write(
      'switches  JS heap MB (×base)   DOM nodes (×base)   listeners (×base)   elements (×base)\n',
    );
    const ratio = (a: number, b: number) => `×${(a / b).toFixed(2)}`;
    for (const s of samples) {
      process.stdout.write(
        `${String(s.switches).padStart(8)}  ${s.heapMb.toFixed(2).padStart(8)} (${ratio(s.heapMb, base.heapMb)})` +
          `   ${String(s.nodes).padStart(7)} (${ratio(s.nodes, base.nodes)})` +
          `   ${String(s.listeners).padStart(7)} (${ratio(s.listeners, base.listeners)})` +
          `   ${String(s.elements).padStart(7)} (${ratio(s.elements, base.elements)})\n`,
      );
    }
    const last = samples.at(-1)!;
    process.stdout.write(
      `per switch after the first: ${((last.elements - base.elements) / (last.switches - 1)).toFixed(1)} elements, ` +
        `${((last.listeners - base.listeners) / (last.switches - 1)).toFixed(1)} listeners, ` +
        `${(((last.heapMb - base.heapMb) * 1024) / (last.switches - 1)).toFixed(1)} KB heap\n`,
    );
    await c.close();
  } finally {
    await browser?.dispose();
    await d.stop();
  }
}
