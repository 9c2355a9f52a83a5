import type { Handler } from './context.js';

/** A two-agent loop (two legs), started with `prompt` when given. */
export const addLoop: Handler<'add_loop'> = (request, context) => ({
  routes: context.routes.addLoop(request.a, request.b, request),
});
