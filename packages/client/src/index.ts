import { ClippyClient } from './client.js';
import { zodResultCheck } from './result-check.js';

// The main entry checks every result against its schema; `@clippy/client/lean` does not.
ClippyClient.resultCheck = zodResultCheck;

export * from './lean.js';
export { zodResultCheck } from './result-check.js';
// clippy's pricing table (protocol's): the navigator prices its planner's tokens with it, and
// reaches protocol through this package only.
export {
  DEFAULT_PRICES,
  ModelPriceSchema,
  PricingFileSchema,
  costOf as priceTokens,
  priceOf,
  type ModelPrice,
  type PricingFile,
} from '@clippy/protocol';
