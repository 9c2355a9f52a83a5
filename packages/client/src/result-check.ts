import { RESULT_SCHEMAS } from '@clippy/protocol';
import type { ResultCheck } from './client.js';

/** Checks a result with its zod schema (results of requests without one pass as they are). */
export const zodResultCheck: ResultCheck = (type, result) => {
  const schema = RESULT_SCHEMAS[type];
  if (!schema) return { ok: true, value: result };
  const parsed = schema.safeParse(result);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, problem: `${issue?.path.join('.') || '(result)'}: ${issue?.message}` };
};
