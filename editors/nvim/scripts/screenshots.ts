// Screenshots of the Neovim plugin in a real terminal: Neovim runs in tmux (its own server,
// 110×34) against a daemon of its own with two fake agents; each screen is `tmux capture-pane
// -e` (the cells and their colours), painted by @xterm/headless, serialized as HTML and
// photographed by the system Chromium. Writes docs/editors/nvim-*.png and prints their paths.
// Run: npx tsx --conditions=source editors/nvim/scripts/screenshots.ts (needs nvim, tmux and
// chromium; `npm run build` first, for the daemon, the CLI and the fake agents).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import xterm from '@xterm/headless';
import serialize from '@xterm/addon-serialize';
import { chromium } from 'playwright-core';
import { spawnAgent } from '@clippy/testkit/agents/harness';
import { CHROMIUM_PATH } from '@clippy/testkit/chromium';
import { TestDaemon } from '@clippy/testkit/daemon';
import { nvimPluginDir } from '@clippy/testkit/nvim';
import { bins, repoRoot } from '@clippy/testkit/paths';

const { Terminal } = xterm;
const { SerializeAddon } = serialize;

/** The terminal's size: a laptop's half screen. */
const COLS = 110;
const ROWS = 34;
/** How long a screen may take to show what a step waits for. */
const STEP_TIMEOUT_MS = 15_000;
const OUT = path.join(repoRoot, 'docs', 'editors');

const d = await TestDaemon.start();
const c = await d.connect();
const tmuxSocket = path.join(d.env.root, 'tmux.sock');
const tmux = (...args: string[]) =>
  execFileSync('tmux', ['-S', tmuxSocket, '-f', '/dev/null', ...args], {
    env: d.env.env,
    encoding: 'utf8',
  });
const browser = await chromium.launch({
  executablePath: CHROMIUM_PATH,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu'],
});
const written: string[] = [];

try {
  await spawnAgent(d, c, 'claude', 'claude', 'claude');
  await spawnAgent(d, c, 'aider', 'aider', 'aider');
  for (const [s, q] of [
    ['claude', 'review the parser'],
    ['aider', 'write the tests'],
  ] as const) {
    await c.request('send', { session: s, text: q, enter: true });
    await c.request(
      'wait_turn',
      { session: s, after: `${s}:0`, timeout_ms: 10_000 },
      { timeoutMs: 0 },
    );
  }

  const project = path.join(d.env.root, 'project');
  fs.mkdirSync(path.join(project, 'src'), { recursive: true });
  fs.writeFileSync(
    path.join(project, 'src', 'parser.ts'),
    [
      "import { readFileSync } from 'node:fs';",
      '',
      '/** Reads the config file; throws on bad JSON. */',
      'export function parseConfig(file: string): Config {',
      "  const text = readFileSync(file, 'utf8');",
      '  return JSON.parse(text) as Config;',
      '}',
      '',
      'export interface Config {',
      '  name: string;',
      '  retries: number;',
      '}',
      '',
    ].join('\n'),
  );
  // The help file's tags, made in a copy (helptags writes beside the file, as a plugin manager does).
  const help = path.join(d.env.root, 'help');
  fs.cpSync(path.join(nvimPluginDir, 'doc'), path.join(help, 'doc'), { recursive: true });
  const init = path.join(d.env.root, 'init.lua');
  fs.writeFileSync(
    init,
    [
      `vim.opt.runtimepath:prepend(${JSON.stringify(nvimPluginDir)})`,
      `vim.cmd('helptags ${path.join(help, 'doc')}')`,
      `vim.opt.runtimepath:prepend(${JSON.stringify(help)})`,
      `require('clippy').setup({ clippy_cmd = { ${JSON.stringify(process.execPath)}, ${JSON.stringify(bins.clippy)} } })`,
      'vim.opt.number = true',
      'vim.opt.laststatus = 2',
      'vim.cmd("syntax on")',
      'vim.cmd("filetype plugin on")',
    ].join('\n'),
  );
  tmux(
    'new-session',
    '-d',
    '-s',
    'shot',
    '-x',
    String(COLS),
    '-y',
    String(ROWS),
    '-c',
    project,
    `TERM=tmux-256color nvim -u ${init} -i NONE -n src/parser.ts`,
  );

  /** The pane's text now (no colours). */
  const text = () => tmux('capture-pane', '-p', '-t', 'shot');
  async function waitFor(what: string | RegExp): Promise<void> {
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    for (;;) {
      const t = text();
      if (typeof what === 'string' ? t.includes(what) : what.test(t)) return;
      if (Date.now() > deadline) throw new Error(`not on the screen: ${what}\n${t}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  /** Types keys into Neovim as a person would (tmux key names: Enter, Escape, C-w…). */
  const keys = (...k: string[]) => tmux('send-keys', '-t', 'shot', ...k);
  const ex = (command: string) => keys(':', command, 'Enter');

  /** The pane as a PNG: its cells and colours, painted by xterm.js, photographed by Chromium. */
  async function shoot(name: string): Promise<void> {
    const ansi = tmux('capture-pane', '-e', '-p', '-t', 'shot');
    const term = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
    const ser = new SerializeAddon();
    term.loadAddon(ser);
    await new Promise<void>((r) => term.write(ansi.replace(/\n$/, '').replace(/\n/g, '\r\n'), r));
    const html = ser.serializeAsHTML({ includeGlobalBackground: true });
    term.dispose();
    const page = await browser.newPage({ deviceScaleFactor: 2 });
    // DejaVu Sans Mono for the cells; Symbola for the agents' symbols it lacks (⏺).
    await page.setContent(
      `<html><head><style>pre { display: inline-block; margin: 0 }</style></head>` +
        `<body style="margin:0;background:#000">${html.replace(
          /font-family: [^;]+;/,
          "font-family: 'DejaVu Sans Mono', 'Symbola', monospace;",
        )}</body></html>`,
    );
    const file = path.join(OUT, `${name}.png`);
    await page.locator('pre').first().screenshot({ path: file });
    await page.close();
    written.push(file);
  }

  await waitFor('parseConfig');
  // The sessions list, kept current by the daemon's events.
  ex('ClippySessions');
  await waitFor(/claude\s+idle\s+1/);
  // Ask claude about lines 4-7, from the code's window (windows split above: it is at the
  // bottom): the answer opens in a window of its own.
  keys('C-w', 'b');
  keys('4G', 'V', '3j');
  keys(':', 'ClippyAsk claude', 'Enter');
  await waitFor('ANSWER: export function parseConfig');
  await waitFor(/claude\s+idle\s+2/);
  await shoot('nvim-ask');
  // Put the answer into the code below line 12.
  keys('C-w', 'b');
  ex('12ClippyPut');
  await waitFor(/put \S+:2 \(\d+ lines\)/);
  await shoot('nvim-put');
  // Another answer: the answer window is reused, not a new split.
  ex('ClippyTurns aider');
  await waitFor('write the tests');
  await shoot('nvim-turns');
  // The agent's own screen, in the terminal window (half the screen: the others closed).
  keys('C-w', 'b');
  ex('only');
  ex('ClippyAttach claude');
  await waitFor('? for shortcuts');
  await shoot('nvim-attach');
  // Ctrl-] detaches: the terminal window goes.
  keys('C-]');
  await waitFor('detached from claude');
  keys('Escape');
  ex('only | help clippy');
  await waitFor('clippy.txt');
  await shoot('nvim-help');
  for (const f of written) process.stdout.write(`${path.relative(repoRoot, f)}\n`);
} finally {
  try {
    tmux('kill-server');
  } catch {
    // Not started.
  }
  await browser.close();
  await c.close();
  await d.stop();
}
