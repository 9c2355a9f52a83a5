import type { ClippyClient, RequestFields } from '@clippy/client';
import type { Argv } from 'yargs';
import { MULTILINE_HELP } from './multiline-help.js';
import { turnCall } from './turn-exits.js';
import { INJECT_REQUEST_TIMEOUT_MS } from './turn-timeout.js';

/** The options of every command that injects a turn into a session (`paste`, `relay`, `deliver`). */
export interface InjectArgs {
  raw?: boolean;
  enter?: boolean;
  force?: boolean;
  quiet?: boolean;
}

/** Adds `--raw`, `--no-enter`, `--force` and `--quiet`, and says what multi-line text becomes. */
export function withInjectOptions<T>(y: Argv<T>): Argv<T & InjectArgs> {
  return y
    .epilogue(MULTILINE_HELP)
    .option('raw', { type: 'boolean', describe: 'send the raw bytes instead of the readable text' })
    .option('enter', {
      type: 'boolean',
      default: true,
      describe: 'submit after pasting (--no-enter: leave it in the input)',
    })
    .option('force', { type: 'boolean', describe: 'do not wait for the target to be idle' })
    .option('quiet', { alias: 'q', type: 'boolean', describe: 'print nothing' }) as Argv<
    T & InjectArgs
  >;
}

/** The injection fields of a `paste`/`relay` request, from the options. */
export function injectFields(argv: InjectArgs): { raw: boolean; enter: boolean; force: boolean } {
  return { raw: argv.raw ?? false, enter: argv.enter ?? true, force: argv.force ?? false };
}

type InjectingRequest = 'paste' | 'relay' | 'deliver';

/**
 * Sends a request that may inject into a session, with the injection options of the command
 * line and the long timeout an injection needs (it waits for the target to be idle).
 */
export function requestInjection<T extends InjectingRequest>(
  client: ClippyClient,
  argv: InjectArgs,
  type: T,
  fields: Omit<RequestFields<T>, 'raw' | 'enter' | 'force'>,
) {
  return turnCall(() =>
    client.request(type, { ...fields, ...injectFields(argv) } as RequestFields<T>, {
      timeoutMs: INJECT_REQUEST_TIMEOUT_MS,
    }),
  );
}

/** The line a successful injection prints (unless --quiet). */
export function injectedLine(
  verb: string,
  result: { turn_id: string; size: number; submitted: boolean },
  target: string,
): string {
  const note = result.submitted ? '' : ' (not submitted)';
  return `${verb} ${result.turn_id} (${result.size} bytes) into ${target}${note}`;
}
