import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { MULTILINE_HELP } from '../multiline-help.js';
import { CliError } from '../errors.js';
import { TURN_EXIT, turnCall } from '../turn-exits.js';
import { printTurn } from '../turn-output.js';
import { INJECT_REQUEST_TIMEOUT_MS, timeoutMs, withTurnTimeout } from '../turn-timeout.js';

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
      .positional('text', { type: 'string', demandOption: true, describe: 'the message' })
      .option('force', {
        type: 'boolean',
        describe: 'do not wait for the session to be idle before sending',
      })
      .option('json', {
        type: 'boolean',
        describe: 'print the turn (metadata and text) as JSON',
      })
      .epilogue(MULTILINE_HELP) as never,
  handler: async (argv) => {
    const ms = timeoutMs(argv.timeout);
    const started = Date.now();
    const turn = await withClient(argv, async (c) => {
      // The answer is the first turn after the latest one stored now: a turn completing
      // between the send and the wait is not missed.
      const { turns } = await turnCall(() =>
        c.request('list_turns', { session: argv.session, limit: 1 }),
      );
      // `<session>:0`: no turn stored yet, so any turn is newer.
      const after = turns[0]?.turn_id ?? `${argv.session}:0`;
      const sent = await turnCall(() =>
        c.request(
          'send',
          {
            session: argv.session,
            text: String(argv.text),
            enter: true,
            // A REPL block left open (`for i in x: f(i)`) gets its closing Enter.
            complete: true,
            ...(argv.force ? { force: true } : {}),
          },
          { timeoutMs: INJECT_REQUEST_TIMEOUT_MS },
        ),
      );
      if (!sent.submitted) {
        throw new CliError(
          `the message was typed into ${argv.session} but it did not react to Enter`,
          TURN_EXIT.notSubmitted,
        );
      }
      const left = ms === undefined ? undefined : Math.max(1, ms - (Date.now() - started));
      const result = await turnCall(() =>
        c.request(
          'wait_turn',
          {
            session: argv.session,
            after,
            ...(left ? { timeout_ms: left } : {}),
          },
          { timeoutMs: 0 },
        ),
      );
      return result.turn;
    });
    printTurn(turn, argv.json, argv.session);
  },
};

export default command;
