import type { Handler } from './context.js';

/** Starts the web view's endpoint (or reports the running one): its URL carries the token. */
export const webStart: Handler<'web_start'> = (request, context) =>
  context.daemon.web.start(request.port, request.rotate ?? false, request.code ?? false);
