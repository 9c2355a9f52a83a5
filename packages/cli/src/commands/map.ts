import fs from 'node:fs';
import path from 'node:path';
// Types only at the top: the engine (tree-sitter, tokenizer) loads when `map` runs, so every
// other command starts without it.
import type { FlightPlan, Level, MapResult } from '@clippy/repomap';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { copyToClipboard } from '../clipboard.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { loadPackage } from '../load-module.js';

/** repomap (tree-sitter and its grammars) loads when the command runs, through loadPackage:
 * the bundled CLI (dist/cli.cjs) keeps it out and may run from V8's code cache. */
const loadRepomap = () => loadPackage<typeof import('@clippy/repomap')>('@clippy/repomap');

/** Exit codes of `clippy map` (documented in docs/repomap.md and docs/cli.md). */
export const MAP_EXIT = {
  /** The flight plan (or a plan override such as --budget or -v) is invalid. */
  invalidPlan: 2,
  /** The --plan file does not exist. */
  planNotFound: 3,
  /** --strict and the map is over budget. */
  overBudget: 4,
} as const;

/** Runs shorter than this show no progress at all (tests lower it through the environment). */
const PROGRESS_DELAY_MS = Number(process.env.CLIPPY_PROGRESS_DELAY_MS ?? 1_000);
/** Redraw the progress bar at most this often. */
const PROGRESS_REDRAW_MS = 100;
/** Width of the progress bar in cells. */
const PROGRESS_BAR_CELLS = 30;

interface MapArgs {
  path: string;
  plan?: string;
  budget?: number;
  v?: string[];
  focus?: string[];
  include?: string[];
  exclude?: string[];
  format: 'md' | 'json' | 'xml';
  output?: string;
  copy: boolean;
  showCosts: boolean;
  strict: boolean;
  summary: boolean;
  cache: boolean;
}

async function readPlan(file: string): Promise<FlightPlan> {
  const { FlightPlanError, parseFlightPlan } = await loadRepomap();
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new CliError(`flight plan not found: ${file}`, MAP_EXIT.planNotFound);
    throw new CliError(`cannot read flight plan ${file}: ${code ?? String(err)}`, EXIT.failure);
  }
  try {
    return parseFlightPlan(text, file);
  } catch (err) {
    if (err instanceof FlightPlanError)
      throw new CliError(`invalid flight plan: ${err.message}`, MAP_EXIT.invalidPlan);
    throw err;
  }
}

/** `-v GLOB:LEVEL` (the level after the last colon, so globs may hold colons). */
export function parseVerbosityFlag(value: string): { pattern: string; level: Level } {
  const i = value.lastIndexOf(':');
  const pattern = i > 0 ? value.slice(0, i) : '';
  const level = i > 0 ? value.slice(i + 1) : '';
  if (!pattern || !/^[0-4]$/.test(level)) {
    throw new CliError(
      `invalid -v "${value}": expected GLOB:LEVEL with LEVEL 0-4`,
      MAP_EXIT.invalidPlan,
    );
  }
  return { pattern, level: Number(level) as Level };
}

/** A progress bar on a terminal's stderr, only for runs longer than PROGRESS_DELAY_MS. */
class Progress {
  private readonly started = Date.now();
  private lastDraw = 0;
  private drawn = false;
  constructor(private readonly out: NodeJS.WriteStream) {}

  update(done: number, total: number): void {
    if (!this.out.isTTY || total === 0) return;
    const now = Date.now();
    if (
      now - this.started < PROGRESS_DELAY_MS ||
      (now - this.lastDraw < PROGRESS_REDRAW_MS && done < total)
    )
      return;
    this.lastDraw = now;
    const filled = Math.round((done / total) * PROGRESS_BAR_CELLS);
    const bar = '█'.repeat(filled) + '░'.repeat(PROGRESS_BAR_CELLS - filled);
    this.out.write(`\r\x1b[2Kparsing ${bar} ${done}/${total} files`);
    this.drawn = true;
  }

  dispose(): void {
    if (this.drawn) this.out.write('\r\x1b[2K');
    this.drawn = false;
  }
}

function overBudgetMessage(r: MapResult): string {
  const top = r.topContributors
    .map((f) => `  ${f.path} (L${f.level}): ${f.tokens} tokens`)
    .join('\n');
  return `map is over budget: ${r.totalTokens}/${r.budget} tokens. Top contributors:\n${top}`;
}

async function run(argv: ArgumentsCamelCase<MapArgs>): Promise<void> {
  const plan = argv.plan ? await readPlan(argv.plan) : undefined;
  if (argv.budget !== undefined && !(Number.isInteger(argv.budget) && argv.budget > 0)) {
    throw new CliError(
      `invalid --budget ${argv.budget}: it must be a whole number > 0`,
      MAP_EXIT.invalidPlan,
    );
  }
  const verbosity = (argv.v ?? []).map(parseVerbosityFlag);
  const root = path.resolve(argv.path);
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) {
    throw new CliError(`not a directory: ${argv.path}`, EXIT.failure);
  }
  const { generateMap } = await loadRepomap();
  const progress = new Progress(process.stderr);
  let result: MapResult;
  try {
    result = await generateMap({
      root,
      include: argv.include,
      exclude: argv.exclude,
      cache: argv.cache,
      onProgress: (d, t) => progress.update(d, t),
      plan,
      budget: argv.budget,
      verbosity,
      focus: argv.focus,
      format: argv.format,
      showCosts: argv.showCosts,
      summary: argv.summary,
    });
  } finally {
    progress.dispose();
  }
  for (const w of result.warnings) process.stderr.write(`clippy: warning: ${w}\n`);
  if (result.overBudget) {
    if (argv.strict) throw new CliError(overBudgetMessage(result), MAP_EXIT.overBudget);
    process.stderr.write(`clippy: warning: ${overBudgetMessage(result)}\n`);
  }
  if (argv.output) {
    fs.writeFileSync(argv.output, result.output);
    process.stderr.write(
      `clippy: wrote ${argv.output} (${result.totalTokens}/${result.budget} tokens)\n`,
    );
  }
  if (argv.copy) {
    try {
      const via = await copyToClipboard(result.output);
      process.stderr.write(`clippy: copied the map to the clipboard (${via.name})\n`);
    } catch (err) {
      // Nothing is lost: the map still goes to stdout when it was not written to a file.
      if (!argv.output) process.stdout.write(result.output);
      throw new CliError((err as Error).message, EXIT.failure);
    }
  }
  if (!argv.output && !argv.copy) process.stdout.write(result.output);
}

const command: CommandModule<object, MapArgs> = {
  command: 'map [path]',
  describe: 'Print a token-budgeted map of a repository (levels L0-L4, ranked, flight plans)',
  builder: (y: Argv) =>
    y
      .positional('path', { type: 'string', default: '.', describe: 'Directory to map' })
      .option('plan', { type: 'string', describe: 'Flight plan YAML file' })
      .option('budget', {
        type: 'number',
        describe: 'Token budget (overrides the plan; default 20000)',
      })
      .option('v', {
        type: 'string',
        array: true,
        describe: 'Verbosity rule GLOB:LEVEL (repeatable; applied after the plan)',
      })
      .option('focus', {
        type: 'string',
        array: true,
        describe: 'Focus a path or symbol (repeatable)',
      })
      .option('include', {
        type: 'string',
        array: true,
        describe: 'Only files matching these globs',
      })
      .option('exclude', {
        type: 'string',
        array: true,
        describe: 'Drop files matching these globs',
      })
      .option('format', { choices: ['md', 'json', 'xml'] as const, default: 'md' as const })
      .option('output', { alias: 'o', type: 'string', describe: 'Write the map to a file' })
      .option('copy', {
        type: 'boolean',
        default: false,
        describe: 'Copy the map to the clipboard',
      })
      .option('show-costs', {
        type: 'boolean',
        default: false,
        describe: "Print each file's L1-L4 cost",
      })
      .option('strict', {
        type: 'boolean',
        default: false,
        describe: 'Fail (exit 4) when over budget',
      })
      .option('summary', { type: 'boolean', default: false, describe: 'Print the file list only' })
      .option('cache', {
        type: 'boolean',
        default: true,
        describe: 'Use the tag cache (--no-cache)',
      }) as unknown as Argv<MapArgs>,
  handler: run,
};
export default command;
