import type { Handler } from './context.js';
import { turnOrSession } from './turn-stubs.js';

export const captureById: Handler<'capture_by_id'> = (request, context) =>
  turnOrSession(context, request.turn_id);
