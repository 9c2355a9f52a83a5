import { runProgram } from '../run-program.js';
import { parentMap } from './process-tree.js';
import { TMUX_QUERY_TIMEOUT_MS } from './tmux-clients.js';

/** Further up than any real process tree goes: a guard against a malformed parent map. */
const MAX_TREE_DEPTH = 1_000;

/**
 * Whether the tmux server that `tmux` reaches from here ($TMUX, else the default socket) tells
 * process `pid` of focus changes: null when `pid` runs in none of its panes (or there is no
 * tmux), else its `focus-events` option (tmux sends a pane `ESC [ I` / `ESC [ O` only when on).
 */
export async function tmuxForwardsFocus(
  pid: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean | null> {
  let stdout: string;
  try {
    // The server option as a format, beside every pane's process: one query.
    ({ stdout } = await runProgram(
      'tmux',
      ['list-panes', '-a', '-F', '#{focus-events} #{pane_pid}'],
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
  const parents = await parentMap();
  // Up from the attach to the pane's process, or to the top of the tree.
  let p: number | undefined = pid;
  for (let step = 0; p !== undefined && p > 1 && step < MAX_TREE_DEPTH; step++) {
    if (panes.has(p)) return forwards;
    p = parents.get(p);
  }
  return null;
}
