import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DESKTOP_VARS, OUTSIDE_SERVICE_VARS, envWithout } from '@clippy/testkit/env';
import { bins } from '@clippy/testkit/paths';
import pty from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { parseInteractiveInput } from './interactive.js';
import { eventually } from '@clippy/testkit/until';

const appRoot = fileURLToPath(new URL('../test/fixtures/app', import.meta.url));
/** Output must show up within this long: a deadline for a loaded 2-core machine, not a wait. */
const WAIT_MS = 20_000;

interface Session {
  proc: pty.IPty;
  output: () => string;
  exited: Promise<number>;
  out: string;
  dir: string;
}

const sessions: Session[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) {
    try {
      process.kill(s.proc.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    fs.rmSync(s.dir, { recursive: true, force: true });
  }
});

/** Runs the built `clippy navigate` (offline planner, interactive) in a PTY, as a user does. */
function start(extra: string[] | ((dir: string) => string[]) = []): Session {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-'));
  const more = typeof extra === 'function' ? extra(dir) : extra;
  const out = path.join(dir, 'context.md');
  // No desktop: the clipboard is OSC 52 on the terminal, which the test can read back.
  const env = envWithout(process.env, OUTSIDE_SERVICE_VARS, DESKTOP_VARS);
  Object.assign(env, {
    XDG_CACHE_HOME: dir,
    XDG_CONFIG_HOME: dir,
    XDG_RUNTIME_DIR: dir,
    NO_COLOR: '1',
  });
  const proc = pty.spawn(
    process.execPath,
    [
      bins.clippy,
      'navigate',
      appRoot,
      '--goal',
      'fix the token refresh bug in auth',
      '--interactive',
      '--planner',
      'offline',
      '--budget',
      '3000',
      '-o',
      out,
      ...more,
    ],
    { name: 'xterm', cols: 120, rows: 40, cwd: path.resolve(appRoot, '../../../../..'), env },
  );
  let buf = '';
  proc.onData((d) => (buf += d));
  const exited = new Promise<number>((resolve) => proc.onExit((e) => resolve(e.exitCode)));
  const s = { proc, output: () => buf, exited, out, dir };
  sessions.push(s);
  return s;
}

/** Waits until the output after `from` matches; returns the index just past the match. */
function waitFor(s: Session, re: RegExp, from = 0): Promise<number> {
  return eventually(
    () => {
      const m = re.exec(s.output().slice(from));
      return m ? from + m.index + m[0].length : undefined;
    },
    () => `${re}; output:\n${s.output()}`,
    WAIT_MS,
    25,
  );
}

const PROMPT = /Continue\? \[y\/N\/feedback\]: /;

describe('interactive input parsing', () => {
  it('maps the seed table', () => {
    expect(parseInteractiveInput('y')).toEqual({ kind: 'continue' });
    expect(parseInteractiveInput(' YES ')).toEqual({ kind: 'continue' });
    expect(parseInteractiveInput('')).toEqual({ kind: 'stop' });
    expect(parseInteractiveInput('no')).toEqual({ kind: 'stop' });
    expect(parseInteractiveInput('feedback: look at billing')).toEqual({
      kind: 'feedback',
      text: 'look at billing',
    });
    expect(parseInteractiveInput('feedback:')).toEqual({ kind: 'unknown', text: 'feedback:' });
    expect(parseInteractiveInput('quit')).toEqual({ kind: 'quit' });
    expect(parseInteractiveInput('maybe')).toEqual({ kind: 'unknown', text: 'maybe' });
    expect(parseInteractiveInput('r')).toEqual({ kind: 'reject' });
    expect(parseInteractiveInput('Reject')).toEqual({ kind: 'reject' });
    expect(parseInteractiveInput('reject:')).toEqual({ kind: 'reject' });
    expect(parseInteractiveInput('reject: wrong files, "billing"')).toEqual({
      kind: 'reject',
      reason: 'wrong files, "billing"',
    });
    expect(parseInteractiveInput('rejected')).toEqual({ kind: 'unknown', text: 'rejected' });
  });
});

describe('clippy navigate --interactive in a PTY', () => {
  it('show, plan, cost, unknown input and feedback at the prompt; then n stops with the context', async () => {
    const s = start();
    let at = await waitFor(s, PROMPT);
    expect(s.output()).toContain('TURN REPORT - Step 1');
    s.proc.write('show\r');
    at = await waitFor(
      s,
      /# Repository map[\s\S]*## src\/auth\/refresh\.ts \(L4\)[\s\S]*Continue\?/,
      at,
    );
    s.proc.write('plan\r');
    at = await waitFor(s, /budget: 3000[\s\S]*verbosity:[\s\S]*Continue\?/, at);
    s.proc.write('cost\r');
    at = await waitFor(
      s,
      /No model calls \(offline planner: no cost\)\.[\s\S]*Total: \$0\.000000 of \$2\.00[\s\S]*Continue\?/,
      at,
    );
    s.proc.write('perhaps\r');
    at = await waitFor(s, /Unknown answer "perhaps"\. Type y \(continue\)[\s\S]*Continue\?/, at);
    s.proc.write('feedback: also the invoice totals\r');
    at = await waitFor(s, /Feedback noted for the next step: also the invoice totals/, at);
    await waitFor(s, /TURN REPORT - Step 2[\s\S]*Continue\?/, at);
    expect(fs.existsSync(s.out)).toBe(false);
    s.proc.write('n\r');
    expect(await s.exited).toBe(0);
    const context = fs.readFileSync(s.out, 'utf8');
    expect(context).toContain('- Completion: user_cancelled after 2 steps');
    expect(context).toMatch(/## src\/billing\/invoice\.ts \(L[34]\)/);
  });

  it('y continues until the planner finalizes; the context is written and the exit code is 0', async () => {
    const s = start();
    let at = await waitFor(s, PROMPT);
    // Answer yes at every prompt until the planner finalizes (its steps depend on the budget).
    let steps = 1;
    for (;;) {
      s.proc.write(steps === 1 ? 'yes\r' : 'y\r');
      at = await waitFor(s, /Done: {3}agent_done|Continue\? \[y\/N\/feedback\]: /, at);
      if (s.output().includes('Done:   agent_done')) break;
      steps++;
    }
    expect(await s.exited).toBe(0);
    const context = fs.readFileSync(s.out, 'utf8');
    expect(context).toContain(`- Completion: agent_done after ${steps + 1} steps`);
  });

  it('Enter stops at once and outputs the current context; --no-copy hands the report only to --execution-report FILE', async () => {
    let report = '';
    const s = start((dir) => [
      '--no-copy',
      '--execution-report',
      (report = path.join(dir, 'report.md')),
    ]);
    await waitFor(s, PROMPT);
    s.proc.write('\r');
    expect(await s.exited).toBe(0);
    expect(fs.readFileSync(s.out, 'utf8')).toContain('- Completion: user_cancelled after 1 step');
    expect(fs.readFileSync(report, 'utf8')).toMatch(/^# Execution Report\n/);
    expect(s.output()).toContain(`Execution report written to ${report}`);
    expect(s.output()).not.toContain('\x1b]52;');
    expect(s.output()).not.toContain('relay buffer');
  });

  it('q cancels without output and exits 130, and hands over no Execution Report', async () => {
    let report = '';
    const s = start((dir) => ['--execution-report', (report = path.join(dir, 'report.md'))]);
    await waitFor(s, PROMPT);
    s.proc.write('q\r');
    expect(await s.exited).toBe(130);
    expect(s.output()).toContain('cancelled: no context written');
    expect(fs.existsSync(s.out)).toBe(false);
    expect(fs.existsSync(report)).toBe(false);
    expect(s.output()).not.toContain('Execution report');
    expect(s.output()).not.toContain('\x1b]52;');
  });

  it('reject: <reason> undoes the step, the report says SKIPPED with the reason, and it is copied', async () => {
    let report = '';
    const r = start((dir) => ['--execution-report', (report = path.join(dir, 'report.md'))]);
    let at = await waitFor(r, PROMPT);
    r.proc.write('reject: billing is not part of it\r');
    at = await waitFor(
      r,
      /Step 1 rejected: its change is undone and the planner is told why \(billing is not part of it\)\./,
      at,
    );
    await waitFor(r, /Done: {3}agent_done|Continue\? \[y\/N\/feedback\]: /, at);
    if (!r.output().includes('Done:   agent_done')) r.proc.write('n\r');
    expect(await r.exited).toBe(0);
    const md = fs.readFileSync(report, 'utf8');
    expect(md).toMatch(/^# Execution Report\n\n\*\*Run Summary:\*\*\n- \*\*Status:\*\* SUCCESS\n/);
    expect(md).toContain(
      '### Action 1: update_flight_plan\n\n- **Status:** SKIPPED\n- **Details:** User rejected this action. These changes have not been implemented, and the previous state is still the current one.\n- **Reason:** "billing is not part of it"\n',
    );
    // The clipboard got the same report (OSC 52 here: no display), and the line says so.
    const osc = /\x1b\]52;c;([A-Za-z0-9+/=]+)\x07/.exec(r.output());
    expect(osc).not.toBeNull();
    expect(Buffer.from(osc![1]!, 'base64').toString('utf8')).toBe(md);
    expect(r.output()).toContain('not put in the relay buffer: no clippy broker is running');
    expect(r.output()).toContain(
      `Execution report copied to the clipboard (osc52) and written to ${report}`,
    );
    expect(fs.readFileSync(r.out, 'utf8')).toContain(
      '# Context: fix the token refresh bug in auth',
    );
  });

  it('Ctrl-C at the prompt cancels like q: exit 130, no context', async () => {
    const s = start();
    await waitFor(s, PROMPT);
    s.proc.write('\x03');
    expect(await s.exited).toBe(130);
    expect(fs.existsSync(s.out)).toBe(false);
  });

  it('--verbose shows the verbose box and its prompt', async () => {
    const s = start(['--verbose']);
    await waitFor(s, /Continue exploration\? \[y\/N\/feedback\]: /);
    expect(s.output()).toContain('║ COST TRACKING');
    s.proc.write('quit\r');
    expect(await s.exited).toBe(130);
  });
});
