import type { FocusAdapter } from './adapter.js';
import { sessionInTree } from './attached-in-tree.js';
import { tmuxClients } from './tmux-clients.js';

/**
 * Inside tmux (a key binding's `run-shell`, a pane): the active pane of the tmux client that saw
 * input last, then the `clippy attach` in that pane's process tree. Outside tmux it has no
 * answer: a tmux client elsewhere says nothing about the window the user looks at (the X11
 * adapter follows a terminal window into its tmux client).
 */
export const tmuxAdapter: FocusAdapter = {
  name: 'tmux',
  async resolve(client) {
    if (!process.env.TMUX) return { none: 'not inside tmux ($TMUX is unset)' };
    const clients = await tmuxClients();
    if (typeof clients === 'string') return { none: clients };
    const latest = clients.reduce<(typeof clients)[number] | null>(
      (best, c) => (best === null || c.activity > best.activity ? c : best),
      null,
    );
    if (!latest) return { none: 'no terminal is attached to this tmux server' };
    return sessionInTree(client, latest.panePid, 'the active tmux pane');
  },
};
