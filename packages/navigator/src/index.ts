// @clippy/navigator: a loop in which a planner edits a flight plan until the map serves a goal.
export * from './state.js';
export {
  navigate,
  costBreakdown,
  DEFAULT_TOKEN_BUDGET,
  DEFAULT_MAX_SPEND_USD,
  DEFAULT_MAX_ITERATIONS,
  type NavigatorOptions,
  type NavigatorResult,
  type RunView,
  type TurnDecision,
} from './navigator.js';
export type { Planner, PlannerInput, PlannerOutcome, PlannerHooks, Rejection } from './planner.js';
export {
  GeminiPlanner,
  DEFAULT_MODEL,
  DEFAULT_MAX_OUTPUT_TOKENS,
  MAX_ATTEMPTS,
  type GeminiPlannerOptions,
} from './gemini-planner.js';
export { OfflinePlanner, scoreFiles, type Scored } from './offline-planner.js';
export { goalTerms, identifierTerms, splitWords, stem, termMatches } from './goal-terms.js';
export {
  resolvePricing,
  defaultPrices,
  loadUserPrices,
  userPricingPath,
  costOf,
  PricingError,
  PricingFileSchema,
} from './pricing.js';
export { applyPlanUpdate, mergePatch, type PlanUpdateResult } from './plan-update.js';
export {
  TurnReportSchema,
  TurnReportFocusAreaSchema,
  buildTurnReport,
  type TurnReport,
} from './turn-report.js';
export {
  renderTurnReport,
  renderCompact,
  renderVerbose,
  COMPACT_PROMPT,
  VERBOSE_PROMPT,
  BOX_WIDTH,
} from './render-turn-report.js';
export { buildPrompt, SYSTEM_INSTRUCTION, PROMPT_DECISIONS } from './prompt.js';
export {
  TOOL_DECLARATIONS,
  UPDATE_FLIGHT_PLAN,
  FINALIZE_CONTEXT,
  type ToolCall,
  type ToolResult,
} from './tools.js';
export { NullBrokerLink, RecordingBrokerLink, type BrokerLink } from './broker-link.js';
export { renderFinalContext } from './final-context.js';
export {
  createInteractivePrompt,
  parseInteractiveInput,
  INTERACTIVE_HELP,
  type InteractiveInput,
  type InteractivePrompt,
} from './interactive.js';
export { ClientBrokerLink, DEFAULT_SESSION_NAME } from './broker-client-link.js';
export {
  navigatorExecutionReport,
  renderNavigatorExecutionReport,
  MODEL_CALL_ACTION,
  INVALID_CALL_ACTION,
  type NavigatorExecutionReportOptions,
} from './execution-report.js';
export { navigatorRunReport, type NavigatorRunReportOptions } from './run-report.js';
export { rejectionFeedback } from './prompt.js';
