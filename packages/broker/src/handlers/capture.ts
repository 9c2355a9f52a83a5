import type { Handler } from './context.js';
import { noTurn } from './turn-stubs.js';

export const capture: Handler<'capture'> = (request, context) => noTurn(context, request.session);
