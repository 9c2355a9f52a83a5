import { ClippyClient } from './client.js';
import { zodResultCheck } from './result-check.js';

// The main entry checks every result against its schema; `@clippy/client/lean` does not.
ClippyClient.resultCheck = zodResultCheck;

export * from './lean.js';
export { zodResultCheck } from './result-check.js';
