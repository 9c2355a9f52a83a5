// Helpers for tests that drive fake agents under the real daemon (the turn e2e tests, benchmarks).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClippyClient } from '@clippy/client';
import type { SessionInfo } from '@clippy/protocol';
import { agentCommand, type AgentName } from './index.js';
import type { Submission } from './lib/log.js';
import type { TestDaemon } from '../daemon.js';
import { bins } from '../paths.js';
import { eventually } from '../until.js';

/** What a fake agent answers to `q` (line agents print it as is). */
export const answerText = (q: string): string =>
  `ANSWER: ${q}\nThe fake agent read your message.\nEnd of answer.`;

/**
 * The same answer as clippy reads it off a Claude-style TUI (the `claude` preset): the TUI
 * draws it with a `⏺` first line and indented continuation lines, and the preset removes that
 * mark with its indentation (screen text loses the agent's chrome): the answer itself.
 */
export const tuiAnswerText = (q: string): string => answerText(q);

/**
 * Starts a fake agent as a session and waits for its first prompt; returns its log file. With
 * `--hooks` it also waits for its channel to be live (its first hook, SessionStart, reported):
 * the hooks run async in node processes, and on a loaded machine a quick first answer can be on
 * screen before any hook came, when its report is not yet expected (the screen's text is kept).
 */
export async function spawnAgent(
  d: TestDaemon,
  c: ClippyClient,
  name: string,
  agent: AgentName,
  preset: string,
  args: string[] = [],
): Promise<string> {
  const log = join(d.env.root, `${name}.log`);
  const { command, args: full } = agentCommand(agent, ['--log', log, ...args]);
  await c.request('spawn', {
    command,
    args: full,
    name,
    preset,
    cwd: d.env.root,
    env: d.env.env as Record<string, string>,
  });
  await waitState(c, name, 'idle');
  if (args.includes('--hooks')) await waitChannelLive(c, name);
  return log;
}

/** Waits until the session's (named, or by ID) agent channel has delivered (its hooks run). */
export function waitChannelLive(c: ClippyClient, name: string, timeoutMs = 15_000): Promise<void> {
  return waitListed(
    c,
    name,
    (s) => s?.agent_channel === 'live',
    (s) => `${name}'s agent channel never came live (${s?.agent_channel})`,
    timeoutMs,
  );
}

/**
 * Starts a real program (a shell, a REPL) as a session with a preset, in the daemon's private
 * home, and waits for its first prompt. `cols` sets the width (80 by default, a usual terminal).
 */
export async function spawnProgram(
  d: TestDaemon,
  c: ClippyClient,
  name: string,
  preset: string,
  command: string,
  args: string[],
  cols = 80,
): Promise<void> {
  await c.request('spawn', {
    command,
    args,
    name,
    preset,
    cols,
    rows: 24,
    cwd: d.env.root,
    env: { ...(d.env.env as Record<string, string>), HOME: d.env.root, TERM: 'xterm-256color' },
  });
  await waitState(c, name, 'idle');
}

export function waitState(
  c: ClippyClient,
  name: string,
  state: string,
  timeoutMs = STATE_WAIT_MS,
): Promise<void> {
  return waitListed(
    c,
    name,
    (s) => s?.state === state,
    (s) => `${name} never became ${state} (state ${s?.state})`,
    timeoutMs,
  );
}

/** Polls the daemon's session list until the session (by name or ID) passes `done`. */
async function waitListed(
  c: ClippyClient,
  name: string,
  done: (s: SessionInfo | undefined) => boolean,
  failure: (s: SessionInfo | undefined) => string,
  timeoutMs: number,
): Promise<void> {
  let s: SessionInfo | undefined;
  await eventually(
    async () => {
      const { sessions } = await c.request('list_sessions', {});
      s = sessions.find((x) => x.name === name || x.session === name);
      return done(s);
    },
    'listed',
    timeoutMs,
    LIST_POLL_MS,
  ).catch(() => {
    throw new Error(failure(s));
  });
}

/** Pause between two looks at the session list. */
const LIST_POLL_MS = 20;

/** How long waitState waits by default: a hang guard (a fake agent starting at a load of 18
 * took more than 10 s). */
const STATE_WAIT_MS = 30_000;

/** How long `askTurn` waits for the answer's turn: a few fake-agent turns on a loaded machine. */
const ASK_TURN_TIMEOUT_MS = 20_000;

/**
 * What `clippy ask` does, through a client the test already holds: sends `text` with Enter and
 * waits for the first turn after the latest one stored before the send (so a turn completing
 * in between is not missed); returns its ID. For a test whose subject is not `ask` itself: a
 * CLI process costs about a second of CPU on a loaded 2-core machine, a request nothing.
 */
export async function askTurn(
  c: ClippyClient,
  session: string,
  text: string,
  timeoutMs = ASK_TURN_TIMEOUT_MS,
): Promise<string> {
  const { turns } = await c.request('list_turns', { session, limit: 1 });
  await c.request('send', { session, text, enter: true });
  const { turn } = await c.request(
    'wait_turn',
    { session, after: turns[0]?.turn_id ?? `${session}:0`, timeout_ms: timeoutMs },
    { timeoutMs: 0 },
  );
  return turn.turn_id;
}

/** What the agent received, one entry per submission. */
export function submissions(log: string): Submission[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as Submission & { prompt_at?: number; received_hr?: number; choice?: string },
    )
    .filter((e) => e.prompt_at === undefined && e.choice === undefined)
    .map(({ received_hr: _, ...s }) => s);
}

/** The choices the agent was given to its permission questions (`--ask`), in order. */
export function choices(log: string): string[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { choice?: string })
    .flatMap((e) => (e.choice !== undefined ? [e.choice] : []));
}

/** When the agent received each submission (epoch ms, sub-millisecond), in order. */
export function submissionTimes(log: string): number[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { received_hr?: number })
    .flatMap((e) => (e.received_hr !== undefined ? [e.received_hr] : []));
}

/** When the agent showed each prompt (epoch ms), in order; the first is the ready prompt. */
export function promptTimes(log: string): number[] {
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { prompt_at?: number })
    .flatMap((e) => (e.prompt_at ? [e.prompt_at] : []));
}

/** Runs the built CLI and returns stdout as bytes (for --raw). */
export function runRaw(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bins.clippy, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? 1, stdout: Buffer.concat(chunks) }));
  });
}
