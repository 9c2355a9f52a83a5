import { HandlerError, type Handler } from './context.js';

/** A route (one source) or a fan-in (several), kept and fired by the daemon; a source may be on another machine. */
export const addRoute: Handler<'add_route'> = async (request, context) => {
  if (request.remote) {
    if (request.from.length !== 1) {
      throw new HandlerError('invalid_argument', 'a route from another machine has one source');
    }
    return {
      route: await context.routes.addRemoteRoute(
        request.from[0]!,
        request.remote,
        request.to,
        request,
      ),
    };
  }
  return { route: context.routes.addRoute(request.from, request.to, request) };
};
