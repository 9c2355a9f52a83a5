import type { Argv, CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { intOption } from '../int-option.js';
import { addedLine, routeCall } from '../routes/route-output.js';

/** The most rounds `add_loop` takes (its schema's bound). */
const MAX_LOOP_ROUNDS = 1000;

interface LoopArgs extends CommonArgs {
  a: string;
  b: string;
  until: string;
  rounds?: number;
  name?: string;
  'template-a'?: string;
  'template-b'?: string;
  prompt?: string;
  json?: boolean;
}

/** `clippy loop A B --until RE`: a writer/reviewer loop run by the daemon (docs/routes.md). */
const command: CommandModule<object, LoopArgs> = {
  command: 'loop <a> <b>',
  describe: "A's turns go to B and B's answers back to A, until a turn matches --until",
  builder: (y: Argv) =>
    withSocket(y)
      .positional('a', {
        type: 'string',
        demandOption: true,
        describe: 'the agent that works (e.g. claude)',
      })
      .positional('b', {
        type: 'string',
        demandOption: true,
        describe: 'the agent that answers (e.g. codex)',
      })
      .option('until', {
        type: 'string',
        demandOption: true,
        requiresArg: true,
        describe: 'a turn matching RE ends the loop (e.g. "LGTM|APPROVED")',
      })
      .option('rounds', intOption('rounds', 'most rounds (default 5)', { max: MAX_LOOP_ROUNDS }))
      .option('name', {
        type: 'string',
        requiresArg: true,
        describe: 'loop name (default loop1, …)',
      })
      .option('template-a', {
        type: 'string',
        requiresArg: true,
        describe: "template for A's turns sent to B",
      })
      .option('template-b', {
        type: 'string',
        requiresArg: true,
        describe: "template for B's answers sent to A",
      })
      .option('prompt', {
        type: 'string',
        requiresArg: true,
        describe: 'send A this first, to start',
      })
      .option('json', { type: 'boolean', describe: 'print the two legs as JSON' })
      .example(
        'clippy loop claude codex --until LGTM --template-a review --prompt "add tests"',
        '',
      ) as never,
  handler: async (a) => {
    const { routes } = await withClient(a, (c) =>
      routeCall(() =>
        c.request('add_loop', {
          a: a.a,
          b: a.b,
          until: a.until,
          ...(a.rounds !== undefined ? { rounds: a.rounds } : {}),
          ...(a.name !== undefined ? { name: a.name } : {}),
          ...(a['template-a'] !== undefined ? { template_a: a['template-a'] } : {}),
          ...(a['template-b'] !== undefined ? { template_b: a['template-b'] } : {}),
          ...(a.prompt !== undefined ? { prompt: a.prompt } : {}),
        }),
      ),
    );
    if (a.json) process.stdout.write(`${JSON.stringify({ routes }, null, 2)}\n`);
    else process.stdout.write(routes.map((r) => `${addedLine(r)}\n`).join(''));
  },
};

export default command;
