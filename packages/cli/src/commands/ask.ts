import { BrokerError } from '@clippy/protocol';
import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { MULTILINE_HELP } from '../multiline-help.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { TURN_EXIT, turnCall } from '../turn-exits.js';
import { printTurn } from '../turn-output.js';
import {
  DEFAULT_TURN_TIMEOUT_S,
  INJECT_REQUEST_TIMEOUT_MS,
  timeoutMs,
  withTurnTimeout,
} from '../turn-timeout.js';
import { requireSubmittable, textArg } from '../text-arg.js';

/**
 * With `--timeout`, the daemon's idle wait ends with the ask's time; the request waits this much
 * longer, so that the daemon's answer (nothing typed: `target_busy`) comes before the client
 * gives up on it.
 */
const DAEMON_ANSWERS_FIRST_MS = 500;

interface AskArgs extends CommonArgs {
  session: string;
  text: string;
  timeout?: string;
  force?: boolean;
  json?: boolean;
}

/** `clippy ask SESSION TEXT`: send a message, wait for the answer, print it. */
const command: CommandModule<object, AskArgs> = {
  command: 'ask <session> <text>',
  describe: "Send TEXT to a session, wait for the turn it produces, print the answer's text",
  builder: (y) =>
    withTurnTimeout(withSocket(y))
      .positional('session', { type: 'string', demandOption: true, describe: 'session name or ID' })
      .positional('text', {
        type: 'string',
        demandOption: true,
        describe:
          'the message; `-` reads it from stdin (for texts longer than a command line takes)',
      })
      .option('force', {
        type: 'boolean',
        describe: 'do not wait for the session to be idle before sending',
      })
      .option('json', {
        type: 'boolean',
        describe: 'print the turn (metadata and text) as JSON',
      })
      .example('git diff | $0 ask claude - > review.md', 'ask with standard input as the message')
      .epilogue(MULTILINE_HELP) as never,
  handler: async (argv) => {
    const ms = timeoutMs(argv.timeout);
    const text = textArg(argv.text, process.argv.slice(2))!;
    requireSubmittable(text, 'ask', argv.session);
    // The timeout bounds the whole exchange: the wait for a busy session, the typing, the answer.
    const deadline = ms === undefined ? undefined : Date.now() + ms;
    const left = () => (deadline === undefined ? undefined : Math.max(1, deadline - Date.now()));
    const timedOut = (what: string) =>
      new CliError(
        `no answer from ${argv.session} within ${timeoutLabel(argv.timeout)}: ${what}`,
        EXIT.timeout,
      );
    const turn = await withClient(argv, async (c) => {
      // The answer is the first turn after the latest one stored now: a turn completing
      // between the send and the wait is not missed.
      const { turns } = await turnCall(() =>
        c.request('list_turns', { session: argv.session, limit: 1 }),
      );
      // `<session>:0`: no turn stored yet, so any turn is newer.
      const after = turns[0]?.turn_id ?? `${argv.session}:0`;
      const idleWait = left();
      let sent;
      try {
        sent = await c.request(
          'send',
          {
            session: argv.session,
            text,
            enter: true,
            // A REPL block left open (`for i in x: f(i)`) gets its closing Enter.
            complete: true,
            ...(argv.force ? { force: true } : {}),
            ...(idleWait !== undefined ? { idle_wait_ms: idleWait } : {}),
          },
          {
            timeoutMs:
              idleWait === undefined
                ? INJECT_REQUEST_TIMEOUT_MS
                : Math.min(INJECT_REQUEST_TIMEOUT_MS, idleWait + DAEMON_ANSWERS_FIRST_MS),
          },
        );
      } catch (err) {
        // The daemon's idle wait ended with our time: nothing was typed.
        if (busyTillDeadline(err, deadline))
          throw timedOut(
            `it stayed ${(err as BrokerError).message.includes('dialog') ? `blocked on a dialog (answer it: clippy send ${argv.session} --keys …)` : 'busy'} all that time, so the message was not sent`,
          );
        if (isRequestTimeout(err))
          throw timedOut('the message was still being typed in and its Enter confirmed');
        return turnCall(() => Promise.reject(err));
      }
      if (!sent.submitted) {
        throw new CliError(
          `the message was typed into ${argv.session} but it did not react to Enter`,
          TURN_EXIT.notSubmitted,
        );
      }
      const wait = left();
      try {
        const result = await c.request(
          'wait_turn',
          { session: argv.session, after, ...(wait !== undefined ? { timeout_ms: wait } : {}) },
          { timeoutMs: 0 },
        );
        return result.turn;
      } catch (err) {
        if (err instanceof BrokerError && err.code === 'timeout')
          throw timedOut('the message was sent, and its turn had not completed');
        return turnCall(() => Promise.reject(err));
      }
    });
    printTurn(turn, argv.json, argv.session);
  },
};

/** `--timeout 3` as the message says it: `3 s (--timeout 3)`, or the default's. */
function timeoutLabel(given: string | undefined): string {
  return given === undefined
    ? `${DEFAULT_TURN_TIMEOUT_S} s (the default --timeout)`
    : `${given} s (--timeout ${given})`;
}

/** The session stayed busy (or blocked) until the ask's deadline: the daemon typed nothing. */
function busyTillDeadline(err: unknown, deadline: number | undefined): boolean {
  return (
    err instanceof BrokerError &&
    err.code === 'target_busy' &&
    deadline !== undefined &&
    Date.now() >= deadline - DAEMON_ANSWERS_FIRST_MS
  );
}

/** A request the client gave up on (the client's RequestTimeoutError, matched by name: this
 * module does not load the client). */
function isRequestTimeout(err: unknown): boolean {
  return err instanceof Error && err.name === 'RequestTimeoutError';
}

export default command;
