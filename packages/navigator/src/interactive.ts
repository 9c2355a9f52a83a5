import { createInterface } from 'node:readline';
import type { RunView, TurnDecision } from './navigator.js';
import { COMPACT_PROMPT, renderTurnReport, VERBOSE_PROMPT } from './render-turn-report.js';
import type { TurnReport } from './turn-report.js';

/** One line typed at the "Continue?" prompt. */
export type InteractiveInput =
  | { kind: 'continue' }
  | { kind: 'stop' }
  | { kind: 'feedback'; text: string }
  | { kind: 'reject'; reason?: string }
  | { kind: 'show' }
  | { kind: 'plan' }
  | { kind: 'cost' }
  | { kind: 'quit' }
  | { kind: 'unknown'; text: string };

export const INTERACTIVE_HELP =
  'Type y (continue), n or Enter (stop and output the context), feedback: <text>, r or reject: <reason> (undo this step), show, plan, cost, or q (quit, no output).';

/**
 * The seed's input table (y/yes, n/no/Enter, feedback: <text>, show, plan, cost, q/quit) plus
 * r/reject[: <reason>], which undoes the step just shown.
 */
export function parseInteractiveInput(line: string): InteractiveInput {
  const text = line.trim();
  const reject = /^(?:r|reject)\s*(?::([\s\S]*))?$/i.exec(text);
  if (reject) {
    const reason = reject[1]?.trim();
    return reason ? { kind: 'reject', reason } : { kind: 'reject' };
  }
  const feedback = /^feedback\s*:\s*([\s\S]*)$/i.exec(text);
  if (feedback) {
    const body = feedback[1]!.trim();
    return body ? { kind: 'feedback', text: body } : { kind: 'unknown', text };
  }
  switch (text.toLowerCase()) {
    case 'y':
    case 'yes':
      return { kind: 'continue' };
    case '':
    case 'n':
    case 'no':
      return { kind: 'stop' };
    case 'show':
      return { kind: 'show' };
    case 'plan':
      return { kind: 'plan' };
    case 'cost':
      return { kind: 'cost' };
    case 'q':
    case 'quit':
      return { kind: 'quit' };
    default:
      return { kind: 'unknown', text };
  }
}

export interface InteractivePrompt {
  /** The navigator's onTurn: shows the report, reads answers until one decides. */
  onTurn(report: TurnReport, view: RunView): Promise<TurnDecision>;
  /** Shows a report without asking (the last one, when the run is complete). */
  show(report: TurnReport): void;
  dispose(): void;
}

/**
 * Interactive mode on a pair of streams (stdin and stderr in the CLI, so stdout carries only the
 * context). End of input counts as Enter: stop and output what there is.
 */
export function createInteractivePrompt(opts: {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  verbose?: boolean;
}): InteractivePrompt {
  const rl = createInterface({ input: opts.input, terminal: false });
  const lines: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  let closed = false;
  rl.on('line', (line) => {
    const w = waiting.shift();
    if (w) w(line);
    else lines.push(line);
  });
  rl.on('close', () => {
    closed = true;
    for (const w of waiting.splice(0)) w(null);
  });
  const readLine = (): Promise<string | null> => {
    if (lines.length) return Promise.resolve(lines.shift()!);
    if (closed) return Promise.resolve(null);
    return new Promise((resolve) => waiting.push(resolve));
  };
  const write = (s: string) => opts.output.write(s);
  const prompt = opts.verbose ? VERBOSE_PROMPT : COMPACT_PROMPT;

  return {
    show(report) {
      write(`${renderTurnReport(report, { verbose: opts.verbose })}\n`);
    },
    async onTurn(report, view) {
      write(`${renderTurnReport(report, { verbose: opts.verbose })}\n`);
      if (report.is_complete) return { action: 'continue' };
      for (;;) {
        write(`\n${prompt}`);
        const line = await readLine();
        if (line === null) {
          write('\n');
          return { action: 'stop' };
        }
        const input = parseInteractiveInput(line);
        switch (input.kind) {
          case 'continue':
            return { action: 'continue' };
          case 'stop':
            return { action: 'stop' };
          case 'quit':
            return { action: 'quit' };
          case 'feedback':
            write(`Feedback noted for the next step: ${input.text}\n`);
            return { action: 'continue', feedback: input.text };
          case 'reject':
            write(
              `Step ${report.step_number} rejected: its change is undone and the planner is told${input.reason ? ` why (${input.reason})` : ''}.\n`,
            );
            return { action: 'reject', ...(input.reason ? { reason: input.reason } : {}) };
          case 'show':
            write(`${view.mapOutput().trimEnd()}\n`);
            break;
          case 'plan':
            write(`${view.planYaml().trimEnd()}\n`);
            break;
          case 'cost':
            write(`${view.costBreakdown()}\n`);
            break;
          default:
            write(`Unknown answer "${input.text}". ${INTERACTIVE_HELP}\n`);
        }
      }
    },
    dispose() {
      rl.close();
    },
  };
}
