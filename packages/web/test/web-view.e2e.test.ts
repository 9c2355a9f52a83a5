import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Page } from 'playwright-core';
import { PROTOCOL_VERSION, decodePayload, encodeFrame } from '@clippy/protocol';
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

/** An HTTP request to the endpoint: its status, headers and body. */
async function http(
  url: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url, options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
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

/** One protocol message as the page sends it: MessagePack, no length prefix. */
const wsMessage = (m: object): Buffer => encodeFrame(m).subarray(4);

/** The next protocol message a WebSocket receives. */
function nextMessage(ws: WebSocket): Promise<Record<string, unknown>> {
  return new Promise((resolve) =>
    ws.once('message', (data: Buffer) => resolve(decodePayload(data) as Record<string, unknown>)),
  );
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
  /** Every URL the page asked for (documents, scripts, styles, WebSockets): none off the endpoint. */
  const requested: string[] = [];
  /** The type of every message the page sent over its WebSocket. */
  const sentTypes: string[] = [];
  /** The page `clippy web --open` wrote for the browser. */
  let redirectPage = '';

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    d = await TestDaemon.start();
    c = await d.connect();
    // Its first answer holds its think time until released (SIGUSR1): the page shows `busy`
    // however long it takes (a 1.5 s think time was a window, paid on every answer).
    alphaLog = await spawnAgent(d, c, 'alpha', 'aider', 'aider', ['--hold-think']);
    betaLog = await spawnAgent(d, c, 'beta', 'aider', 'aider');
    const run = await runClippy(['web', '--json'], d.env.env);
    expect(run.code, run.stderr).toBe(0);
    ({ url, port, token } = JSON.parse(run.stdout) as { url: string; port: number; token: string });
    browser = await TestBrowser.launch();
    const context = await browser.browser.newContext({
      viewport: { width: 1280, height: 800 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    page = await context.newPage();
    page.setDefaultTimeout(PAGE_TIMEOUT_MS);
    page.on('request', (r) => requested.push(r.url()));
    page.on('websocket', (ws) => {
      requested.push(ws.url());
      ws.on('framesent', (f) => {
        if (typeof f.payload === 'string') return;
        const m = decodePayload(f.payload) as { type?: string };
        if (m.type) sentTypes.push(m.type);
      });
    });
  });

  afterAll(async () => {
    await browser?.dispose();
    await c?.close();
    await d?.stop();
  });

  it('prints a URL on 127.0.0.1 with the token in its fragment', () => {
    expect(url).toBe(`http://127.0.0.1:${port}/#token=${token}`);
    expect(token).toMatch(/^[0-9a-f]{48}$/);
  });

  it('shows every session with its live state as an agent goes busy → idle', async () => {
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await cardState(page, 'alpha')).toBe('idle');
    expect(await cardState(page, 'beta')).toBe('idle');
    await c.request('send', { session: 'alpha', text: 'first question', enter: true });
    await page.waitForSelector('.card[data-name="alpha"][data-state="busy"]');
    const { sessions } = await c.request('list_sessions', {});
    process.kill(sessions.find((s) => s.name === 'alpha')!.pid, 'SIGUSR1');
    await page.waitForSelector('.card[data-name="alpha"][data-state="idle"]');
    const card = page.locator('.card[data-name="alpha"]');
    await expect.poll(() => card.locator('.turns').textContent()).toBe('1 turn');
    await expect
      .poll(() => card.locator('.preview').textContent())
      .toContain('ANSWER: first question');
    // The preview came with the push: the page fetched no turn (a turn can be megabytes).
    expect(sentTypes).not.toContain('get_turn');
    expect(await card.locator('.age').textContent()).toMatch(/^\d+[smhd]$/);
    expect(await card.locator('.command').textContent()).toContain('aider');
    expect(await page.title()).toBe('clippy — 2 sessions');
    // A page opened later shows the same preview, from the latest turn's metadata.
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await expect
      .poll(() => page.locator('.card[data-name="alpha"] .preview').textContent())
      .toContain('ANSWER: first question');
    expect(sentTypes).toContain('list_turns');
    expect(sentTypes).not.toContain('get_turn');
  });

  it('highlights a blocked session and names it in the tab title', async () => {
    const wrapper = await d.env.connect({ role: 'wrapper' });
    try {
      await wrapper.request('register', { session: 'asker', pid: process.pid, pattern: 'generic' });
      await wrapper.request('set_state', { session: 'asker', state: 'blocked' });
      await page.waitForSelector('.card[data-name="asker"][data-state="blocked"]');
      await expect.poll(() => page.title()).toBe('⚠ blocked: asker — clippy');
      await page.waitForSelector('#blocked:visible a[href="#s=asker"]');
      // Over another session's view too: the bar stays, and leads to the blocked session.
      await page.click('.card[data-name="beta"]');
      await page.waitForSelector('#session[data-name="beta"] .term-box .xterm');
      await page.click('#blocked a[href="#s=asker"]');
      await page.waitForSelector('#session[data-name="asker"]');
      await page.click('#session button.back');
      await wrapper.request('set_state', { session: 'asker', state: 'idle' });
      await expect.poll(() => page.title()).not.toContain('blocked');
      await page.waitForSelector('#blocked', { state: 'hidden' });
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
    // Paused (drawn grey), so the relay tested below is the page's and not the route's.
    await page.waitForSelector('svg.routes g.route-paused[data-route="review"]');
    // A session waiting on its user, for the picture.
    const wrapper = await d.env.connect({ role: 'wrapper' });
    try {
      await wrapper.request('register', {
        session: 'planner',
        pid: process.pid,
        pattern: 'generic',
      });
      await wrapper.request('set_state', { session: 'planner', state: 'blocked' });
      await page.waitForSelector('#blocked:visible a[href="#s=planner"]');
      await page.screenshot({ path: join(ARTIFACTS, 'web-grid.png') });
    } finally {
      await wrapper.close();
    }
    await page.waitForSelector('#blocked', { state: 'hidden' });
  });

  it('types in the in-page terminal: the keys reach the PTY and its echo shows', async () => {
    await page.click('.card[data-name="alpha"]');
    await page.waitForSelector('#session .term-box .xterm');
    // The replayed screen holds the first answer.
    await expect
      .poll(() => page.locator('#session .xterm-rows').textContent())
      .toContain('ANSWER: first question');
    await page.click('#session .term-box');
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

  it('never resizes the session as the window changes: it shows it at its size, scaled', async () => {
    const size = () => page.locator('#session .term-box').getAttribute('data-size');
    const daemonSize = async () => {
      const { sessions } = await c.request('list_sessions', {});
      const s = sessions.find((x) => x.name === 'alpha')!;
      return `${s.cols}x${s.rows}`;
    };
    const before = await daemonSize();
    expect(await size()).toBe(before);
    await page.setViewportSize({ width: 600, height: 600 });
    await expect
      .poll(async () => Number(await page.locator('#session .term-box').getAttribute('data-scale')))
      .toBeLessThan(1);
    expect(await daemonSize()).toBe(before);
    expect(await size()).toBe(before);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('copies the selected turn', async () => {
    await page.click('#session button.copy');
    await page.waitForSelector('#session .status:text("copied")');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(
      'ANSWER: typed in the page',
    );
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

  it('sends text from the page', async () => {
    await page.fill('#session .send-text', 'sent from the page');
    await page.click('#session form.send button[type="submit"]');
    await page.waitForSelector('#session .status:text("sent")');
    await until(
      () => submissions(alphaLog).some((s) => s.text === 'sent from the page'),
      'alpha received the text sent from the page',
      PAGE_TIMEOUT_MS,
    );
  });

  it('refuses to send more than a message may hold, and stays connected', async () => {
    // The form's submit event, dispatched at once: Chromium's own form submission steps (and a
    // layout) over a 17 MiB text box take it seconds, which the page cannot help.
    await page.evaluate(() => {
      const box = document.querySelector<HTMLTextAreaElement>('#session .send-text')!;
      box.value = 'x'.repeat(17 * 1024 * 1024);
      box.form!.dispatchEvent(new SubmitEvent('submit', { cancelable: true }));
      box.value = '';
    });
    await page.waitForSelector('#session .status.error:text("a message may hold at most 16 MiB")');
    expect(await page.locator('#banner').isHidden()).toBe(true);
  });

  it('redraws the route lines on coming back to the grid', async () => {
    await page.click('#session button.back');
    await page.waitForSelector('.card[data-name="alpha"]');
    // Drawn while the grid was hidden, a line would have collapsed to the corner; the redraw
    // comes with the grid's next frame, so it is waited for, not read at once. Read in the page
    // in one step: every render draws the lines anew, so a handle to a path found in one step
    // and measured in the next may be a removed one, which measures 0.
    const size = () =>
      page.evaluate(() => {
        const path = document.querySelector<SVGPathElement>(
          'svg.routes g.route[data-route="review"] path',
        );
        if (!path) return 0;
        const { width, height } = path.getBBox();
        return width + height;
      });
    await expect.poll(size, { timeout: PAGE_TIMEOUT_MS }).toBeGreaterThan(50);
  });

  it('starts a session from the page, kills it from its view, and says so when it is gone', async () => {
    await page.fill('#new-session input[name="command"]', 'no-such-program-here');
    await page.click('#new-session button[type="submit"]');
    await page.waitForSelector('#new-session .status:text("failed:")');
    expect(await page.locator('#new-session .status').textContent()).toContain(
      'no-such-program-here',
    );
    await page.fill('#new-session input[name="command"]', 'sh -i');
    await page.fill('#new-session input[name="name"]', 'fresh');
    await page.fill('#new-session input[name="preset"]', 'no-such-preset');
    // The last attempt's failure is gone the moment this one is submitted: read in the same
    // task as the click, before any answer can come.
    const onSubmit = await page.evaluate(() => {
      document.querySelector<HTMLButtonElement>('#new-session button[type="submit"]')!.click();
      return document.querySelector('#new-session .status')!.textContent;
    });
    expect(onSubmit).toBe('starting sh…');
    await page.waitForSelector('#new-session .status:text("failed:")');
    expect(await page.locator('#new-session .status').textContent()).toMatch(
      /unknown preset "no-such-preset"; known presets: .*claude/,
    );
    const folder = mkdtempSync(join(tmpdir(), 'clippy-web-cwd-'));
    try {
      await page.fill('#new-session input[name="preset"]', 'bash');
      await page.fill('#new-session input[name="cwd"]', folder);
      await page.click('#new-session button[type="submit"]');
      await page.waitForSelector('#new-session .status:text("started fresh")');
      const fresh = (await c.request('list_sessions', {})).sessions.find((s) => s.name === 'fresh');
      expect({ preset: fresh?.preset, cwd: fresh?.cwd }).toEqual({ preset: 'bash', cwd: folder });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    await page.waitForSelector('.card[data-name="fresh"][data-state="idle"]');
    await page.click('.card[data-name="fresh"]');
    await page.waitForSelector('#session[data-name="fresh"] .term-box .xterm');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('#session button.kill');
    await page.waitForSelector('#session[data-state="exited"]');
    expect(await page.locator('#session .session-notice').textContent()).toMatch(
      /Session fresh has exited \(killed by SIGHUP\)/,
    );
    expect(await page.locator('#session form.send button').isDisabled()).toBe(true);
    expect(
      (await c.request('list_sessions', {})).sessions.find((s) => s.name === 'fresh')?.state,
    ).toBe('exited');
    // Removed by someone else while its view is open.
    await c.request('remove', { session: 'fresh' });
    await page.waitForSelector('#session[data-state="removed"]');
    expect(await page.locator('#session .session-notice').textContent()).toContain(
      'Session fresh was removed',
    );
    await page.click('#session button.back');
    await page.waitForSelector('.card[data-name="fresh"]', { state: 'detached' });
  });

  it('shows the tokens and model an agent reported: the session’s on its card, a turn’s in its timeline and title', async () => {
    // The fake Claude Code runs the hooks clippy wires: its turns carry its own record.
    await spawnAgent(d, c, 'gamma', 'claude', 'claude', ['--hooks']);
    const question = 'How many tokens?';
    const asked = await runClippy(['ask', 'gamma', question], d.env.env);
    expect(asked.code, asked.stderr).toBe(0);
    const answer = asked.stdout.replace(/\n$/u, '');
    // Its tokens as the fake counts them (the prompt's and the answer's characters); its model
    // has no price, which is said rather than a cost of nothing.
    const used = `${question.length}/${answer.length} tokens · no price · fake-claude-model`;
    // Its card has the session's totals (one turn so far: the same counts).
    await expect
      .poll(() => page.locator('.card[data-name="gamma"] .usage').textContent())
      .toBe(`${question.length}/${answer.length} tokens · no price`);
    await page.evaluate(() => (location.hash = '#s=gamma'));
    await expect.poll(() => page.locator('#session .turn-title').textContent()).toContain(used);
    expect(await page.locator('#session .timeline li.turn').first().getAttribute('title')).toBe(
      `${question}\n${used}`,
    );
    await page.click('#session button.back');
    // Killed, it leaves the list (the grid as the later tests expect it).
    expect((await runClippy(['kill', 'gamma'], d.env.env)).code).toBe(0);
    await expect
      .poll(
        async () => (await c.request('list_sessions', {})).sessions.some((s) => s.name === 'gamma'),
        { timeout: PAGE_TIMEOUT_MS },
      )
      .toBe(false);
  });

  it('draws an emoji two cells wide, as the program placed the text after it', async () => {
    // As Codex (ratatui) draws: the emoji, then the next character placed at column 4 by the
    // cursor. With xterm's default widths the emoji took one cell and a gap showed after it.
    await c.request('spawn', {
      command: 'sh',
      args: ['-c', "printf 'a\\360\\237\\216\\211\\033[1;4Hb|'; exec sleep 600"],
      name: 'wide',
      cwd: d.env.root,
    });
    await page.evaluate(() => (location.hash = '#s=wide'));
    await expect.poll(() => page.locator('#session .xterm-rows').textContent()).toContain('a🎉b|');
    await page.click('#session button.back');
    expect((await runClippy(['kill', 'wide'], d.env.env)).code).toBe(0);
    await expect
      .poll(
        async () => (await c.request('list_sessions', {})).sessions.some((s) => s.name === 'wide'),
        { timeout: PAGE_TIMEOUT_MS },
      )
      .toBe(false);
  });

  it('says so when the address names no session', async () => {
    await page.evaluate(() => (location.hash = '#s=nosuch'));
    await page.waitForSelector('#notice:visible');
    expect(await page.locator('#notice').textContent()).toContain('No session named “nosuch”');
    expect(await page.locator('body').getAttribute('class')).not.toContain('in-session');
    await page.evaluate(() => (location.hash = '#s=%E0%A4%A'));
    await expect.poll(() => page.locator('#notice').textContent()).toContain('%E0%A4%A');
    await page.evaluate(() => (location.hash = ''));
    await page.waitForSelector('#notice', { state: 'hidden' });
  });

  it('takes the token out of the address bar; a reload is let in by the tab’s session, no cookie', async () => {
    expect(page.url()).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/#?$`));
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector('.card[data-name="alpha"]');
    expect(await page.context().cookies()).toEqual([]);
    // Another tab at the same address (another browser, a copied link) is not signed in.
    const other = await page.context().newPage();
    try {
      await other.goto(page.url());
      await other.waitForSelector('#banner:visible');
      expect(await other.locator('#banner').textContent()).toContain(
        'This tab is not signed in to the web view. Run `clippy web` in a terminal and open the URL it prints',
      );
      expect(await other.locator('.card').count()).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('works offline: the page asked nothing of any other host, under a strict CSP', async () => {
    const base = `127.0.0.1:${port}/`;
    expect(requested.length).toBeGreaterThan(2);
    expect(
      requested.filter((u) => !u.startsWith(`http://${base}`) && !u.startsWith(`ws://${base}`)),
    ).toEqual([]);
    const index = await fetch(`http://${base}`);
    expect(index.headers.get('content-security-policy')).toContain("default-src 'self'");
    // The built assets name no other host (the SVG/XHTML namespaces are names, not fetches).
    const assets = join(import.meta.dirname, '..', 'dist', 'assets');
    for (const file of readdirSync(assets)) {
      const urls = readFileSync(join(assets, file), 'utf8').match(/https?:\/\/[^\s"'`)]+/g) ?? [];
      expect(
        urls.filter((u) => !u.startsWith('http://www.w3.org/')),
        file,
      ).toEqual([]);
    }
  });

  it('says a wrong token in the address was refused; bad requests leave the daemon unharmed', async () => {
    const base = `http://127.0.0.1:${port}`;
    const ws = `ws://127.0.0.1:${port}/ws`;
    // A wrong token in the address: the page says so, and what to do; the token leaves the address.
    await page.goto('about:blank');
    await page.goto(`${base}/#token=${'0'.repeat(48)}`);
    await page.waitForSelector('#banner:visible');
    expect(await page.locator('#banner').textContent()).toMatch(
      /did not take this address’s token: refused: wrong web view token\. Run `clippy web` in a terminal/,
    );
    expect(page.url()).toBe(`${base}/`);
    // Every credential and every Host/Origin check of the port, without a browser:
    // broker/src/web/web-guard.test.ts. Here: a page's own token lets its socket in.
    expect(await upgrade(`${ws}?token=${token}`, { origin: base })).toBe('open');
    // A bad request gets an error naming the problem; the connection and the daemon go on.
    const client = new WebSocket(`${ws}?token=${token}`, { origin: base });
    await new Promise((r) => client.once('open', r));
    client.send(wsMessage({ type: 'hello', id: 0, version: PROTOCOL_VERSION, role: 'client' }));
    expect((await nextMessage(client)).type).toBe('hello_ack');
    client.send(wsMessage({ type: 'no_such_request', id: 1 }));
    expect(await nextMessage(client)).toMatchObject({
      id: 1,
      status: 'error',
      error: 'unknown_type',
    });
    client.send(wsMessage({ type: 'input', id: 2, session: 'nosuch', data: Buffer.from('x') }));
    expect(await nextMessage(client)).toMatchObject({
      id: 2,
      status: 'error',
      error: 'session_not_found',
    });
    client.send(wsMessage({ type: 'list_sessions', id: 3 }));
    expect(await nextMessage(client)).toMatchObject({ id: 3, status: 'ok' });
    // Text is not the protocol: refused with a reason, then that connection is closed.
    const closed = new Promise((r) => client.once('close', r));
    client.send('{"type":"list_sessions","id":4}');
    expect(await nextMessage(client)).toMatchObject({
      status: 'error',
      error: 'malformed_frame',
      message: expect.stringContaining('text WebSocket messages are not accepted'),
    });
    await closed;
    // The daemon is unharmed by the refusals and by a garbage frame from an accepted socket.
    const garbage = new WebSocket(`${ws}?token=${token}`, { origin: base });
    await new Promise((r) => garbage.once('open', r));
    garbage.send(Buffer.from([0xc1, 0xff, 0x00]));
    await new Promise((r) => garbage.once('close', r));
    expect((await c.request('list_sessions', {})).sessions.length).toBeGreaterThan(0);
  });

  it('clippy web --open hands the desktop’s opener a page of the user’s that leads to the endpoint', async () => {
    // xdg-open stands in for the desktop (a host program, not ours): it notes what it was given.
    const bin = join(d.env.root, 'bin');
    const opened = join(d.env.root, 'opened');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const run = await runClippy(['web', '--open'], {
      ...d.env.env,
      PATH: `${bin}:${process.env.PATH}`,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`web view already running: ${url}`);
    await until(() => {
      try {
        return readFileSync(opened, 'utf8') !== '';
      } catch {
        return false;
      }
    }, 'xdg-open was given the page');
    // A file beside the daemon's socket (0700 directory), which sends the browser on to the URL.
    redirectPage = join(d.env.runtimeDir, 'clippy', 'broker-web.html');
    expect(readFileSync(opened, 'utf8')).toBe(pathToFileURL(redirectPage).href);
    expect(statSync(redirectPage).mode & 0o777).toBe(0o600);
    // It leads to a one-time code, not to the token (the browser's history keeps the address).
    const html = readFileSync(redirectPage, 'utf8');
    const origin = new URL(url).origin;
    expect(html).toMatch(
      new RegExp(`<meta http-equiv="refresh" content="0;url=${origin}/#code=[0-9a-f]{32}">`, 'u'),
    );
    expect(html).not.toContain(new URL(url).hash.slice('#token='.length));
  });

  it('clippy web --port moves the endpoint, and keeps it where it was when the port is taken', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const taken = (busy.address() as AddressInfo).port;
    try {
      const run = await runClippy(['web', '--port', String(taken)], d.env.env);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `port ${taken} on 127.0.0.1 is in use; it still runs on port ${port}`,
      );
      expect((await http(url)).status).toBe(200);
    } finally {
      await new Promise((r) => busy.close(r));
    }
    const bad = await runClippy(['web', '--port', '70000'], d.env.env);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain('--port must be a whole number from 0 to 65535');
    // A free port: the endpoint moves there with a new token; the old one is gone.
    const moved = await runClippy(['web', '--port', String(taken), '--json'], d.env.env);
    expect(moved.code, moved.stderr).toBe(0);
    const next = JSON.parse(moved.stdout) as {
      url: string;
      port: number;
      token: string;
      started: boolean;
    };
    expect(next).toMatchObject({ port: taken, started: true });
    // The token is kept (state directory): the same URL but for the port.
    expect(next.token).toBe(token);
    await expect(http(url)).rejects.toThrow();
    expect((await http(next.url)).status).toBe(200);
    ({ url, port, token } = next);
  });

  it('clippy web --stop ends the endpoint; an open page says it is disconnected and reconnecting', async () => {
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]');
    const run = await runClippy(['web', '--stop', '--json'], d.env.env);
    expect(JSON.parse(run.stdout)).toEqual({ stopped: true });
    // The page --open wrote names a token that ended with the endpoint: it is gone too.
    expect(existsSync(redirectPage)).toBe(false);
    await expect(http(`http://127.0.0.1:${port}/`)).rejects.toThrow();
    await page.waitForSelector('#banner:visible');
    expect(await page.locator('#banner').textContent()).toContain('Disconnected from clippyd');
    expect(await page.locator('#banner').textContent()).toContain('Reconnecting by itself');
    expect(await page.title()).toBe('clippy — reconnecting');
  });
});
