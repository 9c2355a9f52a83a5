import { DaemonError } from '../errors.js';
import type { Command } from './context.js';

/** Refresh: read the lists again, connecting (and starting the daemon) when not connected. */
export const refresh: Command = {
  id: 'clippy.refresh',
  async run(ctx) {
    await ctx.model.connect(true);
    const st = ctx.model.status;
    if (st.kind === 'offline') throw new DaemonError(st.reason);
    return st;
  },
};
