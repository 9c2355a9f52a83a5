import type { Handler } from './context.js';

export const listRoutes: Handler<'list_routes'> = (_request, context) => ({
  routes: context.routes.list(),
});
