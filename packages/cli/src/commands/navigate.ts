import { intOption } from '../int-option.js';
import type { Argv, CommandModule } from 'yargs';
import {
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_MAX_SPEND_USD,
  DEFAULT_MODEL,
  DEFAULT_TOKEN_BUDGET,
} from '@clippy/navigator/defaults';
import { withSocket, type CommonArgs } from '../connect.js';
import { EXIT } from '../exit-codes.js';
import { loadModule } from '../load-module.js';
import { withTipOptions, type TipArgs } from '../report-tip.js';

/**
 * Exit codes of `clippy navigate` (documented in docs/navigator.md and docs/cli.md). Every run
 * that delivers a context exits 0 — agent_done, budget_exceeded, max_iterations and the user's
 * `n` — with a warning on stderr for the limits; `q` cancels with 130 (as Ctrl-C would).
 */
export const NAVIGATE_EXIT = {
  ok: EXIT.ok,
  /** The planner failed (model unreachable, key refused); the context so far is still written. */
  failure: EXIT.failure,
  usage: EXIT.usage,
  /** The user quit (`q`) or pressed Ctrl-C: no context. */
  cancelled: 130,
} as const;

export interface NavigateArgs extends CommonArgs, TipArgs {
  path: string;
  goal?: string;
  interactive: boolean;
  verbose: boolean;
  planner?: 'gemini' | 'offline';
  model: string;
  budget: number;
  maxCost: number;
  maxIterations: number;
  priceInput?: number;
  priceOutput?: number;
  output?: string;
  /** true: copy the context; false (--no-copy): do not hand over the Execution Report. */
  copy?: boolean;
  executionReport?: string;
  flightPlan?: string;
  json: boolean;
  report?: string;
  session?: string;
  keepSession: boolean;
  quiet: boolean;
  include?: string[];
  exclude?: string[];
  cache: boolean;
}

const navigateCommand: CommandModule<object, NavigateArgs> = {
  command: 'navigate [path]',
  describe:
    'Build the context an agent needs for a goal: a map of the repository within token and cost budgets',
  builder: (y: Argv) =>
    withTipOptions(withSocket(y))
      .positional('path', { type: 'string', default: '.', describe: 'repository to explore' })
      .option('goal', {
        alias: 'g',
        type: 'string',
        describe: 'what the context is for, in your words',
      })
      .option('interactive', {
        alias: 'i',
        type: 'boolean',
        default: false,
        describe:
          'show each step and ask: y (go on), n/Enter (stop, output the context), feedback: <text>, r/reject[: <reason>] (undo the step), show, plan, cost, q (quit)',
      })
      .option('verbose', {
        type: 'boolean',
        default: false,
        describe: 'verbose Turn Reports (bars for cost and tokens)',
      })
      .option('planner', {
        choices: ['gemini', 'offline'] as const,
        describe: 'default: gemini when GEMINI_API_KEY is set, else offline',
      })
      .option('model', { type: 'string', default: DEFAULT_MODEL, describe: 'Gemini model' })
      .option(
        'budget',
        intOption(
          'budget',
          'token budget of the context',
          {},
          { alias: 'tokens', default: DEFAULT_TOKEN_BUDGET },
        ),
      )
      .option('max-cost', {
        type: 'number',
        default: DEFAULT_MAX_SPEND_USD,
        describe: 'cost limit in USD',
      })
      .option(
        'max-iterations',
        intOption('max-iterations', 'most planner steps', {}, { default: DEFAULT_MAX_ITERATIONS }),
      )
      .option('price-input', {
        type: 'number',
        describe: 'USD per 1M input tokens (overrides the price table)',
      })
      .option('price-output', {
        type: 'number',
        describe: 'USD per 1M output tokens (overrides the price table)',
      })
      .option('output', {
        alias: 'o',
        type: 'string',
        describe: 'write the context to FILE instead of stdout',
      })
      .option('copy', {
        type: 'boolean',
        describe:
          'the Execution Report goes to the clipboard and the relay buffer; --copy puts the context in the clipboard instead, --no-copy hands the report nowhere',
      })
      .option('execution-report', {
        type: 'string',
        requiresArg: true,
        describe: 'also write the Execution Report (Markdown) to FILE',
      })
      .option('flight-plan', {
        type: 'string',
        describe: 'export the final flight plan as YAML to FILE',
      })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'print the whole result (state, reports, context) as JSON',
      })
      .option('report', {
        type: 'string',
        requiresArg: true,
        describe:
          "write a run report (JSON) to FILE as well (the context still goes to stdout or -o FILE); the exit code is then the report's: 0 success, 2 exhausted (step/cost limit), 1 error",
      })
      .option('session', {
        type: 'string',
        describe: 'broker session name when a broker is running (default nav)',
      })
      .option('keep-session', {
        type: 'boolean',
        default: false,
        describe:
          'keep the exited navigator session in `clippy ls -a` after the run (default: removed)',
      })
      .option('quiet', {
        alias: 'q',
        type: 'boolean',
        default: false,
        describe: 'no Turn Reports or notes on stderr',
      })
      .option('include', {
        type: 'string',
        array: true,
        describe: 'only files matching these globs',
      })
      .option('exclude', {
        type: 'string',
        array: true,
        describe: 'leave out files matching these globs',
      })
      .option('cache', {
        type: 'boolean',
        default: true,
        describe: 'use the tag cache (--no-cache to skip)',
      })
      .example(
        '$0 navigate . --goal "fix the token refresh bug in auth"',
        'context for a goal, on stdout',
      )
      .example(
        '$0 navigate -i --goal "add a billing export" -o ctx.md',
        'watch and steer each step',
      ) as unknown as Argv<NavigateArgs>,
  // The runner (navigator, Gemini SDK, repomap) loads only when navigate runs: every other
  // command starts without paying for it.
  handler: async (argv) =>
    (await loadModule<typeof import('../navigate-run.js')>('navigate-run.js')).runNavigate(argv),
};

export default navigateCommand;
