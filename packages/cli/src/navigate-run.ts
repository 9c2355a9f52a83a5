import fs from 'node:fs';
import path from 'node:path';
import { tipLimits } from './report-tip.js';
import {
  ClientBrokerLink,
  createInteractivePrompt,
  GeminiPlanner,
  navigate,
  navigatorRunReport,
  NullBrokerLink,
  OfflinePlanner,
  PricingError,
  renderNavigatorExecutionReport,
  renderTurnReport,
  resolvePricing,
  type BrokerLink,
  type NavigatorResult,
  type Planner,
  type Pricing,
  type TurnDecision,
} from '@clippy/navigator';
import { flightPlanToYaml } from '@clippy/repomap';
import { serializeRunReport } from '@clippy/reports';
import type { ArgumentsCamelCase } from 'yargs';
import { copyToClipboard } from './clipboard.js';
import { readConfigFile } from './config-files.js';
import { NAVIGATE_EXIT, type NavigateArgs } from './commands/navigate.js';
import { CliError } from './errors.js';
import { deliverReport, type DeliveryResult } from './report-delivery.js';

// The implementation of `clippy navigate`, loaded lazily by commands/navigate.ts.

function usage(message: string): never {
  throw new CliError(message, NAVIGATE_EXIT.usage);
}

function checkNumbers(a: NavigateArgs): void {
  if (!Number.isFinite(a.maxCost) || a.maxCost < 0)
    usage(`--max-cost must be a number of USD >= 0 (got ${a.maxCost})`);
  for (const [v, name] of [
    [a.priceInput, 'price-input'],
    [a.priceOutput, 'price-output'],
  ] as const) {
    if (v !== undefined && (!Number.isFinite(v) || v < 0))
      usage(`--${name} must be USD per 1M tokens >= 0 (got ${v})`);
  }
}

function choosePlanner(a: NavigateArgs): { planner: Planner; pricing: Pricing; note?: string } {
  const apiKey = process.env.GEMINI_API_KEY || process.env.GOOGLE_API_KEY;
  const kind = a.planner ?? (apiKey ? 'gemini' : 'offline');
  if (kind === 'offline') {
    return {
      planner: new OfflinePlanner(),
      pricing: { model: 'offline', input: 0, output: 0 },
      note: a.planner
        ? undefined
        : 'no GEMINI_API_KEY or GOOGLE_API_KEY: using the offline planner',
    };
  }
  if (!apiKey)
    usage('--planner gemini needs GEMINI_API_KEY (or GOOGLE_API_KEY) in the environment');
  let pricing: Pricing;
  try {
    pricing = resolvePricing({
      model: a.model,
      priceInput: a.priceInput,
      priceOutput: a.priceOutput,
      configPrices: readConfigFile().pricing?.models,
    });
  } catch (err) {
    if (err instanceof PricingError) usage(err.message);
    throw err;
  }
  const baseUrl = process.env.GEMINI_BASE_URL || undefined;
  return { planner: new GeminiPlanner({ apiKey, model: a.model, pricing, baseUrl }), pricing };
}

function warnFor(result: NavigatorResult): string | undefined {
  switch (result.state.completion_reason) {
    case 'budget_exceeded':
      return `stopped at the cost limit ($${result.state.budget.max_spend_usd.toFixed(2)}): the context is the best so far`;
    case 'max_iterations':
      return `stopped after ${result.state.max_iterations} steps without the planner finishing: the context is the best so far`;
    default:
      return undefined;
  }
}

function exitCodeOf(result: NavigatorResult): number {
  if (result.user_action === 'quit') return NAVIGATE_EXIT.cancelled;
  if (result.error) return NAVIGATE_EXIT.failure;
  return NAVIGATE_EXIT.ok;
}

/** The whole result for --json: the state, the final context, reports and timeline. */
function jsonResult(result: NavigatorResult, exitCode: number, a: NavigateArgs) {
  return {
    goal: result.state.goal,
    completion_reason: result.state.completion_reason,
    exit_code: exitCode,
    error: result.error,
    context: result.context,
    execution_report: renderNavigatorExecutionReport(result, tipLimits(a)),
    flight_plan_yaml: flightPlanToYaml(result.state.flight_plan),
    state: result.state,
    map: {
      total_tokens: result.map.totalTokens,
      budget: result.map.budget,
      over_budget: result.map.overBudget,
      counts_by_level: result.map.countsByLevel,
      files: result.map.files,
    },
    reports: result.reports,
    timeline: result.timeline,
    stats: result.stats,
    started_at: result.started_at,
    finished_at: result.finished_at,
  };
}

function writeReport(file: string, result: NavigatorResult, a: NavigateArgs): number {
  const report = navigatorRunReport(result, {
    settings: {
      verbose: a.verbose,
      quiet: a.quiet,
      cache: a.cache,
      ...(a.include ? { include: a.include } : {}),
      ...(a.exclude ? { exclude: a.exclude } : {}),
    },
  });
  writeFileOrFail(file, serializeRunReport(report));
  return report.result.exit_code;
}

function writeFileOrFail(file: string, text: string): void {
  try {
    fs.writeFileSync(file, text);
  } catch (err) {
    throw new CliError(`cannot write ${file}: ${(err as Error).message}`, NAVIGATE_EXIT.failure);
  }
}

/** Where the Execution Report went, in one line for a person at a terminal. */
function deliveryLine(d: DeliveryResult, file: string | undefined, contextCopied: boolean): string {
  const paste = 'the relay buffer: `clippy paste <session>`';
  const places: string[] = [];
  if (d.clipboard && !contextCopied) places.push(`copied to the clipboard (${d.clipboard})`);
  if (d.relayBuffer) places.push(places.length ? `and ${paste}` : `put in ${paste}`);
  if (file) places.push(`${places.length ? 'and ' : ''}written to ${file}`);
  if (places.length === 0) return '';
  const note = contextCopied && d.relayBuffer ? ' (the clipboard holds the context: --copy)' : '';
  return `Execution report ${places.join(' ')}${note}`;
}

/**
 * Hands the run's Execution Report over: clipboard and relay buffer (unless --no-copy), and
 * --execution-report FILE. At a terminal one line says where it went; misses are warnings.
 */
async function handOverExecutionReport(
  result: NavigatorResult,
  a: NavigateArgs,
  contextCopied: boolean,
): Promise<void> {
  const markdown = renderNavigatorExecutionReport(result, tipLimits(a));
  if (a.executionReport) writeFileOrFail(a.executionReport, markdown);
  const delivered: DeliveryResult =
    a.copy === false
      ? { clipboard: null, relayBuffer: false, warnings: [] }
      : await deliverReport(
          markdown,
          { socket: a.socket },
          { label: 'navigator-report', clipboard: !contextCopied },
        );
  const atTerminal = a.interactive || Boolean(process.stderr.isTTY);
  if (a.quiet || !atTerminal) return;
  for (const w of delivered.warnings) process.stderr.write(`clippy: ${w}\n`);
  const line = deliveryLine(delivered, a.executionReport, contextCopied);
  if (line) process.stderr.write(`clippy: ${line}\n`);
}

export async function runNavigate(a: ArgumentsCamelCase<NavigateArgs>): Promise<void> {
  const goal = (a.goal ?? '').trim();
  if (!goal) usage('navigate needs --goal "what you want to do"');
  checkNumbers(a);
  const root = path.resolve(a.path);
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) usage(`not a directory: ${a.path}`);
  if (a.json && a.report)
    usage('--json and --report each give the run an exit code of their own: choose one');
  const { planner, pricing, note } = choosePlanner(a);
  if (note && !a.quiet) process.stderr.write(`clippy: ${note}\n`);

  const broker = await openBrokerLink(a);
  const prompt = a.interactive
    ? createInteractivePrompt({ input: process.stdin, output: process.stderr, verbose: a.verbose })
    : undefined;
  let cancelled = false;
  // Ctrl-C: deregister from the broker and leave with the cancel code, like `q`.
  const onSigint = () => {
    cancelled = true;
    void broker.close().finally(() => process.exit(NAVIGATE_EXIT.cancelled));
  };
  process.once('SIGINT', onSigint);
  let result: NavigatorResult;
  try {
    result = await navigate({
      root,
      goal,
      planner,
      pricing,
      mode: a.interactive ? 'interactive' : 'autonomous',
      tokenBudget: a.budget,
      maxSpendUsd: a.maxCost,
      maxIterations: a.maxIterations,
      verbose: a.verbose,
      broker,
      indexOptions: { include: a.include, exclude: a.exclude, cache: a.cache },
      onTurn: async (report, view): Promise<TurnDecision | void> => {
        if (prompt) return prompt.onTurn(report, view);
        if (!a.quiet) process.stderr.write(`${renderTurnReport(report, { verbose: a.verbose })}\n`);
      },
    });
  } finally {
    process.off('SIGINT', onSigint);
    prompt?.dispose();
  }
  if (cancelled) return;
  const code = exitCodeOf(result);
  if (result.error) process.stderr.write(`clippy: ${result.error}\n`);
  const warning = warnFor(result);
  if (warning && !a.quiet) process.stderr.write(`clippy: ${warning}\n`);
  if (result.user_action === 'quit') {
    process.stderr.write('clippy: cancelled: no context written\n');
    process.exitCode = code;
    return;
  }
  if (a.flightPlan) {
    const header = `clippy navigator flight plan\ngoal: ${goal}\ngenerated: ${result.finished_at} (${result.state.completion_reason ?? 'error'}, ${result.map.totalTokens} tokens)`;
    fs.writeFileSync(a.flightPlan, flightPlanToYaml(result.state.flight_plan, header));
  }
  if (a.output) fs.writeFileSync(a.output, result.context);
  // The run report is a file beside the output (like --flight-plan): the context still goes
  // to stdout (or -o); only the exit code becomes the report's.
  if (a.json) process.stdout.write(`${JSON.stringify(jsonResult(result, code, a), null, 2)}\n`);
  else if (!a.output) process.stdout.write(result.context);
  process.exitCode = a.report ? writeReport(a.report, result, a) : code;
  await handOverExecutionReport(result, a, a.copy === true);
  // --copy puts the context in the clipboard; the report then goes to the relay buffer only.
  if (a.copy === true) {
    try {
      const via = await copyToClipboard(result.context);
      if (!a.quiet) process.stderr.write(`clippy: context copied to the clipboard (${via.name})\n`);
    } catch (err) {
      process.stderr.write(`clippy: not copied: ${(err as Error).message}\n`);
    }
  }
}

/**
 * Registers the run with the broker when one is running (never starts it: a navigator run does
 * not need the daemon). With --session and no broker, says so; either way the run goes on.
 */
async function openBrokerLink(a: NavigateArgs): Promise<BrokerLink> {
  const warn = (m: string) => {
    if (!a.quiet) process.stderr.write(`clippy: ${m}\n`);
  };
  const link = await ClientBrokerLink.connect({
    ...(a.session ? { name: a.session } : {}),
    connect: { env: process.env, ...(a.socket ? { socket: a.socket } : {}) },
    onWarning: warn,
    keep: a.keepSession,
  });
  if (link) return link;
  if (a.session)
    warn(`no broker is running: session "${a.session}" not registered, running standalone`);
  return new NullBrokerLink();
}
