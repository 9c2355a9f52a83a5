import { copyFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { runClippy } from '@clippy/testkit/cli-pty';
import { choices, spawnAgent, spawnProgram, waitState } from '@clippy/testkit/agents/harness';
import { TestBrowser, chromiumMissing } from '@clippy/testkit/chromium';

/** Where the test keeps its screenshots (gitignored): a test artifact to look at. */
const ARTIFACTS = join(import.meta.dirname, '..', 'test-results');
/** The three phone screenshots the docs show (docs/web.md). */
const DOCS = join(import.meta.dirname, '..', '..', '..', 'docs', 'web');
/** Copying over the committed docs images only when asked: a test run must not dirty the tree. */
const UPDATE_DOCS = process.env.CLIPPY_UPDATE_SCREENSHOTS === '1';
/** Refreshes a docs image from this run's artifact, when asked to. */
const toDocs = (name: string) => {
  if (UPDATE_DOCS) copyFileSync(join(ARTIFACTS, name), join(DOCS, name));
};
/** Generous waits for page updates on a loaded 2-core machine. */
const PAGE_TIMEOUT_MS = 20_000;
/** A phone: an iPhone 12-14's viewport, touch, a coarse pointer. */
const PHONE = { width: 390, height: 844 };
/** The smallest tap target a finger hits reliably (Apple's and WCAG's 44 CSS px). */
const TAP_PX = 44;

const missing = chromiumMissing();

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe.skipIf(missing)('the web view on a phone, and every day', () => {
  let env: DaemonEnv;
  let d: TestDaemon;
  let c: Awaited<ReturnType<TestDaemon['connect']>>;
  let browser: TestBrowser;
  let phone: BrowserContext;
  let page: Page;
  let url: string;
  let port: number;
  let claudeLog: string;

  /** The session's size as the daemon has it (`COLSxROWS`). */
  const sizeOf = async (name: string) => {
    const { sessions } = await c.request('list_sessions', {});
    const s = sessions.find((x) => x.name === name)!;
    return `${s.cols}x${s.rows}`;
  };
  /** `stty size` run in the shell through `clippy ask` (the real CLI): a turn must be detected. */
  const stty = async (name: string) => {
    const run = await runClippy(['ask', name, 'stty size', '--timeout', '20'], env.env, 30_000);
    expect(run.code, run.stderr).toBe(0);
    return run.stdout.trim();
  };
  const shot = (p: Page, name: string) => p.screenshot({ path: join(ARTIFACTS, name) });

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    if (UPDATE_DOCS) mkdirSync(DOCS, { recursive: true });
    port = await freePort();
    env = new DaemonEnv();
    // A web view that stays put: it starts with the daemon, on this port.
    mkdirSync(join(env.env.XDG_CONFIG_HOME!, 'clippy'), { recursive: true });
    writeFileSync(
      join(env.env.XDG_CONFIG_HOME!, 'clippy', 'config.json'),
      JSON.stringify({ web: { port } }),
    );
    d = await TestDaemon.start({ env });
    c = await d.connect();
    await spawnProgram(d, c, 'shell', 'bash', 'bash', ['--norc', '--noprofile', '-i'], 100);
    claudeLog = await spawnAgent(d, c, 'claude', 'claude', 'claude', ['--ask']);
    browser = await TestBrowser.launch();
    phone = await browser.browser.newContext({
      viewport: PHONE,
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    page = await phone.newPage();
    page.setDefaultTimeout(PAGE_TIMEOUT_MS);
  });

  afterAll(async () => {
    await browser?.dispose();
    await c?.close();
    await d?.stop();
  });

  it('starts with the daemon on the configured port; the token is kept in a 0600 file', async () => {
    const run = await runClippy(['web', '--json'], env.env);
    expect(run.code, run.stderr).toBe(0);
    const status = JSON.parse(run.stdout) as { url: string; port: number; started: boolean };
    expect(status).toMatchObject({ port, started: false });
    url = status.url;
    const file = join(env.env.XDG_STATE_HOME!, 'clippy', 'web-token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('lays the grid out in one column on a phone: full-width cards, no sideways scrolling, 44 px targets', async () => {
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector('.card[data-name="claude"]');
    const layout = await page.evaluate(() => {
      const cards = [...document.querySelectorAll<HTMLElement>('.card')].map((e) =>
        e.getBoundingClientRect(),
      );
      return {
        scrollWidth: document.documentElement.scrollWidth,
        left: new Set(cards.map((r) => Math.round(r.left))).size,
        widths: cards.map((r) => r.width),
        header: document.querySelector('.top')!.getBoundingClientRect().height,
      };
    });
    expect(layout.scrollWidth).toBeLessThanOrEqual(PHONE.width);
    expect(layout.left).toBe(1);
    for (const w of layout.widths) expect(w).toBeGreaterThan(PHONE.width - 40);
    // The new-session form is folded: the header stays a header.
    expect(layout.header).toBeLessThan(120);
    await expectTapTargets(page);
    await shot(page, 'phone-grid.png');
  });

  it('a phone-sized page never resizes the session it shows; turns are still detected', async () => {
    const before = await sizeOf('shell');
    expect(before).toBe('100x24');
    await page.locator('.card[data-name="shell"]').tap();
    await page.waitForSelector('#session[data-name="shell"][data-ready="true"]');
    // Shown at its real size: at 100 % (fitted to the phone's width it would be unreadable),
    // and scaled down on request.
    expect(await page.locator('#session .term-box').getAttribute('data-size')).toBe('100x24');
    expect(await page.locator('#session .term-box').getAttribute('data-scale')).toBe('1.00');
    await page.locator('button.zoom').tap();
    expect(
      Number(await page.locator('#session .term-box').getAttribute('data-scale')),
    ).toBeLessThan(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      PHONE.width,
    );
    // Every event that used to resize it: the attach, the phone turned sideways and back, a tap
    // on the terminal and keys typed into it, 100 % zoom and back.
    await page.setViewportSize({ width: PHONE.height, height: PHONE.width });
    await page.setViewportSize(PHONE);
    await page.locator('#session .term-box').tap();
    await page.keyboard.type('# typed on the phone');
    await page.keyboard.press('Enter');
    await page.locator('button.zoom').tap();
    expect(await page.locator('#session .term-box').getAttribute('data-scale')).toBe('1.00');
    await page.locator('button.zoom').tap();
    expect(await page.locator('#session .term-box').getAttribute('data-scale')).not.toBe('1.00');
    expect(await sizeOf('shell')).toBe(before);
    expect(await stty('shell')).toContain('24 100');
    expect(await sizeOf('shell')).toBe(before);
    await shot(page, 'phone-session.png');
    toDocs('phone-session.png');
  });

  it('"Fit to window" takes the size; when the page leaves, the size returns to the driving client’s', async () => {
    // A terminal client that drives the size (an interactive attach, 100×30).
    const driver = await d.connect();
    try {
      await driver.request('attach', { session: 'shell', cols: 100, rows: 30 });
      expect(await sizeOf('shell')).toBe('100x30');
      await page.locator('button.fit').tap();
      await expect.poll(() => sizeOf('shell')).not.toBe('100x30');
      const fitted = await sizeOf('shell');
      const [cols, rows] = fitted.split('x').map(Number) as [number, number];
      expect(cols).toBeLessThan(100);
      // The page shows it at the new size, unscaled.
      await expect
        .poll(() => page.locator('#session .term-box').getAttribute('data-size'))
        .toBe(fitted);
      expect(await stty('shell')).toContain(`${rows} ${cols}`);
      // Back to the grid: the page detaches, the size is the driver's again.
      await page.locator('button.back').tap();
      await expect.poll(() => sizeOf('shell')).toBe('100x30');
      expect(await stty('shell')).toContain('30 100');
      // The CLI equivalent: clippy resize.
      const run = await runClippy(['resize', 'shell', '--cols', '90', '--rows', '20'], env.env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('shell: 90x20\n');
      expect(await sizeOf('shell')).toBe('90x20');
      const bad = await runClippy(['resize', 'shell'], env.env);
      expect(bad.code).toBe(64);
      expect(bad.stderr).toContain('say the size: --fit, or --cols and/or --rows');
    } finally {
      await driver.close();
    }
  });

  it('answers a blocked agent’s question with one tap', async () => {
    await c.request('send', { session: 'claude', text: 'run the tests', enter: true });
    await waitState(c, 'claude', 'blocked', 20_000);
    // The "waiting for you" pill is whole on the phone's screen.
    const pill = await page.locator('#blocked').boundingBox();
    expect(pill).not.toBeNull();
    expect(pill!.x).toBeGreaterThanOrEqual(0);
    expect(pill!.x + pill!.width).toBeLessThanOrEqual(PHONE.width);
    await shot(page, 'phone-grid.png');
    toDocs('phone-grid.png');
    await page.locator('#blocked a', { hasText: 'claude' }).tap();
    await page.waitForSelector('#session[data-name="claude"] .answer:not([hidden])');
    const panel = page.locator('#session .answer');
    expect(await panel.locator('.question').textContent()).toBe('Do you want to proceed?');
    const labels = await panel.locator('button.choice').allTextContents();
    expect(labels).toHaveLength(3);
    expect(labels[0]).toBe('Yes');
    await expectTapTargets(page, '#session .answer');
    await shot(page, 'phone-blocked.png');
    toDocs('phone-blocked.png');
    // One tap on the second choice: the agent gets exactly it, and finishes its turn.
    await panel.locator('button.choice').nth(1).tap();
    await waitState(c, 'claude', 'idle', 20_000);
    expect(choices(claudeLog)).toEqual([labels[1]]);
    await page.waitForSelector('#session .answer[hidden]', { state: 'attached' });
    await page.waitForSelector('#session .timeline li.turn');
  });

  it('the arrow and Enter keys answer too, through the same keys as send --keys', async () => {
    await c.request('send', { session: 'claude', text: 'again', enter: true });
    await waitState(c, 'claude', 'blocked', 20_000);
    await page.waitForSelector('#session .answer:not([hidden])');
    await page.locator('#session .answer button.key[data-key="Down"]').tap();
    await page.locator('#session .answer button.key[data-key="Enter"]').tap();
    await waitState(c, 'claude', 'idle', 20_000);
    // Down then Enter: the second choice, as `clippy send --keys Down Enter` picks it.
    expect(choices(claudeLog)).toHaveLength(2);
    expect(choices(claudeLog)[1]).toBe(choices(claudeLog)[0]);
  });

  it('the text box answers in words (typed as `clippy send` does), and Esc is the agent’s own cancel', async () => {
    const panel = page.locator('#session .answer');
    const box = panel.locator('form.answer-text input');
    await c.request('send', { session: 'claude', text: 'in words', enter: true });
    await waitState(c, 'claude', 'blocked', 20_000);
    await page.waitForSelector('#session .answer:not([hidden])');
    const labels = await panel.locator('button.choice').allTextContents();
    // Claude Code takes a choice's number as its answer: "3" picks the third at once.
    await box.fill('3');
    await panel.locator('form.answer-text button[type="submit"]').tap();
    await waitState(c, 'claude', 'idle', 20_000);
    expect(choices(claudeLog).slice(2)).toEqual([labels[2]]);
    await page.waitForFunction(
      () =>
        (document.querySelector('#session .answer form.answer-text input') as HTMLInputElement)
          .value === '',
    );
    await c.request('send', { session: 'claude', text: 'then cancel', enter: true });
    await waitState(c, 'claude', 'blocked', 20_000);
    await page.waitForSelector('#session .answer:not([hidden])');
    await panel.locator('button.key[data-key="Esc"]').tap();
    await waitState(c, 'claude', 'idle', 20_000);
    // Esc is the dialog's "No" (its last choice), as in Claude Code.
    expect(choices(claudeLog).slice(3)).toEqual([labels[labels.length - 1]]);
    await page.waitForSelector('#session .answer[hidden]', { state: 'attached' });
  });

  it('comes back by itself after `clippy daemon restart` and `clippy web --stop`/`clippy web`, without a reload', async () => {
    await page.locator('button.back').tap();
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    const restart = await runClippy(['daemon', 'restart', '--force'], env.env, 60_000);
    expect(restart.code, restart.stderr).toBe(0);
    await d.env.discoverPid();
    await c.close();
    c = await d.connect();
    await page.waitForSelector('#banner[data-link="up"]', { state: 'attached' });
    // The new daemon's sessions are listed: one started now shows up live.
    await c.request('spawn', { command: 'sh', args: ['-i'], name: 'after-restart', cwd: env.root });
    await page.waitForSelector('.card[data-name="after-restart"]');
    expect(
      await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded),
    ).toBe(true);
    // The web view stopped and started again (same port, same token): the tab reconnects.
    expect((await runClippy(['web', '--stop'], env.env)).code).toBe(0);
    await page.waitForSelector('#banner[data-link="down"]');
    expect(await page.locator('#banner').textContent()).toContain('Reconnecting by itself');
    expect((await runClippy(['web'], env.env)).code).toBe(0);
    await page.waitForSelector('#banner[data-link="up"]', { state: 'attached' });
    await page.locator('.card[data-name="after-restart"]').tap();
    await page.waitForSelector('#session[data-name="after-restart"][data-ready="true"]');
    const stats = await page.evaluate(() =>
      (
        window as unknown as { __clippy: { stats: () => { reconnections: number } } }
      ).__clippy.stats(),
    );
    expect(stats.reconnections).toBeGreaterThanOrEqual(2);
    expect(
      await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded),
    ).toBe(true);
  });

  it('clippy web --rotate makes a new token: the old tab is let go and says what to do', async () => {
    const run = await runClippy(['web', '--rotate', '--json'], env.env);
    expect(run.code, run.stderr).toBe(0);
    const next = JSON.parse(run.stdout) as { url: string; port: number };
    expect(next.port).toBe(port);
    expect(next.url).not.toBe(url);
    // The tab's session is refused: it says so, and that the new URL is to be opened.
    await page.waitForSelector('#banner[data-link="signed-out"]');
    expect(await page.locator('#banner').textContent()).toContain(
      'the web view’s token was changed (`clippy web --rotate`), so the old URL no longer signs in. Open the new URL that `clippy web` prints.',
    );
    await page.goto(next.url);
    await page.waitForSelector('body[data-ready="true"]');
    url = next.url;
  });

  it('on a desktop: Remove for exited sessions, disabled buttons that look it, a favicon', async () => {
    const desktop = await browser.browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await desktop.goto(url);
      await desktop.waitForSelector('body[data-ready="true"]');
      // A session with no turn: nothing to copy or relay, and the buttons say so.
      await desktop.locator('.card[data-name="after-restart"]').click();
      await desktop.waitForSelector('#session[data-name="after-restart"][data-ready="true"]');
      for (const button of ['button.copy', 'button.relay']) {
        const b = desktop.locator(`#session ${button}`);
        expect(await b.isDisabled()).toBe(true);
        expect(Number(await b.evaluate((e) => getComputedStyle(e).opacity))).toBeLessThan(0.6);
        expect(await b.evaluate((e) => getComputedStyle(e).cursor)).toBe('not-allowed');
      }
      desktop.once('dialog', (dialog) => void dialog.accept());
      await desktop.locator('#session button.kill').click();
      await desktop.waitForSelector('#session[data-state="exited"]');
      expect(await desktop.locator('#session button.kill').isHidden()).toBe(true);
      desktop.once('dialog', (dialog) => void dialog.accept());
      await desktop.locator('#session button.remove').click();
      await desktop.waitForSelector('#session[data-state="removed"]');
      const { sessions } = await c.request('list_sessions', {});
      expect(sessions.map((s) => s.name)).not.toContain('after-restart');
      const icon = await desktop.request.get(`http://127.0.0.1:${port}/favicon.ico`);
      expect(icon.status()).toBe(200);
      expect(icon.headers()['content-type']).toBe('image/svg+xml');
      expect(await desktop.locator('link[rel="icon"]').getAttribute('href')).toBe('/favicon.svg');
    } finally {
      await desktop.close();
    }
  });
});

/** Every visible button, link and summary inside `scope` is at least TAP_PX tall. */
async function expectTapTargets(page: Page, scope = 'body'): Promise<void> {
  const small = await page.evaluate(
    ({ scope, min }) =>
      [...document.querySelectorAll<HTMLElement>(`${scope} button, ${scope} a, ${scope} summary`)]
        .filter((e) => e.offsetParent !== null)
        .map((e) => ({ text: e.textContent?.trim(), height: e.getBoundingClientRect().height }))
        .filter((e) => e.height < min),
    { scope, min: TAP_PX - 0.5 },
  );
  expect(small).toEqual([]);
}
