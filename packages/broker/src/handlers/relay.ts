import { findLiveSession, type Handler } from './context.js';
import { turnOrSession } from './turn-stubs.js';

export const relay: Handler<'relay'> = (request, context) => {
  findLiveSession(context, request.to);
  turnOrSession(context, request.from);
};
