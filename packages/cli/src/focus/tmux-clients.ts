import { runProgram } from '../run-program.js';

/** How long a `tmux` query may take: the server answers in milliseconds when it is there. */
export const TMUX_QUERY_TIMEOUT_MS = 2_000;

/** A terminal attached to a tmux server, and the pane it shows. */
export interface TmuxClient {
  /** When the client last saw input (seconds since the epoch). */
  activity: number;
  pid: number;
  panePid: number;
}

/**
 * The clients of the tmux server that `tmux` reaches from here ($TMUX inside tmux, else the
 * default socket): a reason string when there is no tmux or no server.
 */
export async function tmuxClients(
  env: NodeJS.ProcessEnv = process.env,
): Promise<TmuxClient[] | string> {
  let stdout: string;
  try {
    ({ stdout } = await runProgram(
      'tmux',
      ['list-clients', '-F', '#{client_activity} #{client_pid} #{pane_pid}'],
      { env, timeout: TMUX_QUERY_TIMEOUT_MS },
    ));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'tmux is not installed';
    return 'no tmux server is running';
  }
  const clients: TmuxClient[] = [];
  for (const line of stdout.split('\n')) {
    const [activity, pid, panePid] = line.trim().split(' ').map(Number);
    if (pid && panePid) clients.push({ activity: activity ?? 0, pid, panePid });
  }
  return clients;
}
