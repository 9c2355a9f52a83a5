import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Page } from 'playwright-core';
import { TestDaemon } from '@clippy/testkit/daemon';
import { runClippy } from '@clippy/testkit/cli-pty';
import { spawnAgent, submissions, waitState } from '@clippy/testkit/agents/harness';
import { TestBrowser, chromiumMissing } from '@clippy/testkit/chromium';
import { until } from '@clippy/testkit/until';

/** Where the test keeps its screenshots (gitignored): a test artifact to look at. */
const ARTIFACTS = join(import.meta.dirname, '..', 'test-results');
/** Generous waits for page updates on a loaded 2-core machine. */
const PAGE_TIMEOUT_MS = 15_000;

const missing = chromiumMissing();
if (missing) console.warn(`skipping the web view browser tests: ${missing}`);

/** Status of an HTTP request to the endpoint, with headers a browser (or attacker) would send. */
async function httpStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

/** What a WebSocket upgrade to the endpoint gets: 'open', or the HTTP status it was refused with. */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.terminate();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(String(res.statusCode));
      ws.terminate();
    });
    ws.on('error', () => resolve('error'));
  });
}

const cardState = (page: Page, name: string) =>
  page.locator(`.card[data-name="${name}"]`).getAttribute('data-state');

describe.skipIf(missing)('web view in a real Chromium', () => {
  let d: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  let url: string;
  let port: number;
  let token: string;
  let alphaLog: string;
  let betaLog: string;
  let c: Awaited<ReturnType<TestDaemon['connect']>>;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    d = await TestDaemon.start();
    c = await d.connect();
    // Think time long enough for the page to show `busy` before the answer.
    alphaLog = await spawnAgent(d, c, 'alpha', 'aider', 'aider', ['--delay', '1500']);
    betaLog = await spawnAgent(d, c, 'beta', 'aider', 'aider');
    const run = await runClippy(['web', '--json'], d.env.env);
    expect(run.code, run.stderr).toBe(0);
    ({ url, port, token } = JSON.parse(run.stdout) as { url: string; port: number; token: string });
    browser = await TestBrowser.launch();
    page = await browser.browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(PAGE_TIMEOUT_MS);
  });

  afterAll(async () => {
    await browser?.dispose();
    await c?.close();
    await d?.stop();
  });

  it('prints a URL on 127.0.0.1 with a token', () => {
    expect(url).toBe(`http://127.0.0.1:${port}/?token=${token}`);
    expect(token).toMatch(/^[0-9a-f]{48}$/);
  });

  it('shows every session with its live state as an agent goes busy → idle', async () => {
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await cardState(page, 'alpha')).toBe('idle');
    expect(await cardState(page, 'beta')).toBe('idle');
    await c.request('send', { session: 'alpha', text: 'first question', enter: true });
    await page.waitForSelector('.card[data-name="alpha"][data-state="busy"]');
    await page.waitForSelector('.card[data-name="alpha"][data-state="idle"]');
    const card = page.locator('.card[data-name="alpha"]');
    await expect.poll(() => card.locator('.turns').textContent()).toBe('1 turn');
    await expect
      .poll(() => card.locator('.preview').textContent())
      .toContain('ANSWER: first question');
    expect(await page.title()).toBe('clippy — 2 sessions');
  });

  it('highlights a blocked session and names it in the tab title', async () => {
    const wrapper = await d.env.connect({ role: 'wrapper' });
    try {
      await wrapper.request('register', { session: 'asker', pid: process.pid, pattern: 'generic' });
      await wrapper.request('set_state', { session: 'asker', state: 'blocked' });
      await page.waitForSelector('.card[data-name="asker"][data-state="blocked"]');
      await expect.poll(() => page.title()).toBe('⚠ blocked: asker — clippy');
      await wrapper.request('set_state', { session: 'asker', state: 'idle' });
      await expect.poll(() => page.title()).not.toContain('blocked');
    } finally {
      await wrapper.close();
    }
    // The wrapper's end ends its session: the card says so.
    await page.waitForSelector('.card[data-name="asker"][data-state="exited"]');
  });

  it('draws a route between two sessions and keeps a screenshot', async () => {
    await c.request('add_route', { from: ['alpha'], to: 'beta', name: 'review' });
    await page.waitForSelector('svg.routes g.route[data-route="review"] path');
    await c.request('pause_route', { route: 'review' });
    await page.screenshot({ path: join(ARTIFACTS, 'web-grid.png') });
  });

  it('types in the in-page terminal: the keys reach the PTY and its echo shows', async () => {
    await page.click('.card[data-name="alpha"]');
    await page.waitForSelector('#session .terminal .xterm');
    // The replayed screen holds the first answer.
    await expect
      .poll(() => page.locator('#session .xterm-rows').textContent())
      .toContain('ANSWER: first question');
    await page.click('#session .terminal');
    await page.keyboard.type('typed in the page');
    await expect
      .poll(() => page.locator('#session .xterm-rows').textContent())
      .toContain('typed in the page');
    await page.keyboard.press('Enter');
    await until(
      () => submissions(alphaLog).some((s) => s.text === 'typed in the page'),
      'the agent received the typed line',
      PAGE_TIMEOUT_MS,
    );
    await waitState(c, 'alpha', 'idle', PAGE_TIMEOUT_MS);
    // The timeline grows with the turn; the turn opens to its text.
    await page.waitForSelector('#session .timeline li.turn:nth-child(2)');
    await expect
      .poll(() => page.locator('#session .turn-text').textContent())
      .toContain('ANSWER: typed in the page');
    await page.screenshot({ path: join(ARTIFACTS, 'web-session.png') });
  });

  it('relays the selected turn from the page into another session', async () => {
    await page.selectOption('#session .relay-target', { label: 'beta' });
    await page.click('#session button.relay');
    await page.waitForSelector('#session .status:text("relayed to beta")');
    await until(
      () => submissions(betaLog).some((s) => s.text.includes('ANSWER: typed in the page')),
      'beta received the relayed turn',
      PAGE_TIMEOUT_MS,
    );
  });

  it('refuses a wrong token, a foreign Origin and a foreign Host', async () => {
    const base = `http://127.0.0.1:${port}`;
    const ws = `ws://127.0.0.1:${port}/ws`;
    const wrong = await page.goto(`${base}/?token=${'0'.repeat(48)}`);
    expect(wrong?.status()).toBe(403);
    expect(await httpStatus(`${base}/app.js`)).toBe(403);
    expect(await httpStatus(`${base}/?token=${token}`)).toBe(200);
    expect(await httpStatus(`${base}/?token=${token}`, { origin: 'http://evil.example' })).toBe(
      403,
    );
    expect(await httpStatus(`${base}/?token=${token}`, { host: `evil.example:${port}` })).toBe(403);
    expect(await upgrade(`${ws}?token=${token}`, { origin: base })).toBe('open');
    expect(await upgrade(`${ws}?token=nope`, { origin: base })).toBe('403');
    expect(await upgrade(`${ws}`, { origin: base })).toBe('403');
    expect(await upgrade(`${ws}?token=${token}`, { origin: 'http://evil.example' })).toBe('403');
    expect(await upgrade(`${ws}?token=${token}`, { host: `rebound.example:${port}` })).toBe('403');
    // The daemon is unharmed by the refusals and by a garbage frame from an accepted socket.
    const garbage = new WebSocket(`${ws}?token=${token}`, { origin: base });
    await new Promise((r) => garbage.once('open', r));
    garbage.send(Buffer.from([0xc1, 0xff, 0x00]));
    await new Promise((r) => garbage.once('close', r));
    expect((await c.request('list_sessions', {})).sessions.length).toBeGreaterThan(0);
  });

  it('clippy web --stop ends the endpoint', async () => {
    const run = await runClippy(['web', '--stop', '--json'], d.env.env);
    expect(JSON.parse(run.stdout)).toEqual({ stopped: true });
    await expect(httpStatus(`http://127.0.0.1:${port}/?token=${token}`)).rejects.toThrow();
  });
});
