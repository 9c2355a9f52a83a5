import type { FocusAdapter } from './adapter.js';

/** The daemon's answer: the attached terminal that reported focus in last, and not out since. */
export const focusReportAdapter: FocusAdapter = {
  name: 'focus-report',
  async resolve(client) {
    const r = await client.request('focused', {});
    if (r.session === null || r.name === null) {
      return { none: 'no attached terminal reports having the focus' };
    }
    return { session: r.session, name: r.name };
  },
};
