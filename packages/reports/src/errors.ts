import { z } from 'zod';

/** Thrown when a report, or the input it is built from, breaks its schema. */
export class ReportValidationError extends Error {
  override readonly name = 'ReportValidationError';
  constructor(
    message: string,
    readonly issues: readonly z.core.$ZodIssue[] = [],
  ) {
    super(message);
  }
}

/** Parses `value` or throws a ReportValidationError naming `what` and every problem found. */
export function parseOrThrow<T extends z.ZodType>(
  schema: T,
  value: unknown,
  what: string,
): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ReportValidationError(
    `invalid ${what}:\n${z.prettifyError(parsed.error)}`,
    parsed.error.issues,
  );
}
