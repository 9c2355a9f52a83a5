import type { Handler } from './context.js';

export const pauseRoute: Handler<'pause_route'> = (request, context) => ({
  routes: context.routes.pause(request.route),
});
