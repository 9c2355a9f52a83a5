import type { Handler } from './context.js';

/** One test notification to every place that is on (`clippy notify --test`). */
export const notifyTest: Handler<'notify_test'> = (_request, context) => context.notify.test();
