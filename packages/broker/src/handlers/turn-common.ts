import { HandlerError } from './context.js';
import { TurnError } from '../turns/errors.js';

/** Runs turn code, answering its expected failures (TurnError) with their wire codes. */
export async function turnOp<R>(fn: () => R | Promise<R>): Promise<R> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof TurnError) throw new HandlerError(err.code, err.message);
    throw err;
  }
}
