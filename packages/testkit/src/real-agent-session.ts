import { readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import headless from '@xterm/headless';
import { connect, type ClippyClient } from '@clippy/client';
import { runClippy } from './cli-pty.js';
import type { TestDaemon } from './daemon.js';
import { useUserWidths } from './xterm-widths.js';
import type { FakeModel } from './fake-model/server.js';
import { prepareAgent, type AgentSetup, type RealAgentName } from './real-agents.js';

/**
 * A real agent CLI running as a session of a test's daemon, against the fake model: the
 * end-to-end tests of issue 31 and the agents benchmark start their agents with this.
 */
export interface RealAgentSession extends AgentSetup {
  /** The session's name. */
  name: string;
  /** The session's ID and its process (the agent's leader process). */
  session: string;
  pid: number;
}

export interface StartOptions {
  /** Session name (default the agent's name). */
  name?: string;
  /** Extra arguments for the agent (e.g. Codex's `--no-alt-screen`). */
  args?: string[];
  cols?: number;
  rows?: number;
  /** Kept across daemon restarts (`clippy new --persist`): `clippy revive` can bring it back. */
  persist?: boolean;
}

/** A real agent's usual terminal: wide enough for its boxes and footers. */
const AGENT_COLS = 100;
const AGENT_ROWS = 30;

/**
 * Starts `agent` as a session of `d` (its own temp HOME under the daemon's root, pointed at
 * `model`) and returns at once: tests see it go from `starting` to `idle` themselves.
 */
export async function startRealAgent(
  d: TestDaemon,
  c: ClippyClient,
  agent: RealAgentName,
  model: FakeModel,
  opts: StartOptions = {},
): Promise<RealAgentSession> {
  const setup = prepareAgent(agent, model, {
    root: d.env.root,
    ...(opts.args ? { args: opts.args } : {}),
  });
  const name = opts.name ?? agent;
  const r = await c.request('spawn', {
    command: setup.command,
    args: setup.args,
    name,
    preset: setup.preset,
    cwd: setup.cwd,
    env: setup.env,
    cols: opts.cols ?? AGENT_COLS,
    rows: opts.rows ?? AGENT_ROWS,
    ...(opts.persist ? { persist: true } : {}),
  });
  return { ...setup, name, session: r.session, pid: r.pid };
}

/** A session as `clippy ls -a --json` lists it. */
export interface Listed {
  state: string;
  pid: number;
  turn_count: number;
}

/** A session as `clippy ls -a --json` lists it (undefined: not listed). */
export async function listed(env: NodeJS.ProcessEnv, name: string): Promise<Listed | undefined> {
  const r = await runClippy(['ls', '-a', '--json'], env);
  if (r.code !== 0) throw new Error(`clippy ls failed (${r.code}): ${r.stderr}`);
  const { sessions } = JSON.parse(r.stdout) as {
    sessions: (Listed & { name: string })[];
  };
  return sessions.find((s) => s.name === name);
}

/** How long `ask` may wait for a real agent's turn: seconds each on a loaded 2-core machine. */
export const REAL_AGENT_ASK_S = 120;
/** One scenario of real agents: their start and a few turns on a loaded 2-core machine, with room. */
export const REAL_AGENT_SCENARIO_MS = 300_000;

/** Default wait for a real agent to reach a state: Gemini CLI starts in 30 s on a busy 2-core box. */
export const AGENT_STATE_WAIT_MS = 90_000;

/**
 * A daemon event may have changed what `clippy ls` lists; checked again after this long without
 * one all the same (a change no event reports, a daemon restarted under the wait).
 */
const LISTING_RECHECK_MS = 1_000;

/**
 * Runs `clippy ls` (the command a user runs) until its row of session `name` passes `done`,
 * and returns that row: a test acts on it at once, as a user would. It runs `ls` again after
 * each event of the daemon (a state, a turn, unread counts), not in a loop: each `ls` is a node
 * process, and a loop of them took a core from the agents it waited on.
 */
export async function untilListing<T>(
  env: NodeJS.ProcessEnv,
  name: string,
  done: (s: Listed | undefined) => T | undefined,
  what: (s: Listed | undefined) => string,
  timeoutMs = AGENT_STATE_WAIT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let events = 0;
  let wake: (() => void) | null = null;
  const c = await connect({ env }).catch(() => null);
  c?.onAny(() => {
    events++;
    wake?.();
  });
  void c?.closed.then(() => wake?.());
  // Default events: all a listing shows (turn_progress, which it does not, is left out).
  await c?.request('subscribe', {}).catch(() => undefined);
  try {
    for (;;) {
      const seen = events;
      const s = await listed(env, name);
      const value = done(s);
      if (value !== undefined) return value;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`${what(s)}, after ${timeoutMs} ms\n${await screenOf(env, name)}`);
      if (events !== seen) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, LISTING_RECHECK_MS));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  } finally {
    await c?.close();
  }
}

/** Waits (see untilListing) until `clippy ls` lists the session in one of `states`, which it returns. */
export function untilListed(
  env: NodeJS.ProcessEnv,
  name: string,
  states: readonly string[],
  timeoutMs = AGENT_STATE_WAIT_MS,
): Promise<string> {
  return untilListing(
    env,
    name,
    (s) => {
      const state = s?.state ?? 'unlisted';
      return states.includes(state) ? state : undefined;
    },
    (s) => `session ${name} is ${s?.state ?? 'unlisted'}, not ${states.join('/')}`,
    timeoutMs,
  );
}

/**
 * What a person looking at the session would see, for a failed test's message: its state and
 * its screen as text (`clippy snapshot`, rendered in a headless terminal).
 */
export async function screenOf(env: NodeJS.ProcessEnv, name: string): Promise<string> {
  const r = await runClippy(['snapshot', name], env);
  if (r.code !== 0) return `(no snapshot of ${name}: ${r.stderr.trim()})`;
  const { session, screen } = JSON.parse(r.stdout) as {
    session: { state: string };
    screen: { cols: number; rows: number; ansi: string } | null;
  };
  // A session that never drew one (or exited before the daemon's restart) has no screen.
  if (!screen) return `${name} is ${session.state}, with no screen`;
  const term = new headless.Terminal({
    cols: screen.cols,
    rows: screen.rows,
    scrollback: 0,
    allowProposedApi: true,
  });
  useUserWidths(term);
  await new Promise<void>((resolve) => term.write(screen.ansi, resolve));
  const b = term.buffer.active;
  const lines: string[] = [];
  for (let y = b.viewportY; y < b.viewportY + screen.rows; y++)
    lines.push(b.getLine(y)?.translateToString(true) ?? '');
  term.dispose();
  return `--- ${name} is ${session.state}; its screen:\n${lines.join('\n').trimEnd()}\n---`;
}

/** How much of the daemon's log a failed check on a turn's source quotes (its latest lines). */
const WHY_LOG_CHARS = 4_000;

/** How many of the agent's record files a failed check lists, and how much of the newest ones. */
const WHY_RECORD_FILES = 10;
const WHY_RECORD_TAILS = 2;
const WHY_RECORD_CHARS = 8_000;

/** Directories deep a search for the agent's records goes under its HOME (Claude's: 3). */
const RECORD_SEARCH_DEPTH = 6;

/** How much of a record's text its digest line shows. */
const WHY_TEXT_CHARS = 60;

/**
 * One record of an agent's `.jsonl` file in one short line: what it is (type, subtype), where it
 * sits (uuid, parent, prompt id, side chain, meta), when, and the kinds and start of its content:
 * enough to see which line the answer is on, or that it is missing, without the file's bulk.
 */
function recordDigest(line: string): string {
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return `(not JSON) ${line.slice(0, WHY_TEXT_CHARS)}`;
  }
  const short = (v: unknown) => (typeof v === 'string' ? v.slice(0, 8) : undefined);
  const message = r.message as { id?: unknown; content?: unknown } | undefined;
  const content = message?.content;
  const blocks = Array.isArray(content)
    ? content.map((b: { type?: unknown; text?: unknown }) =>
        typeof b?.text === 'string'
          ? `${String(b.type)}:${JSON.stringify(b.text.slice(0, WHY_TEXT_CHARS))}`
          : String(b?.type),
      )
    : typeof content === 'string'
      ? [`string:${JSON.stringify(content.slice(0, WHY_TEXT_CHARS))}`]
      : [];
  const attachment = r.attachment as { type?: unknown } | undefined;
  // Codex's records carry what they are in a payload: its kind, turn and text.
  const payload = r.payload as Record<string, unknown> | undefined;
  const said = [payload?.message, payload?.last_agent_message].find((m) => typeof m === 'string');
  const fields = [
    r.timestamp,
    r.type,
    r.subtype,
    typeof payload?.type === 'string' && `payload:${payload.type}`,
    payload?.turn_id && `turn=${short(payload.turn_id)}`,
    said !== undefined && JSON.stringify(said.slice(0, WHY_TEXT_CHARS)),
    attachment?.type && `attachment:${String(attachment.type)}`,
    r.uuid && `uuid=${short(r.uuid)}`,
    r.parentUuid && `parent=${short(r.parentUuid)}`,
    r.promptId && `prompt=${short(r.promptId)}`,
    short(message?.id) && `msg=${short(message?.id)}`,
    r.isSidechain === true && 'sidechain',
    r.isMeta === true && 'meta',
    blocks.length > 0 && `[${blocks.join(', ')}]`,
  ];
  return fields.filter((x) => x !== undefined && x !== false && x !== null && x !== '').join(' ');
}

/**
 * The agent's record files (`.jsonl`) under its temp HOME, newest first, and the newest ones one
 * line per record: what the agent wrote where clippy looked for its answer, and anywhere else.
 */
function recordFiles(home: string): string {
  const found: { path: string; size: number; mtime: number }[] = [];
  const walk = (dir: string, depth: number): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory() && depth < RECORD_SEARCH_DEPTH && e.name !== 'node_modules')
        walk(p, depth + 1);
      else if (e.isFile() && e.name.endsWith('.jsonl')) {
        const st = statSync(p);
        found.push({ path: p, size: st.size, mtime: st.mtimeMs });
      }
    }
  };
  walk(home, 0);
  if (found.length === 0) return `\nthe agent's record files: none under ${home}`;
  found.sort((a, b) => b.mtime - a.mtime);
  const now = Date.now();
  const list = found
    .slice(0, WHY_RECORD_FILES)
    .map(
      (f) => `  ${f.path} (${f.size} bytes, written ${((now - f.mtime) / 1000).toFixed(1)} s ago)`,
    );
  const tails = found.slice(0, WHY_RECORD_TAILS).map((f) => {
    const lines = readFileSync(f.path, 'utf8').split('\n').filter(Boolean);
    const digest = lines.map(recordDigest).join('\n');
    return `--- ${f.path}, one line per record (${lines.length}):\n${digest.slice(-WHY_RECORD_CHARS)}`;
  });
  return `\nthe agent's record files, newest first:\n${list.join('\n')}\n${tails.join('\n')}`;
}

/**
 * What a failed check on a real agent's turn needs said (an answer read off the screen where
 * the agent's own was expected): the session's latest turn's record (the join's note is in
 * `disagreement`), its channel's state and note, the daemon's latest log lines (warnings: a
 * report refused, late, or never come) and, given the agent's temp HOME, its record files.
 */
export async function turnWhy(
  c: ClippyClient,
  session: string,
  d?: TestDaemon,
  home?: string,
): Promise<string> {
  const {
    content: _c,
    text: _t,
    screen_text: _s,
    ...meta
  } = (await c.request('get_turn', { session })).turn;
  const s = (await c.request('list_sessions', {})).sessions.find(
    (x) => x.name === session || x.session === session,
  );
  const log = d ? `\nthe daemon's log: ${d.log.slice(-WHY_LOG_CHARS)}` : '';
  const records = home ? recordFiles(home) : '';
  return `${session}'s turn: ${JSON.stringify(meta)}\nits channel: ${s?.agent_channel} ${s?.agent_session ?? ''} (${s?.channel_note ?? 'no note'})${log}${records}`;
}
