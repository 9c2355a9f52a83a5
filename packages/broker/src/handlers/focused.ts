import type { Handler } from './context.js';

/** The attached session whose terminal reported focus last, or nulls when none has it now. */
export const focused: Handler<'focused'> = (_request, context) => {
  const entry = context.focus.focused();
  if (!entry) return { session: null, name: null, since: null, pid: null };
  return {
    session: entry.session.id,
    name: entry.session.name,
    since: entry.since,
    pid: context.focus.pidOf(entry.client),
  };
};
