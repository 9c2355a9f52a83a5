import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { runClippy } from '@clippy/testkit/cli-pty';
import { choices, spawnAgent, spawnProgram, waitState } from '@clippy/testkit/agents/harness';
import { TestBrowser, chromiumMissing } from '@clippy/testkit/chromium';
import { FakeNotifySend } from '@clippy/testkit/fake-notify';

// Away from the desk (issue 47), in a real Chromium at phone size (390×844, touch): the page as
// an installable app whose notifications go through its service worker (Android's Chrome
// refuses `new Notification()`, emulated here), the one-time code of `clippy web --open`, a
// port that stays across stops, restarts and `kill -9`, and the phone fixes. One daemon, one
// browser, one phone page for the whole file (the tests run in order).

/** Generous waits for page updates on a loaded 2-core machine. */
const PAGE_TIMEOUT_MS = 20_000;
const PHONE = { width: 390, height: 844 };
/** A finger's target (Apple's and WCAG's 44 CSS px). */
const TAP_PX = 44;

const missing = chromiumMissing();

interface SwNote {
  title: string;
  body: string;
  actions: string[];
  data: { name: string; choices?: { label: string }[] };
}

declare global {
  interface Window {
    __swNotes: SwNote[];
  }
}

describe.skipIf(missing)('away from the desk: the page on a phone', { timeout: 120_000 }, () => {
  let env: DaemonEnv;
  let d: TestDaemon;
  let fake: FakeNotifySend;
  let c: Awaited<ReturnType<TestDaemon['connect']>>;
  let browser: TestBrowser;
  let phone: BrowserContext;
  let page: Page;
  let port: number;
  let askerLog: string;
  const opened = () => join(fake.dir, 'opened.log');

  const sizeOf = async (name: string) => {
    const { sessions } = await c.request('list_sessions', {});
    const s = sessions.find((x) => x.name === name)!;
    return `${s.cols}x${s.rows}`;
  };
  const pageClient = async () =>
    (await c.request('notify_settings', {})).clients.filter((p) => p.kind === 'page');
  const swNotes = () => page.evaluate(() => window.__swNotes);
  /** Asks the fake aider something: it asks "Run shell command?" first (blocked). */
  const ask = async (text: string) => {
    await c.request('send', { session: 'asker', text, enter: true });
    await waitState(c, 'asker', 'blocked', PAGE_TIMEOUT_MS);
  };

  beforeAll(async () => {
    fake = new FakeNotifySend();
    // The desktop's opener, faked: it records what `clippy web --open` hands it.
    const opener = join(fake.dir, 'xdg-open');
    writeFileSync(opener, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened()}'\n`);
    chmodSync(opener, 0o755);
    // A desktop in the daemon's environment: were the page not to take a notification,
    // notify-send would be run (and recorded). No config.json: the port is the remembered one.
    env = new DaemonEnv({ DISPLAY: ':99', PATH: fake.path() });
    d = await TestDaemon.start({ env });
    c = await d.connect();
    await spawnProgram(d, c, 'shell', 'bash', 'bash', ['--norc', '--noprofile', '-i'], 100);
    askerLog = await spawnAgent(d, c, 'asker', 'aider', 'aider', ['--ask']);
    browser = await TestBrowser.launch();
    phone = await browser.browser.newContext({
      viewport: PHONE,
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      permissions: ['notifications'],
    });
    // Android's Chrome: `new Notification()` throws; only a service worker may show one. What
    // the page hands its worker is recorded, then shown.
    await phone.addInitScript(() => {
      if (typeof window === 'undefined') return;
      window.__swNotes = [];
      const proto = ServiceWorkerRegistration.prototype;
      const real = proto.showNotification;
      proto.showNotification = function (title: string, options?: NotificationOptions) {
        const o = (options ?? {}) as NotificationOptions & { actions?: { title: string }[] };
        window.__swNotes.push({
          title,
          body: o.body ?? '',
          actions: (o.actions ?? []).map((a) => a.title),
          data: o.data as SwNote['data'],
        });
        return real.call(this, title, options).catch(() => undefined);
      };
      class AndroidNotification {
        static readonly maxActions = 2;
        static get permission(): NotificationPermission {
          return 'granted';
        }
        static requestPermission(): Promise<NotificationPermission> {
          return Promise.resolve('granted');
        }
        constructor() {
          throw new TypeError(
            "Failed to construct 'Notification': Illegal constructor. Use ServiceWorkerRegistration.showNotification() instead.",
          );
        }
      }
      (window as unknown as { Notification: unknown }).Notification = AndroidNotification;
    });
    page = await phone.newPage();
    page.setDefaultTimeout(PAGE_TIMEOUT_MS);
  });

  afterAll(async () => {
    await browser?.dispose();
    await c?.close();
    await d?.stop();
    fake?.dispose();
  });

  it('clippy web --open hands the browser a one-time code: it signs in once, a second use is refused', async () => {
    const run = await runClippy(['web', '--open', '--json'], env.env);
    expect(run.code, run.stderr).toBe(0);
    const status = JSON.parse(run.stdout) as { url: string; port: number; token: string };
    port = status.port;
    // The opener got a file; the file leads to a code, not the token.
    await expect.poll(() => readFileSync(opened(), 'utf8').trim().length).toBeGreaterThan(0);
    const file = fileURLToPath(readFileSync(opened(), 'utf8').trim().split('\n')[0]!);
    const html = readFileSync(file, 'utf8');
    expect(html).not.toContain(status.token);
    const codeUrl = /url=([^"]+)"/u.exec(html)![1]!;
    expect(codeUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/#code=[0-9a-f]{32}$`, 'u'));
    await page.goto(codeUrl);
    await page.waitForSelector('body[data-ready="true"]');
    // Out of the address bar (and so out of the history entry): nothing but the page.
    expect(page.url()).toBe(`http://127.0.0.1:${port}/`);
    // A second use (the history's copy, another tab) is refused.
    const again = await phone.newPage();
    try {
      await again.goto(codeUrl);
      await again.waitForSelector('#banner:not([hidden])');
      expect(await again.locator('#banner').textContent()).toContain('used already or has expired');
    } finally {
      await again.close();
    }
    // The printed URL (a phone's) still carries the token and signs in as before.
    expect(status.url).toBe(`http://127.0.0.1:${port}/#token=${status.token}`);
  });

  it('is an installable app: a manifest with name, icons and display standalone, and a service worker', async () => {
    expect(await page.locator('link[rel="manifest"]').getAttribute('href')).toBe(
      '/manifest.webmanifest',
    );
    const res = await page.request.get(`http://127.0.0.1:${port}/manifest.webmanifest`);
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toBe('application/manifest+json');
    const manifest = (await res.json()) as {
      name: string;
      display: string;
      start_url: string;
      icons: { src: string; sizes: string; type: string }[];
    };
    expect(manifest).toMatchObject({ name: 'clippy', display: 'standalone', start_url: '/' });
    const sizes = manifest.icons.map((i) => i.sizes);
    expect(sizes).toEqual(expect.arrayContaining(['192x192', '512x512']));
    for (const icon of manifest.icons) {
      const got = await page.request.get(`http://127.0.0.1:${port}${icon.src}`);
      expect(got.status(), icon.src).toBe(200);
      expect(got.headers()['content-type']).toBe(icon.type);
    }
    const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
    expect(scope).toBe(`http://127.0.0.1:${port}/`);
  });

  it('shows notifications through its service worker where new Notification() is refused; a question’s choices are its actions', async () => {
    // The page may notify (its worker shows them): the desktop's popup is left to it.
    await expect.poll(async () => (await pageClient()).map((p) => p.can_notify)).toEqual([true]);
    await ask('first question');
    await expect.poll(swNotes).toHaveLength(1);
    const [blocked] = await swNotes();
    expect(blocked).toMatchObject({
      title: 'asker needs you',
      body: 'Run shell command?',
      actions: ['Yes', 'No'],
      data: { name: 'asker' },
    });
    // Its first action tapped: the platform's click, played in the worker (headless Chromium
    // keeps what it was shown). The worker tells the open page, which answers with it.
    const [worker] = phone.serviceWorkers();
    expect(worker).toBeDefined();
    const clicked = await worker!.evaluate(async () => {
      const scope = self as unknown as {
        registration: { getNotifications(): Promise<Notification[]> };
        dispatchEvent(e: Event): boolean;
      };
      const shown = await scope.registration.getNotifications();
      const note = shown.find((n) => n.title === 'asker needs you');
      if (!note) return `shown: ${shown.map((n) => n.title).join(', ') || 'none'}`;
      const Ev = (self as unknown as { NotificationEvent: new (t: string, i: object) => Event })
        .NotificationEvent;
      scope.dispatchEvent(new Ev('notificationclick', { notification: note, action: 'choice-0' }));
      return 'clicked';
    });
    expect(clicked).toBe('clicked');
    await waitState(c, 'asker', 'idle', PAGE_TIMEOUT_MS);
    expect(choices(askerLog)).toEqual(['Yes']);
    // It opened the session: quiet for it now; back to the grid to hear of its turns.
    await page.waitForSelector('#session[data-name="asker"]');
    await page.locator('button.back').tap();
    await expect.poll(async () => (await pageClient())[0]?.viewing).toBeNull();
    await ask('second question');
    const titled = async (title: string) => (await swNotes()).filter((n) => n.title === title);
    await expect.poll(async () => (await titled('asker needs you')).length).toBe(2);
    await c.request('send', { session: 'asker', keys: ['y', 'Enter'] });
    await expect
      .poll(async () =>
        (await titled('asker: turn finished')).some((n) => n.body.includes('second question')),
      )
      .toBe(true);
    expect((await titled('asker: turn finished')).every((n) => n.actions.length === 0)).toBe(true);
    // The question answered where it was opened: its turn was not notified.
    expect((await titled('asker: turn finished')).map((n) => n.body)).not.toContainEqual(
      expect.stringContaining('first question'),
    );
    expect(fake.records()).toEqual([]);
  });

  it('stays signed in on the device when asked: a notification’s link opens a new window signed in and answers its question', async () => {
    await page.locator('button.stay-signed-in').tap();
    expect(await page.locator('button.stay-signed-in').getAttribute('aria-pressed')).toBe('true');
    await ask('third question');
    const fresh = await phone.newPage();
    try {
      // What the worker opens when no window of the page is left.
      await fresh.goto(`http://127.0.0.1:${port}/#s=asker&pick=1&label=No`);
      await fresh.waitForSelector('body[data-ready="true"]');
      await waitState(c, 'asker', 'idle', PAGE_TIMEOUT_MS);
      expect(choices(askerLog)).toEqual(['Yes', 'Yes', 'No']);
      expect(fresh.url()).toBe(`http://127.0.0.1:${port}/#s=asker`);
    } finally {
      await fresh.close();
    }
  });

  it('opens a terminal readable on a touch screen (100 %, panned); Fit to window is undone when the page leaves', async () => {
    expect(await sizeOf('shell')).toBe('100x24');
    await page.locator('.card[data-name="shell"]').tap();
    await page.waitForSelector('#session[data-name="shell"][data-ready="true"]');
    const box = page.locator('#session .term-box');
    // Fitted, a 100-column terminal would be 0.45 of its size here: it opens at 100 %.
    await expect.poll(() => box.getAttribute('data-scale')).toBe('1.00');
    expect(await page.locator('button.zoom').textContent()).toBe('Scale to fit');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      PHONE.width,
    );
    // Nobody drives this session's size (started detached): Fit gives it the phone's.
    await page.locator('button.fit').tap();
    await expect.poll(() => sizeOf('shell')).not.toBe('100x24');
    expect(Number((await sizeOf('shell')).split('x')[0])).toBeLessThan(60);
    await page.locator('button.back').tap();
    await expect.poll(() => sizeOf('shell')).toBe('100x24');
    // A tab closed while fitted: the same.
    const other = await phone.newPage();
    await other.goto(`http://127.0.0.1:${port}/#s=shell`);
    await other.waitForSelector('#session[data-name="shell"][data-ready="true"]');
    await other.locator('button.fit').tap();
    await expect.poll(() => sizeOf('shell')).not.toBe('100x24');
    await other.close();
    await expect.poll(() => sizeOf('shell')).toBe('100x24');
  });

  it('folds New session after starting one; the red "waiting for you" link is a 44 px target', async () => {
    const details = page.locator('#new-details');
    await page.locator('#new-details summary').tap();
    expect(await details.getAttribute('open')).not.toBeNull();
    await page.locator('#new-session input[name="command"]').fill('sh');
    await page.locator('#new-session input[name="name"]').fill('made-on-phone');
    await page.locator('#new-session button[type="submit"]').tap();
    await page.waitForSelector('.card[data-name="made-on-phone"]');
    await expect.poll(() => details.getAttribute('open')).toBeNull();
    await ask('fourth question');
    const link = page.locator('#blocked a', { hasText: 'asker' });
    await link.waitFor();
    const size = (await link.boundingBox())!;
    expect(size.height).toBeGreaterThanOrEqual(TAP_PX - 0.5);
    expect(size.x + size.width).toBeLessThanOrEqual(PHONE.width);
    await c.request('send', { session: 'asker', keys: ['y', 'Enter'] });
    await waitState(c, 'asker', 'idle', PAGE_TIMEOUT_MS);
  });

  it('keeps its port (no config): across web --stop, a daemon restart and kill -9, the tab comes back by itself', async () => {
    const portFile = join(env.env.XDG_STATE_HOME!, 'clippy', 'web-port');
    expect(statSync(portFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(portFile, 'utf8'))).toEqual({ port, running: true });
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    const back = async () => {
      await page.waitForSelector('#banner[data-link="up"]', { state: 'attached' });
      const { sessions } = await c.request('list_sessions', {});
      expect(sessions).toBeDefined();
    };
    // The page notes each time its banner says the link is down: a daemon back within a moment
    // (a restart) can be reconnected to before the test looks, and that is the page at its best.
    const watchDown = () =>
      page.evaluate(() => {
        const w = window as unknown as { sawDown: boolean };
        const banner = document.getElementById('banner')!;
        w.sawDown = false;
        new MutationObserver(() => {
          if (banner.dataset.link === 'down') w.sawDown = true;
        }).observe(banner, { attributes: true, attributeFilter: ['data-link'] });
      });
    const wentDown = () =>
      page.waitForFunction(() => (window as unknown as { sawDown: boolean }).sawDown);
    // Stopped and started: the same port.
    expect((await runClippy(['web', '--stop'], env.env)).code).toBe(0);
    expect(JSON.parse(readFileSync(portFile, 'utf8'))).toEqual({ port, running: false });
    await page.waitForSelector('#banner[data-link="down"]');
    const again = JSON.parse((await runClippy(['web', '--json'], env.env)).stdout) as {
      port: number;
    };
    expect(again.port).toBe(port);
    await back();
    // A daemon restart: the web view comes back with it, on its port.
    await watchDown();
    const restart = await runClippy(['daemon', 'restart', '--force'], env.env, 60_000);
    expect(restart.code, restart.stderr).toBe(0);
    await c.close();
    c = await env.connect();
    await env.discoverPid();
    await wentDown();
    await back();
    // kill -9: the next daemon (started by any command) brings it back on its port.
    const pid = (await c.request('daemon_status', {})).pid;
    await c.close();
    process.kill(pid, 'SIGKILL');
    await page.waitForSelector('#banner[data-link="down"]');
    expect((await runClippy(['ls'], env.env)).code).toBe(0);
    c = await env.connect();
    await env.discoverPid();
    await back();
    expect((await c.request('web_start', {})).port).toBe(port);
    expect(
      await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded),
    ).toBe(true);
    // Taken by another program while stopped: a new port, said plainly.
    expect((await runClippy(['web', '--stop'], env.env)).code).toBe(0);
    // Another program on the port: the tab's tries to reconnect reach it, and are dropped.
    const squatter: Server = createServer((socket) => socket.destroy());
    await new Promise<void>((r) => squatter.listen(port, '127.0.0.1', r));
    try {
      const moved = await runClippy(['web'], env.env);
      expect(moved.code, moved.stderr).toBe(0);
      expect(moved.stderr).toContain(
        `port ${port}, the web view's before, is taken by another program: it moved to port`,
      );
      expect(moved.stdout).not.toContain(`:${port}/`);
    } finally {
      await new Promise((r) => squatter.close(r));
    }
  });
});
