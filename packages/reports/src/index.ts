export { ReportValidationError } from './errors.js';
export * from './run-report-schema.js';
export {
  RunReportBuilder,
  roundSeconds,
  serializeRunReport,
  type RunReportBuilderInit,
  type LlmCallInput,
  type ToolCallInput,
  type CompactionInput,
  type GuardrailInput,
  type TruncatedResponseInput,
  type FinishInput,
} from './run-report-builder.js';
export {
  sessionRunReport,
  AgentSessionInfoSchema,
  SessionTurnInputSchema,
  SessionRunReportInputSchema,
  UNKNOWN_MODEL_OR_PROVIDER,
  type AgentSessionInfo,
  type SessionTurnInput,
  type SessionRunReportInput,
  type SessionRunReportOptions,
} from './session-run-report.js';
export * from './execution-report.js';
export {
  sessionExecutionReport,
  type SessionExecutionReportOptions,
} from './session-execution-report.js';
export { shellJoin, shellQuote } from './shell-quote.js';
export { estimateTokens, CHARS_PER_TOKEN } from './token-estimate.js';
export { runReportSchemaUrl, turnReportSchemaUrl } from './schema-files.js';
