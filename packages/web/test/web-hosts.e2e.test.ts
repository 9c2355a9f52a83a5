import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  choices,
  spawnAgent,
  spawnProgram,
  submissions,
  waitState,
} from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { TestBrowser, chromiumMissing } from '@clippy/testkit/chromium';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { TestSshd, sshdUnavailable } from '@clippy/testkit/sshd';

// One view over every host (issue 47): the page shows the sessions of config.json's hosts
// beside this machine's, through this daemon's SSH forwarding (a real OpenSSH server on
// 127.0.0.1; the "remote" side is a second environment with its own daemon), and opens,
// answers and relays them as local ones.

const PAGE_TIMEOUT_MS = 30_000;
const E2E_TIMEOUT_MS = 150_000;

const why = chromiumMissing() ?? sshdUnavailable();

describe.skipIf(why !== null)('the web view over every host', { timeout: E2E_TIMEOUT_MS }, () => {
  let sshd: TestSshd;
  let remoteEnv: DaemonEnv;
  let remote: TestDaemon;
  let localEnv: DaemonEnv;
  let local: TestDaemon;
  let rc: Awaited<ReturnType<TestDaemon['connect']>>;
  let lc: Awaited<ReturnType<TestDaemon['connect']>>;
  let browser: TestBrowser;
  let page: Page;
  let agentLog: string;

  beforeAll(async () => {
    remoteEnv = new DaemonEnv();
    sshd = await TestSshd.start({
      XDG_RUNTIME_DIR: remoteEnv.runtimeDir,
      XDG_STATE_HOME: remoteEnv.env.XDG_STATE_HOME!,
      XDG_CONFIG_HOME: remoteEnv.env.XDG_CONFIG_HOME!,
    });
    remote = await TestDaemon.start({ env: remoteEnv });
    rc = await remote.connect();
    agentLog = await spawnAgent(remote, rc, 'ragent', 'aider', 'aider', ['--ask']);
    localEnv = new DaemonEnv({ CLIPPY_SSH_COMMAND: sshd.sshCommand });
    const configDir = path.join(localEnv.env.XDG_CONFIG_HOME!, 'clippy');
    fs.mkdirSync(configDir, { recursive: true });
    fs.writeFileSync(
      path.join(configDir, 'config.json'),
      JSON.stringify({ hosts: { build: sshd.alias, here: 'local' } }),
    );
    local = await TestDaemon.start({ env: localEnv });
    lc = await local.connect();
    await spawnProgram(local, lc, 'mine', 'bash', 'bash', ['--norc', '--noprofile', '-i']);
    const run = await runClippy(['web', '--json'], localEnv.env);
    expect(run.code, run.stderr).toBe(0);
    const { url } = JSON.parse(run.stdout) as { url: string };
    browser = await TestBrowser.launch();
    page = await browser.browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(PAGE_TIMEOUT_MS);
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]');
  }, E2E_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.dispose();
    await lc?.close();
    await rc?.close();
    // The SSH master the local daemon opened (it outlives its use by ControlPersist).
    if (localEnv) await sshd?.stopMasters(localEnv.runtimeDir);
    await local?.stop();
    await remote?.stop();
    await sshd?.stop();
  }, E2E_TIMEOUT_MS);

  it('shows the other machine’s sessions in the grid, marked with their host', async () => {
    const card = page.locator('.card[data-host="build"][data-name="ragent"]');
    await card.waitFor();
    expect(await card.locator('.host').textContent()).toBe('build');
    // This machine's, unmarked, beside it.
    expect(await page.locator('.card[data-name="mine"]').getAttribute('data-host')).toBeNull();
    const { hosts } = await lc.request('list_hosts', {});
    expect(hosts).toEqual([{ name: 'build', destination: sshd.alias }]);
  });

  it('opens one (its terminal attached there) and answers its question with a tap', async () => {
    await page.locator('.card[data-host="build"][data-name="ragent"]').click();
    await page.waitForSelector(
      '#session[data-host="build"][data-name="ragent"][data-ready="true"]',
    );
    expect(page.url()).toMatch(/#s=build%3Aragent$/u);
    await expect.poll(() => page.locator('#session .xterm-rows').textContent()).toContain('>');
    await rc.request('send', { session: 'ragent', text: 'from afar', enter: true });
    await waitState(rc, 'ragent', 'blocked', PAGE_TIMEOUT_MS);
    const panel = page.locator('#session .answer');
    await page.waitForSelector('#session .answer:not([hidden])');
    expect(await panel.locator('.question').textContent()).toBe('Run shell command?');
    await panel.locator('button.choice', { hasText: 'Yes' }).click();
    await waitState(rc, 'ragent', 'idle', PAGE_TIMEOUT_MS);
    expect(choices(agentLog)).toEqual(['Yes']);
    // Its turn is listed in the view, read from its own daemon.
    await page.waitForSelector('#session .timeline li.turn');
  });

  it('relays a turn from this machine into the other machine’s session', async () => {
    await lc.request('send', { session: 'mine', text: 'echo relay-$((6*7))', enter: true });
    await expect
      .poll(async () => (await lc.request('list_turns', { session: 'mine' })).turns.length)
      .toBeGreaterThan(0);
    await page.locator('#session button.back').click();
    await page.locator('.card[data-name="mine"]').click();
    await page.waitForSelector('#session[data-name="mine"][data-ready="true"]');
    await page.locator('#session select.relay-target').selectOption({ label: 'build:ragent' });
    await page.locator('#session button.relay').click();
    await page.locator('#session .status', { hasText: 'relayed to build:ragent' }).waitFor();
    await waitState(rc, 'ragent', 'blocked', PAGE_TIMEOUT_MS);
    expect(
      submissions(agentLog)
        .map((s) => s.text)
        .at(-1),
    ).toBe('relay-42');
    await rc.request('send', { session: 'ragent', keys: ['y', 'Enter'] });
    await waitState(rc, 'ragent', 'idle', PAGE_TIMEOUT_MS);
  });
});
