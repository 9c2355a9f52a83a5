import type { Argv } from 'yargs';
import { readConfigFile } from './config-files.js';
import { intOption } from './int-option.js';

/** The pruning-tip thresholds of an Execution Report, from the command line or config.json. */
export interface TipArgs {
  tipMaxLines?: number;
  tipMaxChars?: number;
}

/** Adds --tip-max-lines and --tip-max-chars to a command that renders an Execution Report. */
export function withTipOptions<T>(y: Argv<T>): Argv<T & TipArgs> {
  return y
    .option(
      'tip-max-lines',
      intOption(
        'tip-max-lines',
        'an Execution Report longer than this many lines ends with the pruning tip (default 80; config executionReport.tipMaxLines)',
        { min: 0 },
      ),
    )
    .option(
      'tip-max-chars',
      intOption(
        'tip-max-chars',
        'an Execution Report longer than this many characters ends with the pruning tip (default 4000; config executionReport.tipMaxChars)',
        { min: 0 },
      ),
    ) as Argv<T & TipArgs>;
}

/** The thresholds to render with: flags win over config.json; unset ones keep the seed's defaults. */
export function tipLimits(a: TipArgs): { maxLines?: number; maxChars?: number } {
  const config = readConfigFile().executionReport ?? {};
  const maxLines = a.tipMaxLines ?? config.tipMaxLines;
  const maxChars = a.tipMaxChars ?? config.tipMaxChars;
  return {
    ...(maxLines !== undefined ? { maxLines } : {}),
    ...(maxChars !== undefined ? { maxChars } : {}),
  };
}
