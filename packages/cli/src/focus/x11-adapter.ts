import { XDisplay } from '../x11/x11-display.js';
import type { FocusAdapter } from './adapter.js';
import { sessionInTree } from './attached-in-tree.js';
import { descendants, parentMap } from './process-tree.js';
import { tmuxClients } from './tmux-clients.js';

/**
 * X11: the active window's process (`_NET_ACTIVE_WINDOW`, else the input focus; `_NET_WM_PID`),
 * then the `clippy attach` in its process tree. When the window runs a tmux client instead, its
 * active pane's tree is searched.
 */
export const x11Adapter: FocusAdapter = {
  name: 'x11',
  async resolve(client) {
    if (!process.env.DISPLAY) return { none: 'no X display ($DISPLAY is unset)' };
    let display: XDisplay;
    try {
      display = await XDisplay.connect();
    } catch (err) {
      return { none: (err as Error).message };
    }
    let pid: number | null;
    try {
      const window = await display.activeWindow();
      if (window === null) return { none: 'no X window has the focus' };
      pid = await display.windowPid(window);
      if (pid === null) {
        return { none: `the focused X window (0x${window.toString(16)}) names no process` };
      }
    } finally {
      display.dispose();
    }
    const answer = await sessionInTree(client, pid, 'the focused X window');
    if (!('none' in answer)) return answer;
    const viaTmux = await tmuxPaneIn(pid);
    return viaTmux === null ? answer : sessionInTree(client, viaTmux, 'the focused tmux pane');
  },
};

/** The active pane's PID of a tmux client running in the window's process tree, if any. */
async function tmuxPaneIn(windowPid: number): Promise<number | null> {
  const clients = await tmuxClients();
  if (typeof clients === 'string' || clients.length === 0) return null;
  const tree = descendants(windowPid, await parentMap());
  return clients.find((c) => tree.has(c.pid))?.panePid ?? null;
}
