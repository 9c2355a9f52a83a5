import { findSession, type Handler } from './context.js';

export const resize: Handler<'resize'> = (request, context) => {
  const session = findSession(context, request.session);
  session.resize(request.cols, request.rows, context.connection, request.fit ?? false);
  return {};
};
