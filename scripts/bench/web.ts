/**
 * `npm run bench -- web`: is the web view's grid responsive with 50 sessions, 10 of them
 * printing? The real daemon, `clippy web` (the real CLI) and the page in headless Chromium (the
 * system one). 40 sessions are idle shells; 10 are fake agents that stream an answer of
 * PRINT_ANSWER_BYTES, and are asked again as soon as they are idle (so they print, go busy →
 * idle and complete turns without pause). Measured in the page, over MEASURE_MS:
 * - animation frames per second (a rAF loop) and the longest gap between two frames;
 * - grid renders per second and pushes handled per second (the page's own counters);
 * - state-change latency: a wrapper's session `probe` flips busy/idle every PROBE_INTERVAL_MS
 *   (`set_state`); from the request leaving the bench to the card's data-state changing (a
 *   MutationObserver in the page; page and bench clocks are matched by round trips).
 * Baseline in the same run: the same page and sessions with nobody printing. Then the same load
 * with a printing session's view (xterm.js on live output) open. Asserts nothing.
 */
import type { CDPSession, Page } from 'playwright-core';
import type { ClippyClient } from '@clippy/client';
import { TestBrowser, chromiumMissing } from '@clippy/testkit/chromium';
import { runClippy } from '@clippy/testkit/cli-pty';
import { spawnProgram } from '@clippy/testkit/agents/harness';
import { processCpuSeconds } from './_common.js';
import { TestDaemon, nowHr, percentile, spawnAgent, waitState } from './_turns-common.js';

/** Sessions in all, as the issue asks; PRINTERS of them print. */
const SESSIONS = 50;
const PRINTERS = 10;
/** Bytes each printer's answer streams (~300 lines): a long agent answer, not a firehose. */
const PRINT_ANSWER_BYTES = 20_000;
/** How long each case is measured. */
const MEASURE_MS = 10_000;
/** Time for a case's load to reach its steady state before measuring. */
const WARMUP_MS = 2_000;
/** The probe flips state this often: ~MEASURE_MS / PROBE_INTERVAL_MS samples per case. */
const PROBE_INTERVAL_MS = 250;
/** A frame gap above this is a frame the user sees dropped (3 frames at 60 Hz). */
const JANK_MS = 50;
/** Round trips used to match the page's clock to the bench's (the tightest one wins). */
const CLOCK_SYNC_ROUNDS = 20;
/** Generous waits for start-up on a loaded 2-core machine. */
const START_TIMEOUT_MS = 60_000;

interface PageFigures {
  fps: number;
  worstGapMs: number;
  janks: number;
  rendersPerS: number;
  pushesPerS: number;
  seen: { state: string; at: number }[];
}

interface CaseFigures extends PageFigures {
  name: string;
  latencies: number[];
  missed: number;
  /** The same flips seen by a plain client of the daemon (no page): the daemon's share. */
  pushLatencies: number[];
  turnsPerS: number;
  /** The daemon's CPU use over the case (1.0 = one core busy). */
  daemonCpu: number;
  /** Share of the time the page's main thread was busy (Chromium's TaskDuration). */
  pageBusy: number;
  /** Layouts Chromium did per second (forced ones included). */
  layoutsPerS: number;
}

/** page time − bench time, from the round trip with the least uncertainty. */
async function clockOffset(page: Page): Promise<{ offset: number; error: number }> {
  let best = { offset: 0, error: Infinity };
  for (let i = 0; i < CLOCK_SYNC_ROUNDS; i++) {
    const before = nowHr();
    const pageNow = await page.evaluate<number>('performance.timeOrigin + performance.now()');
    const after = nowHr();
    const error = (after - before) / 2;
    if (error < best.error) best = { offset: pageNow - (before + after) / 2, error };
  }
  return best;
}

// The in-page measuring code is kept as text: the bench runs under tsx, whose transform adds
// helpers (__name) that do not exist in the page.
/** Starts the in-page counters (frames, renders, pushes, the probe card's state changes). */
const START_MEASURING = `(() => {
  const now = () => performance.timeOrigin + performance.now();
  const m = {
    running: true, frames: 0, worstGap: 0, janks: 0,
    last: 0, started: 0, start: window.__clippy.stats(), seen: [],
  };
  window.__bench = m;
  const frame = (t) => {
    if (!m.running) return;
    if (m.frames > 0) {
      const gap = t - m.last;
      m.worstGap = Math.max(m.worstGap, gap);
      if (gap > ${JANK_MS}) m.janks++;
    } else {
      m.started = t;
    }
    m.last = t;
    m.frames++;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  const card = document.querySelector('.card[data-name="probe"]');
  m.observer = new MutationObserver(() => m.seen.push({ state: card.dataset.state, at: now() }));
  m.observer.observe(card, { attributes: true, attributeFilter: ['data-state'] });
})()`;

/** Stops them and returns the figures. */
const STOP_MEASURING = `(() => {
  const m = window.__bench;
  m.running = false;
  m.observer.disconnect();
  const end = window.__clippy.stats();
  const seconds = (m.last - m.started) / 1000;
  return {
    fps: (m.frames - 1) / seconds,
    worstGapMs: m.worstGap,
    janks: m.janks,
    rendersPerS: (end.renders - m.start.renders) / seconds,
    pushesPerS: (end.pushes - m.start.pushes) / seconds,
    seen: m.seen,
  };
})()`;

const startMeasuring = (page: Page): Promise<void> => page.evaluate(START_MEASURING);
const stopMeasuring = (page: Page): Promise<PageFigures> => page.evaluate(STOP_MEASURING);

/** Keeps the printers answering: each is asked again as soon as it is idle. */
class Printers {
  private running = false;
  private off: (() => void) | null = null;
  turns = 0;

  constructor(
    private readonly c: ClippyClient,
    private readonly names: string[],
  ) {}

  start(): void {
    this.running = true;
    this.off = this.c.on('state_changed', (p) => {
      if (this.running && p.state === 'idle' && this.names.includes(p.name)) this.ask(p.name);
    });
    for (const name of this.names) this.ask(name);
  }

  private ask(name: string): void {
    this.c
      .request('send', { session: name, text: `print ${this.turns}`, enter: true })
      .catch(() => {});
  }

  async stop(): Promise<void> {
    this.running = false;
    this.off?.();
    for (const name of this.names) await waitState(this.c, name, 'idle', START_TIMEOUT_MS);
  }
}

/** Chromium's own counters for the page (CDP Performance.getMetrics), by name. */
async function chromeMetrics(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(metrics.map((m) => [m.name, m.value]));
}

async function measureCase(
  name: string,
  page: Page,
  cdp: CDPSession,
  wrapper: ClippyClient,
  c: ClippyClient,
  daemonPid: number,
): Promise<CaseFigures> {
  const { offset } = await clockOffset(page);
  const cpuBefore = processCpuSeconds(daemonPid);
  const wallBefore = performance.now();
  const chromeBefore = await chromeMetrics(cdp);
  let turns = 0;
  const offTurns = c.on('turn_completed', () => turns++);
  // The same pushes reach the bench's own client: how long the daemon itself takes.
  const pushed: { state: string; at: number }[] = [];
  const offStates = c.on('state_changed', (p) => {
    if (p.name === 'probe') pushed.push({ state: p.state, at: nowHr() });
  });
  await startMeasuring(page);
  const sent: { state: string; at: number }[] = [];
  const end = Date.now() + MEASURE_MS;
  let state = 'idle';
  while (Date.now() < end) {
    state = state === 'idle' ? 'busy' : 'idle';
    const at = nowHr();
    await wrapper.request('set_state', { session: 'probe', state: state as 'idle' | 'busy' });
    sent.push({ state, at });
    await new Promise((r) => setTimeout(r, PROBE_INTERVAL_MS));
  }
  const figures = await stopMeasuring(page);
  const chromeAfter = await chromeMetrics(cdp);
  const wall = (performance.now() - wallBefore) / 1000;
  const daemonCpu = (processCpuSeconds(daemonPid) - cpuBefore) / wall;
  const delta = (metric: string) => (chromeAfter[metric] ?? 0) - (chromeBefore[metric] ?? 0);
  offTurns();
  offStates();
  // Each flip is matched to the first change the card showed to that state after it was sent.
  const match = (seen: { state: string; at: number }[], shift: number) => {
    const latencies: number[] = [];
    let missed = 0;
    let k = 0;
    for (const flip of sent) {
      while (k < seen.length && seen[k]!.at - shift < flip.at) k++;
      const shown = seen.slice(k).find((s) => s.state === flip.state);
      if (shown) latencies.push(shown.at - shift - flip.at);
      else missed++;
    }
    return { latencies, missed };
  };
  const { latencies, missed } = match(figures.seen, offset);
  return {
    ...figures,
    name,
    latencies,
    missed,
    pushLatencies: match(pushed, 0).latencies,
    turnsPerS: turns / (MEASURE_MS / 1000),
    daemonCpu,
    pageBusy: delta('TaskDuration') / wall,
    layoutsPerS: delta('LayoutCount') / wall,
  };
}

function report(cases: CaseFigures[]): void {
  const f1 = (n: number) => n.toFixed(1);
  const rows = cases.map((x) => [
    x.name,
    f1(x.fps),
    f1(x.worstGapMs),
    String(x.janks),
    f1(x.rendersPerS),
    f1(x.pushesPerS),
    `${Math.round(x.pageBusy * 100)}%`,
    f1(x.layoutsPerS),
    f1(x.turnsPerS),
    `${Math.round(x.daemonCpu * 100)}%`,
    f1(percentile(x.latencies, 50)),
    f1(percentile(x.latencies, 99)),
    String(x.missed),
    f1(percentile(x.pushLatencies, 50)),
    f1(percentile(x.pushLatencies, 99)),
  ]);
  const head = [
    'case',
    'fps',
    'worst gap ms',
    `gaps>${JANK_MS}ms`,
    'renders/s',
    'pushes/s',
    'page busy',
    'layouts/s',
    'turns/s',
    'daemon cpu',
    'state p50 ms',
    'state p99 ms',
    'missed',
    'client p50 ms',
    'client p99 ms',
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((v, i) => v.padStart(widths[i]!)).join('  ') + '\n';
  process.stdout.write(line(head));
  for (const r of rows) process.stdout.write(line(r));
  const [base, ...loaded] = cases;
  for (const x of loaded) {
    process.stdout.write(
      `${x.name} vs ${base!.name}: fps ×${(x.fps / base!.fps).toFixed(2)}, ` +
        `state latency p50 ×${(percentile(x.latencies, 50) / percentile(base!.latencies, 50)).toFixed(1)}, ` +
        `p99 ×${(percentile(x.latencies, 99) / percentile(base!.latencies, 99)).toFixed(1)}\n`,
    );
  }
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
    await c.request('subscribe', { events: ['state_changed', 'turn_completed'] });
    const quiet = SESSIONS - PRINTERS - 1;
    for (let i = 1; i <= quiet; i++) {
      await spawnProgram(d, c, `shell-${String(i).padStart(2, '0')}`, 'generic', 'sh', ['-i']);
    }
    const printers: string[] = [];
    for (let i = 1; i <= PRINTERS; i++) {
      const name = `printer-${String(i).padStart(2, '0')}`;
      printers.push(name);
      await spawnAgent(d, c, name, 'aider', 'aider', [
        '--big',
        String(PRINT_ANSWER_BYTES),
        '--delay',
        '20',
      ]);
    }
    // The 50th session: a wrapper's, whose state the bench sets (the latency probe).
    const wrapper = await d.env.connect({ role: 'wrapper' });
    await wrapper.request('register', { session: 'probe', pid: process.pid, pattern: 'generic' });
    await wrapper.request('set_state', { session: 'probe', state: 'idle' });

    const web = await runClippy(['web', '--json'], d.env.env);
    if (web.code !== 0) throw new Error(`clippy web failed: ${web.stderr}`);
    const { url } = JSON.parse(web.stdout) as { url: string };
    browser = await TestBrowser.launch();
    const page = await browser.browser.newPage({ viewport: { width: 1600, height: 1000 } });
    page.setDefaultTimeout(START_TIMEOUT_MS);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForFunction(`document.querySelectorAll('.card').length === ${SESSIONS}`);
    process.stdout.write(
      `${SESSIONS} sessions (${quiet} idle shells, ${PRINTERS} fake agents streaming ` +
        `${PRINT_ANSWER_BYTES / 1000} kB answers back to back, 1 probe flipped every ` +
        `${PROBE_INTERVAL_MS} ms); ${MEASURE_MS / 1000} s per case, headless Chromium\n`,
    );

    const cases: CaseFigures[] = [];
    cases.push(await measureCase('grid, idle', page, cdp, wrapper, c, d.pid));

    const load = new Printers(c, printers);
    load.start();
    await new Promise((r) => setTimeout(r, WARMUP_MS));
    cases.push(await measureCase(`grid, ${PRINTERS} printing`, page, cdp, wrapper, c, d.pid));

    // A printer's own view: xterm.js drawing its live output, the grid still kept current.
    await page.evaluate(`location.hash = 's=${printers[0]!}'`);
    await page.waitForSelector('#session .term-box .xterm');
    await new Promise((r) => setTimeout(r, WARMUP_MS));
    cases.push(
      await measureCase(`session view, ${PRINTERS} printing`, page, cdp, wrapper, c, d.pid),
    );
    await page.evaluate(`location.hash = ''`);
    await load.stop();

    report(cases);
    await wrapper.close();
    await c.close();
  } finally {
    await browser?.dispose();
    await d.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
