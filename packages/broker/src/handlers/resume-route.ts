import type { Handler } from './context.js';

export const resumeRoute: Handler<'resume_route'> = (request, context) => ({
  routes: context.routes.resume(request.route),
});
