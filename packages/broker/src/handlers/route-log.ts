import type { Handler } from './context.js';

/** How many log entries `route_log` returns when the request does not say. */
const DEFAULT_LOG_ENTRIES = 100;

export const routeLog: Handler<'route_log'> = (request, context) => ({
  entries: context.routes.entries(request.route, request.limit ?? DEFAULT_LOG_ENTRIES),
});
