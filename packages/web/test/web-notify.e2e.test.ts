import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { runClippy } from '@clippy/testkit/cli-pty';
import { spawnAgent } from '@clippy/testkit/agents/harness';
import { TestBrowser, chromiumMissing } from '@clippy/testkit/chromium';
import { FakeNotifySend } from '@clippy/testkit/fake-notify';
import { eventually } from '@clippy/testkit/until';

// The web view's notifications and unread marks in a real Chromium: the page tells the daemon
// what it shows, the daemon sends it the notification (not notify-send, which a fake on the
// daemon's PATH would record), and the page shows it with the Notification API, observed here
// by a wrapper the test installs before the page's own script runs.

const ARTIFACTS = join(import.meta.dirname, '..', 'test-results');
const PAGE_TIMEOUT_MS = 15_000;

const missing = chromiumMissing();

interface Note {
  title: string;
  body: string;
  tag: string;
}

declare global {
  interface Window {
    __notes: Note[];
    __beeps: number;
  }
}

describe.skipIf(missing)('web view notifications in a real Chromium', { timeout: 120_000 }, () => {
  let d: TestDaemon;
  let fake: FakeNotifySend;
  let browser: TestBrowser;
  let page: Page;
  let url: string;
  let c: Awaited<ReturnType<TestDaemon['connect']>>;

  const notes = () => page.evaluate(() => window.__notes);
  const unread = async (name: string) =>
    (await c.request('list_sessions', {})).sessions.find((s) => s.name === name)?.unread;
  /** Sends a prompt and waits for its turn's event (a `wait_turn` would count as showing it). */
  const turn = async (name: string, text: string) => {
    await c.request('subscribe', { events: ['turn_completed'] });
    const done = new Promise<void>((resolve) => {
      const off = c.on('turn_completed', (p) => {
        if (p.name !== name) return;
        off();
        resolve();
      });
    });
    await c.request('send', { session: name, text, enter: true });
    await done;
  };
  /** Resolves once the daemon knows the page as `wanted` says (it reported what it shows). */
  const pageReported = async (
    wanted: (p: { viewing: string | null; can_notify: boolean }) => boolean,
  ) => {
    await eventually(
      async () =>
        (await c.request('notify_settings', {})).clients.some(
          (p) => p.kind === 'page' && wanted(p),
        ),
      'the page telling the daemon what it shows',
      PAGE_TIMEOUT_MS,
    );
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    fake = new FakeNotifySend();
    // A desktop in the daemon's environment: were the page not to take the notification,
    // notify-send would be run (and recorded).
    d = await TestDaemon.start({ env: new DaemonEnv({ DISPLAY: ':99', PATH: fake.path() }) });
    mkdirSync(join(d.env.root, 'config', 'clippy'), { recursive: true });
    writeFileSync(
      join(d.env.root, 'config', 'clippy', 'config.json'),
      JSON.stringify({ notify: { sound: true } }),
    );
    c = await d.connect();
    await spawnAgent(d, c, 'alpha', 'aider', 'aider');
    await spawnAgent(d, c, 'beta', 'aider', 'aider');
    const run = await runClippy(['web', '--json'], d.env.env);
    expect(run.code, run.stderr).toBe(0);
    url = (JSON.parse(run.stdout) as { url: string }).url;
    browser = await TestBrowser.launch();
    const context = await browser.browser.newContext({
      viewport: { width: 1280, height: 800 },
      permissions: ['notifications'],
    });
    await context.addInitScript(() => {
      window.__notes = [];
      window.__beeps = 0;
      // The page shows them through its service worker (what is handed to it is recorded),
      // or with the Notification API where it has none.
      const Real = window.Notification;
      class Observed extends Real {
        constructor(title: string, options?: NotificationOptions) {
          super(title, options);
          window.__notes.push({ title, body: options?.body ?? '', tag: options?.tag ?? '' });
        }
      }
      window.Notification = Observed as typeof Notification;
      const proto = ServiceWorkerRegistration.prototype;
      const show = proto.showNotification;
      proto.showNotification = function (title: string, options?: NotificationOptions) {
        window.__notes.push({ title, body: options?.body ?? '', tag: options?.tag ?? '' });
        return show.call(this, title, options).catch(() => undefined);
      };
      const RealAudio = window.AudioContext;
      window.AudioContext = class extends RealAudio {
        constructor() {
          super();
          window.__beeps++;
        }
      } as typeof AudioContext;
    });
    page = await context.newPage();
    page.setDefaultTimeout(PAGE_TIMEOUT_MS);
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]');
  });

  afterAll(async () => {
    await browser?.dispose();
    await c?.close();
    await d?.stop();
    fake?.dispose();
  });

  it('shows a finished turn through its service worker (with its sound), and notify-send is not run', async () => {
    await pageReported((p) => p.viewing === null && p.can_notify);
    await turn('alpha', 'first question');
    await expect.poll(notes, { timeout: PAGE_TIMEOUT_MS }).toHaveLength(1);
    const [note] = await notes();
    expect(note!.title).toBe('alpha: turn finished');
    expect(note!.body).toContain('ANSWER: first question');
    expect(await page.evaluate(() => window.__beeps)).toBe(1);
    expect(fake.records()).toEqual([]);
  });

  it('marks the unread answer on the card, and clears it (page and CLI) when the session is opened', async () => {
    const card = page.locator('.card[data-name="alpha"]');
    await expect.poll(() => card.locator('.unread').textContent()).toBe('1 unread');
    expect(await unread('alpha')).toBe(1);
    expect(await page.locator('.card[data-name="beta"] .unread').count()).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'notify-unread-grid.png') });
    await card.click();
    await page.waitForSelector('#session[data-name="alpha"]');
    await expect.poll(() => unread('alpha'), { timeout: PAGE_TIMEOUT_MS }).toBe(0);
    const ls = await runClippy(['ls', '--json'], d.env.env);
    const listed = (JSON.parse(ls.stdout) as { sessions: { name: string; unread: number }[] })
      .sessions;
    expect(listed.find((s) => s.name === 'alpha')?.unread).toBe(0);
  });

  it('is quiet for the session the visible page shows, and tells of the others', async () => {
    await pageReported((p) => p.viewing !== null);
    await turn('alpha', 'while shown');
    await turn('beta', 'while not shown');
    await expect.poll(notes, { timeout: PAGE_TIMEOUT_MS }).toHaveLength(2);
    expect((await notes()).map((n) => n.title)).toEqual([
      'alpha: turn finished',
      'beta: turn finished',
    ]);
    expect(await unread('alpha')).toBe(0);
    expect(await unread('beta')).toBe(1);
    expect(fake.records()).toEqual([]);
    // Back to the grid: beta's card carries its mark.
    await page.click('#session button.back');
    await expect
      .poll(() => page.locator('.card[data-name="beta"] .unread').textContent())
      .toBe('1 unread');
  });

  it('a page that cannot show one (no service worker, the Notification API refused) says so: the desktop shows them', async () => {
    const context = await browser.browser.newContext({
      viewport: { width: 1280, height: 800 },
      permissions: ['notifications'],
    });
    try {
      // No service worker here, and `new Notification()` refused (as Android's Chrome does).
      await context.addInitScript(() => {
        Object.defineProperty(navigator, 'serviceWorker', { value: undefined });
        const Real = window.Notification;
        class Refused extends Real {
          constructor(title: string) {
            super(title);
            this.close();
            throw new TypeError("Failed to construct 'Notification': Illegal constructor.");
          }
        }
        window.Notification = Refused as typeof Notification;
      });
      const lone = await context.newPage();
      await lone.goto(url);
      await lone.waitForSelector('body[data-ready="true"]');
      // The other page leaves: this one is the page the daemon tells.
      await page.close();
      await expect
        .poll(
          async () =>
            (await c.request('notify_settings', {})).clients
              .filter((p) => p.kind === 'page')
              .map((p) => p.can_notify),
          { timeout: PAGE_TIMEOUT_MS },
        )
        .toEqual([true]);
      // Its first notification is refused: it says it cannot notify, and the desktop shows the next.
      await turn('beta', 'refused here');
      await pageReported((p) => !p.can_notify);
      await turn('beta', 'on the desktop');
      const [desk] = await fake.waitFor(1);
      expect(desk!.title).toBe('beta: turn finished');
      expect(desk!.body).toContain('on the desktop');
    } finally {
      await context.close();
    }
  });
});
