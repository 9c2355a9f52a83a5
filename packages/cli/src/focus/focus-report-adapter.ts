import type { FocusAdapter } from './adapter.js';
import { tmuxForwardsFocus } from './tmux-focus-events.js';

/**
 * The daemon's answer: the attached terminal that reported focus in last, and not out since.
 * An attach inside a tmux pane hears of focus changes only when tmux forwards them
 * (`focus-events on`; off is tmux's default): otherwise its last report may be long stale.
 */
export const focusReportAdapter: FocusAdapter = {
  name: 'focus-report',
  async resolve(client) {
    const r = await client.request('focused', {});
    if (r.session === null || r.name === null) {
      return { none: 'no attached terminal reports having the focus' };
    }
    if (r.pid !== null && (await tmuxForwardsFocus(r.pid)) === false) {
      return {
        none: `the report is from ${r.name}'s attach in a tmux pane, and tmux forwards no focus changes (focus-events is off)`,
      };
    }
    return { session: r.session, name: r.name };
  },
};
