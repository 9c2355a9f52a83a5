import type { ClippyClient } from '@clippy/client';
import { CliError } from '../errors.js';
import type { AdapterAnswer } from './adapter.js';
import { descendants, parentMap } from './process-tree.js';

/**
 * The session shown by the `clippy attach` running at or below process `root` (a tmux pane's
 * shell, a terminal window's process): exactly one session, none (an answer saying so), or a
 * clear error when the tree shows several.
 */
export async function sessionInTree(
  client: ClippyClient,
  root: number,
  where: string,
): Promise<AdapterAnswer> {
  const [{ clients }, parents] = await Promise.all([
    client.request('list_clients', {}),
    parentMap(),
  ]);
  const tree = descendants(root, parents);
  const sessions = new Map<string, string>();
  for (const c of clients) if (c.pid !== null && tree.has(c.pid)) sessions.set(c.session, c.name);
  if (sessions.size === 0) return { none: `no clippy attach runs in ${where} (PID ${root})` };
  if (sessions.size > 1) {
    const names = [...sessions.values()].join(', ');
    throw new CliError(
      `${where} (PID ${root}) shows more than one session (${names}): cannot tell which is focused`,
    );
  }
  const [session, name] = [...sessions][0]!;
  return { session, name };
}
