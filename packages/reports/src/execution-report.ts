import { z } from 'zod';
import { parseOrThrow } from './errors.js';

/** Reports longer than this many lines get the pruning tip (the seed's default). */
export const DEFAULT_TIP_MAX_LINES = 80;
/** Reports longer than this many characters get the pruning tip (the seed's default). */
export const DEFAULT_TIP_MAX_CHARS = 4000;

/** The seed's Details line for an action the user rejected. */
export const SKIPPED_DETAILS =
  'User rejected this action. These changes have not been implemented, and the previous state is still the current one.';

/** The seed's final tip for large reports, verbatim. */
export const PRUNING_TIP =
  '> **Tip:** This execution report is large. Before proceeding, summarize the key outcomes, errors, and any new file contents into your rationale. After you have processed all necessary information, ask the user to delete the message containing this report to preserve context.';

/** CommonMark needs at least three backticks to open a fence. */
const MIN_FENCE_LENGTH = 3;

export const ExecutionStatusSchema = z.enum(['SUCCESS', 'FAILURE', 'PARTIAL_SUCCESS']);
export type ExecutionStatus = z.infer<typeof ExecutionStatusSchema>;

export const ActionStatusSchema = z.enum(['SUCCESS', 'FAILURE', 'SKIPPED']);
export type ActionStatus = z.infer<typeof ActionStatusSchema>;

export const ExecutionActionSchema = z.object({
  name: z.string().min(1),
  status: ActionStatusSchema,
  /** Ignored for SKIPPED actions, whose Details line is SKIPPED_DETAILS. */
  details: z.string(),
  output: z.string().optional(),
  error: z.string().optional(),
  /** Why the user rejected the action. */
  reason: z.string().optional(),
});
export type ExecutionAction = z.infer<typeof ExecutionActionSchema>;

const ValidDate = z.date().refine((d) => !Number.isNaN(d.getTime()), 'invalid date');

export const ExecutionReportInputSchema = z
  .object({
    status: ExecutionStatusSchema.optional(),
    startTime: ValidDate,
    endTime: ValidDate,
    os: z.string(),
    cwd: z.string(),
    actions: z.array(ExecutionActionSchema),
  })
  .refine((r) => r.endTime.getTime() >= r.startTime.getTime(), {
    message: 'endTime is before startTime',
    path: ['endTime'],
  });
export type ExecutionReportInput = z.infer<typeof ExecutionReportInputSchema>;

export const ExecutionReportOptionsSchema = z.object({
  maxLines: z.number().int().nonnegative().optional(),
  maxChars: z.number().int().nonnegative().optional(),
});
export type ExecutionReportOptions = z.infer<typeof ExecutionReportOptionsSchema>;

/**
 * The run's status from its actions. SKIPPED is neutral: no FAILURE → SUCCESS (also when there
 * are no actions or all were skipped); FAILURE and no SUCCESS → FAILURE; both → PARTIAL_SUCCESS.
 */
export function deriveExecutionStatus(
  actions: readonly { status: ActionStatus }[],
): ExecutionStatus {
  const failed = actions.some((a) => a.status === 'FAILURE');
  const succeeded = actions.some((a) => a.status === 'SUCCESS');
  if (!failed) return 'SUCCESS';
  return succeeded ? 'PARTIAL_SUCCESS' : 'FAILURE';
}

/** Lines of a report: every line ends with "\n", so this counts the line breaks. */
export function countLines(text: string): number {
  let lines = 0;
  for (const ch of text) if (ch === '\n') lines += 1;
  return lines;
}

/** Characters of a report, counted as Unicode code points. */
export function countChars(text: string): number {
  let chars = 0;
  for (const _ of text) chars += 1;
  return chars;
}

/** True when a report (without the tip) is larger than the limits: strictly more lines or characters. */
export function needsPruningTip(report: string, options: ExecutionReportOptions = {}): boolean {
  const maxLines = options.maxLines ?? DEFAULT_TIP_MAX_LINES;
  const maxChars = options.maxChars ?? DEFAULT_TIP_MAX_CHARS;
  return countLines(report) > maxLines || countChars(report) > maxChars;
}

/** A fenced code block whose fence is longer than any backtick run inside the text. */
export function fencedBlock(text: string): string {
  const longestRun = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(Math.max(MIN_FENCE_LENGTH, longestRun + 1));
  return `${fence}\n${text}\n${fence}`;
}

/** Output/error shown in a block: one trailing line break dropped; blank text means no block. */
function blockText(text: string | undefined): string | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  return text.replace(/\r?\n$/, '');
}

function renderAction(action: ExecutionAction, index: number): string {
  const lines = [`### Action ${index + 1}: ${action.name}`, '', `- **Status:** ${action.status}`];
  lines.push(`- **Details:** ${action.status === 'SKIPPED' ? SKIPPED_DETAILS : action.details}`);
  // JSON quoting keeps a reason with quotes or line breaks on one unambiguous line.
  if (action.reason !== undefined) lines.push(`- **Reason:** ${JSON.stringify(action.reason)}`);
  const output = blockText(action.output);
  if (output !== undefined) lines.push('- **Output:**', fencedBlock(output));
  const error = blockText(action.error);
  if (error !== undefined) lines.push('- **Error:**', fencedBlock(error));
  lines.push('', '---', '');
  return lines.join('\n');
}

function formatDuration(start: Date, end: Date): string {
  return `${((end.getTime() - start.getTime()) / 1000).toFixed(2)} seconds`;
}

/**
 * Renders the Execution Report of the seed (TeDDy's contract) as Markdown, ending with a line
 * break. The pruning tip is appended when the report without it exceeds maxLines or maxChars.
 */
export function renderExecutionReport(
  input: ExecutionReportInput,
  options: ExecutionReportOptions = {},
): string {
  const report = parseOrThrow(ExecutionReportInputSchema, input, 'execution report input');
  const limits = parseOrThrow(ExecutionReportOptionsSchema, options, 'execution report options');
  const status = report.status ?? deriveExecutionStatus(report.actions);
  const head = [
    '# Execution Report',
    '',
    '**Run Summary:**',
    `- **Status:** ${status}`,
    `- **Start Time:** ${report.startTime.toISOString()}`,
    `- **End Time:** ${report.endTime.toISOString()}`,
    `- **Duration:** ${formatDuration(report.startTime, report.endTime)}`,
    '',
    '**Environment:**',
    `- **Operating System:** ${report.os}`,
    `- **Working Directory:** ${report.cwd}`,
    '',
    '---',
    '',
    '## Action Log',
    '',
    '',
  ].join('\n');
  const body =
    report.actions.length === 0
      ? 'No actions were run.\n'
      : report.actions.map((a, i) => renderAction(a, i)).join('\n');
  const text = head + body;
  return needsPruningTip(text, limits) ? `${text}\n${PRUNING_TIP}\n` : text;
}
