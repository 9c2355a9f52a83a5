import type { Handler } from './context.js';

/** Stops the web view's endpoint; its pages lose their connections. */
export const webStop: Handler<'web_stop'> = async (_request, context) => ({
  stopped: await context.daemon.web.stop(),
});
