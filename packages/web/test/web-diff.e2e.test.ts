import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { agentCommand } from '@clippy/testkit/agents/index';
import { waitState } from '@clippy/testkit/agents/harness';
import { TestBrowser, chromiumMissing } from '@clippy/testkit/chromium';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { GIT_TEST_ENV, git, gitOwnDiff, makeRepo, writeFiles } from '@clippy/testkit/git';

// The web view's diff panel (issue 37): a session in a worktree of its own shows its changes,
// files then hunks, coloured; the page is the real one in a real Chromium, the daemon real, the
// worktree made and diffed by real git.

/** Where the test keeps its screenshots (gitignored): a test artifact to look at. */
const ARTIFACTS = join(import.meta.dirname, '..', 'test-results');
/** Generous waits for page updates on a loaded 2-core machine. */
const PAGE_TIMEOUT_MS = 15_000;

const missing = chromiumMissing();

/** The hunks of a unified diff as git prints them: `@@` lines and their lines, no file headers. */
function hunkLines(patch: string): string[] {
  const out: string[] = [];
  let inHunk = false;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git')) inHunk = false;
    else if (line.startsWith('@@')) inHunk = true;
    if (inHunk && line !== '') out.push(line);
  }
  return out;
}

describe.skipIf(missing)('the web view shows a session’s diff', { timeout: 90_000 }, () => {
  let d: TestDaemon;
  let c: Awaited<ReturnType<TestDaemon['connect']>>;
  let browser: TestBrowser;
  let page: Page;
  let url: string;
  let worktree: string;
  let base: string;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    d = await TestDaemon.start({ env: new DaemonEnv({ ...GIT_TEST_ENV }) });
    c = await d.connect();
    const repo = makeRepo(join(d.env.root, 'repo'));
    base = git(repo, ['rev-parse', 'HEAD']).trim();
    const env = d.env.env as Record<string, string>;
    const spawn = (name: string, worktreeName?: string) => {
      const { command, args } = agentCommand('aider', ['--log', join(d.env.root, `${name}.log`)]);
      return c.request('spawn', {
        command,
        args,
        name,
        preset: 'aider',
        cwd: repo,
        env,
        ...(worktreeName ? { worktree: { name: worktreeName } } : {}),
      });
    };
    const made = await spawn('writer', 'writer');
    worktree = made.worktree!.path;
    await spawn('plain');
    await waitState(c, 'writer', 'idle');
    await waitState(c, 'plain', 'idle');
    // What an agent leaves behind: a changed line, a new file, a deleted one, a binary one.
    writeFiles(worktree, {
      'src/app.ts': 'export function add(a: number, b: number): number {\n  return b + a;\n}\n',
      'notes/todo.md': '- check the sum\n- and its sign\n',
      'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0, 1, 2]),
    });
    rmSync(join(worktree, 'src/util.ts'));
    const run = await runClippy(['web', '--json'], d.env.env);
    expect(run.code, run.stderr).toBe(0);
    ({ url } = JSON.parse(run.stdout) as { url: string });
    browser = await TestBrowser.launch();
    const context = await browser.browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(PAGE_TIMEOUT_MS);
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]');
  });

  afterAll(async () => {
    await browser?.dispose();
    await c?.close();
    await d?.stop();
  });

  const open = async (name: string) => {
    await page.evaluate((n) => (location.hash = `#s=${n}`), name);
    await page.waitForSelector(`#session[data-name="${name}"] .session-head`);
  };

  it('offers Diff only for a session in a worktree of its own', async () => {
    await open('plain');
    expect(await page.locator('#session .session-head button.diff').count()).toBe(0);
    await open('writer');
    expect(await page.locator('#session .session-head button.diff').count()).toBe(1);
  });

  it('lists the changed files, then their hunks as git has them, added green and removed red', async () => {
    await open('writer');
    await page.click('#session .session-head button.diff');
    const panel = page.locator('dialog.diff-panel[data-state="shown"]');
    await panel.waitFor();
    expect(await panel.locator('.diff-summary').textContent()).toBe(
      `clippy/writer against ${base.slice(0, 10)} · 4 files · +3 \u22123`,
    );
    const files = await panel
      .locator('.diff-files li')
      .evaluateAll((items) =>
        items.map((li) => [...li.querySelectorAll('span, a')].map((n) => n.textContent).join(' ')),
      );
    expect(files).toEqual([
      'A logo.png binary',
      'A notes/todo.md +2 \u22120',
      'M src/app.ts +1 \u22121',
      'D src/util.ts +0 \u22122',
    ]);
    // Every hunk line, in order, is what git itself prints for the change.
    const shown = await panel
      .locator('.diff-hunk')
      .evaluateAll((hunks) =>
        hunks.flatMap((h) => [
          h.querySelector('.diff-hunk-header')!.textContent!,
          ...[...h.querySelectorAll('.diff-line .diff-text')].map((t) => t.textContent!),
        ]),
      );
    expect(shown).toEqual(hunkLines(gitOwnDiff(worktree, base)));
    const app = panel.locator('details.diff-file[data-path="src/app.ts"]');
    expect(await app.locator('.diff-line.del .diff-text').allTextContents()).toEqual([
      '-  return a + b;',
    ]);
    expect(await app.locator('.diff-line.add .diff-text').allTextContents()).toEqual([
      '+  return b + a;',
    ]);
    // Line numbers of the base and of the worktree beside each line.
    expect(
      await app.locator('.diff-line.add .diff-no').allTextContents(),
      'an added line has only the new number',
    ).toEqual(['', '2']);
    const background = (sel: string) =>
      app
        .locator(sel)
        .first()
        .evaluate((n) => getComputedStyle(n).backgroundColor);
    expect(await background('.diff-line.add')).toBe('rgba(46, 160, 67, 0.18)');
    expect(await background('.diff-line.del')).toBe('rgba(248, 81, 73, 0.18)');
    expect(
      await panel.locator('details.diff-file[data-path="logo.png"] .diff-note').textContent(),
    ).toContain('Binary file');
    await page.screenshot({ path: join(ARTIFACTS, 'web-diff.png') });
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'hidden' });
  });

  it('Refresh reads the diff again; a long one draws its later files when they are opened', async () => {
    const long = Array.from({ length: 4000 }, (_, i) => `line ${i}`).join('\n');
    writeFiles(worktree, { 'a-long.txt': `${long}\n`, 'src/util.ts': 'export const one = 1;\n' });
    const panel = page.locator('dialog.diff-panel');
    if (!(await panel.isVisible())) await page.click('#session .session-head button.diff');
    await panel.locator('.diff-refresh').click();
    // Wait for Refresh's own answer: the panel's opening read may already show these five
    // files, and a click on it would be lost when Refresh draws the panel again.
    await page.locator('dialog.diff-panel[data-state="shown"]').waitFor();
    expect(await panel.locator('.diff-files li').count()).toBe(5);
    const later = panel.locator('details.diff-file[data-path="src/app.ts"]');
    expect(await later.getAttribute('open')).toBeNull();
    expect(await later.locator('.diff-line').count()).toBe(0);
    await panel.locator('.diff-files li[data-path="src/app.ts"] a').click();
    await expect.poll(() => later.locator('.diff-line.add').count()).toBe(1);
    expect(
      await panel.locator('details.diff-file[data-path="a-long.txt"] .diff-line.add').count(),
    ).toBe(4000);
    // A file the user opened stays open, drawn, when the diff is read again.
    await panel.locator('.diff-refresh').click();
    await page.locator('dialog.diff-panel[data-state="shown"]').waitFor();
    expect(await later.getAttribute('open')).not.toBeNull();
    expect(await later.locator('.diff-line.add').count()).toBe(1);
  });

  it('says why when the worktree cannot be diffed', async () => {
    const panel = page.locator('dialog.diff-panel');
    rmSync(worktree, { recursive: true, force: true });
    await panel.locator('.diff-refresh').click();
    await panel.locator('.diff-error').waitFor();
    expect(await panel.locator('.diff-error').textContent()).toMatch(
      /^Cannot show the diff of writer: .+/,
    );
  });
});
