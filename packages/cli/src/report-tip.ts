import type { Argv } from 'yargs';
import { readConfigFile } from './config-files.js';
import { CliError } from './errors.js';
import { EXIT } from './exit-codes.js';

/** The pruning-tip thresholds of an Execution Report, from the command line or config.json. */
export interface TipArgs {
  tipMaxLines?: number;
  tipMaxChars?: number;
}

/** Adds --tip-max-lines and --tip-max-chars to a command that renders an Execution Report. */
export function withTipOptions<T>(y: Argv<T>): Argv<T & TipArgs> {
  return y
    .option('tip-max-lines', {
      type: 'number',
      requiresArg: true,
      describe:
        'an Execution Report longer than this many lines ends with the pruning tip (default 80; config executionReport.tipMaxLines)',
    })
    .option('tip-max-chars', {
      type: 'number',
      requiresArg: true,
      describe:
        'an Execution Report longer than this many characters ends with the pruning tip (default 4000; config executionReport.tipMaxChars)',
    }) as Argv<T & TipArgs>;
}

/** The thresholds to render with: flags win over config.json; unset ones keep the seed's defaults. */
export function tipLimits(a: TipArgs): { maxLines?: number; maxChars?: number } {
  for (const [flag, v] of [
    ['--tip-max-lines', a.tipMaxLines],
    ['--tip-max-chars', a.tipMaxChars],
  ] as const)
    if (v !== undefined && (!Number.isInteger(v) || v < 0))
      throw new CliError(`${flag} must be a whole number >= 0 (got ${String(v)})`, EXIT.usage);
  const config = readConfigFile().executionReport ?? {};
  const maxLines = a.tipMaxLines ?? config.tipMaxLines;
  const maxChars = a.tipMaxChars ?? config.tipMaxChars;
  return {
    ...(maxLines !== undefined ? { maxLines } : {}),
    ...(maxChars !== undefined ? { maxChars } : {}),
  };
}
