// @clippy/repomap: a directory plus a flight plan → a ranked map within a token budget.
export type {
  Level,
  IndexOptions,
  Tag,
  OutlineEntry,
  OutlineSize,
  IndexedFile,
  RepoIndex,
  Personalization,
  MapFile,
  MapResult,
} from './types.js';
export {
  FlightPlanSchema,
  VerbosityRuleSchema,
  SectionRuleSchema,
  FlightPlanError,
  parseFlightPlan,
  validateFlightPlan,
  flightPlanToYaml,
  type FlightPlan,
  type VerbosityRule,
  type SectionRule,
} from './plan.js';
export { indexRepository } from './indexer.js';
export { rankFiles, referenceGraph } from './rank.js';
export { renderMap, fileCosts, fileCostAt, type RenderOptions } from './render.js';
export { outlineOf } from './content.js';
export { generateMap } from './generate.js';
export { countTokens } from './tokens.js';
export { LANGUAGES, languageForPath, loadAllGrammars } from './languages.js';
export { defaultCacheDir } from './cache.js';
export { wordsOf, hasGeneratedHeader, type FileWords } from './words.js';
