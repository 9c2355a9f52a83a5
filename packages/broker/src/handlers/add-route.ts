import type { Handler } from './context.js';

/** A route (one source) or a fan-in (several): kept and fired by the daemon. */
export const addRoute: Handler<'add_route'> = (request, context) => ({
  route: context.routes.addRoute(request.from, request.to, request),
});
