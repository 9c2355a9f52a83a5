import { runProgram } from '../run-program.js';
import { parentMap, parentOf } from './process-tree.js';
import { TMUX_QUERY_TIMEOUT_MS } from './tmux-clients.js';

/** Further up than any real process tree goes: a guard against a malformed parent map. */
const MAX_TREE_DEPTH = 1_000;

/**
 * Whether tmux tells process `pid` (an attach client) of focus changes: null when `pid` runs in
 * no tmux pane (or there is no tmux to ask), else that server's `focus-events` option (tmux
 * sends a pane `ESC [ I` / `ESC [ O` only when it is on). On Linux the attach's own $TMUX
 * names its server (no $TMUX: never started in tmux, nothing to run); elsewhere the server
 * `tmux` reaches from here ($TMUX, else the default socket) is asked.
 */
export async function tmuxForwardsFocus(
  pid: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean | null> {
  const socket = await tmuxSocketOf(pid);
  if (socket === null) return null;
  let stdout: string;
  try {
    // The server option as a format, beside every pane's process: one query.
    ({ stdout } = await runProgram(
      'tmux',
      [...(socket ? ['-S', socket] : []), 'list-panes', '-a', '-F', '#{focus-events} #{pane_pid}'],
      { env, timeout: TMUX_QUERY_TIMEOUT_MS },
    ));
  } catch {
    return null; // No tmux, or no server: the attach is in no pane of it.
  }
  const panes = new Set<number>();
  let forwards = false;
  for (const line of stdout.split('\n')) {
    const [on, panePid] = line.trim().split(' ').map(Number);
    if (!panePid) continue;
    panes.add(panePid);
    forwards = on === 1;
  }
  if (panes.size === 0) return null;
  // $TMUX is inherited by what a pane starts elsewhere (a terminal window opened from it): the
  // attach counts as in tmux only when a pane's process is one of its ancestors.
  let parents: Map<number, number> | null = null;
  let p: number | undefined = pid;
  for (let step = 0; p !== undefined && p > 1 && step < MAX_TREE_DEPTH; step++) {
    if (panes.has(p)) return forwards;
    // Up one step from /proc; where there is none, from one listing of every process.
    const up: number | null = parents ? null : await parentOf(p);
    if (up === null) parents ??= await parentMap();
    p = up ?? parents?.get(p);
  }
  return null;
}

/**
 * The tmux server socket in process `pid`'s environment ($TMUX is `socket,pid,session`): null
 * when it has none, '' when its environment cannot be read (not Linux: ask the default server).
 */
async function tmuxSocketOf(pid: number): Promise<string | null> {
  const { readFile } = process.getBuiltinModule('node:fs/promises');
  let environ: string;
  try {
    environ = await readFile(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return '';
  }
  const entry = environ.split('\0').find((e) => e.startsWith('TMUX='));
  if (!entry) return null;
  const socket = entry.slice('TMUX='.length).split(',')[0] ?? '';
  return socket === '' ? null : socket;
}
