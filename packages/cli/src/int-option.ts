import type { Options } from 'yargs';
import { CliError } from './errors.js';
import { EXIT } from './exit-codes.js';

// Whole-number options (`--limit N`, `--rounds N`, `--cols N`…), one parser for all: yargs'
// `number` type turns `abc` into NaN, takes `2.5`, and loses what was typed for the message.

/** The whole numbers an option takes: from `min` (default 1), up to `max` when given. */
export interface IntRange {
  min?: number;
  max?: number;
}

/** What the option takes, as the error says it: `a whole number from 1 to 1000`. */
function wanted({ min = 1, max }: IntRange): string {
  if (max !== undefined) return `a whole number from ${min} to ${max}`;
  return min === 1 ? 'a whole number of 1 or more' : `a whole number of ${min} or more`;
}

/**
 * The option's value as a number, or a usage error (exit 64) naming the option, what it
 * takes and what was typed: `--limit must be a whole number of 1 or more (got 'abc')`.
 */
export function parseIntOption(flag: string, given: unknown, range: IntRange = {}): number {
  const text = String(given).trim();
  const n = /^[+-]?\d+$/u.test(text) ? Number(text) : NaN;
  const { min = 1, max } = range;
  if (!Number.isSafeInteger(n) || n < min || (max !== undefined && n > max))
    throw new CliError(`${flag} must be ${wanted(range)} (got '${String(given)}')`, EXIT.usage);
  return n;
}

/**
 * A yargs option taking a whole number in `range`: kept as typed and checked by
 * parseIntOption when the command line is parsed (a bad value stops the command, exit 64).
 */
export function intOption(
  name: string,
  describe: string,
  range: IntRange = {},
  extra: Pick<Options, 'alias' | 'demandOption' | 'default'> = {},
): Options {
  return {
    type: 'string',
    requiresArg: true,
    describe,
    ...extra,
    coerce: (v: unknown) => (v === undefined ? v : parseIntOption(`--${name}`, v, range)),
  };
}
