import type { Handler } from './context.js';

export const removeRoute: Handler<'remove_route'> = (request, context) => ({
  removed: context.routes.remove(request.route),
});
