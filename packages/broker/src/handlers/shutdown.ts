import type { Handler } from './context.js';

export const shutdown: Handler<'shutdown'> = (_request, context) => {
  // Answer first, then stop: the caller gets its ok before the daemon_shutdown push.
  context.afterResponse(() => void context.daemon.close('shutdown requested by a client'));
  return {};
};
