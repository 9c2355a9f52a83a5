/**
 * clippy's one pricing table: USD per 1M tokens by model. It lives here, not in the navigator
 * that first had it, because the broker (each session's cost), the CLI (`ls`, `turns`), the web
 * page and the navigator (its budget) all price tokens, and protocol is the one package every
 * one of them may import (docs/architecture.md, "Packages": the broker may not import the
 * navigator). It is data only: the overrides are read by their owners (the broker and the CLI
 * from config.json's `pricing`, the navigator also from its pricing.json).
 */

// No zod here: the CLI's fast path (`clippy ls`) formats costs without loading it. The schema
// of a price list is in pricing-schema.ts.

/** What one model costs: USD per 1M input and per 1M output tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

/**
 * The shipped prices (USD per 1M tokens; thinking tokens are billed as output), as their
 * providers listed them in December 2025. Override or add models in config.json `pricing`.
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gemini-3-pro-preview': { input: 2.0, output: 12.0 },
  'gemini-3-flash-preview': { input: 0.5, output: 3.0 },
  'gemini-2.5-pro': { input: 1.25, output: 10.0 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4 },
  'gemini-2.0-flash': { input: 0.1, output: 0.4 },
  'gemini-2.0-flash-lite': { input: 0.075, output: 0.3 },
  'claude-opus-4-5': { input: 5.0, output: 25.0 },
  'claude-sonnet-4-5': { input: 3.0, output: 15.0 },
  'claude-haiku-4-5': { input: 1.0, output: 5.0 },
  'claude-opus-4-1': { input: 15.0, output: 75.0 },
  'claude-sonnet-4': { input: 3.0, output: 15.0 },
  'gpt-5': { input: 1.25, output: 10.0 },
  'gpt-5-codex': { input: 1.25, output: 10.0 },
  'gpt-5-mini': { input: 0.25, output: 2.0 },
  'gpt-5.1': { input: 1.25, output: 10.0 },
  'gpt-5.1-codex': { input: 1.25, output: 10.0 },
  'gpt-5.1-codex-max': { input: 1.25, output: 10.0 },
};

/** A dated release of a model (`claude-sonnet-4-5-20250929`): priced as the model. */
const DATED = /-\d{8}$/u;

/**
 * The price of `model` in `table`: its own entry, else its undated name's; a provider prefix
 * (`models/gemini-2.5-pro`, `openai/gpt-5`) is not part of the name. Undefined when unknown.
 */
export function priceOf(
  model: string,
  table: Readonly<Record<string, ModelPrice>>,
): ModelPrice | undefined {
  const own = (name: string) => (Object.hasOwn(table, name) ? table[name] : undefined);
  const bare = model.slice(model.lastIndexOf('/') + 1);
  return own(model) ?? own(bare) ?? own(bare.replace(DATED, ''));
}

/** USD for a number of input and output tokens at `price`. */
export function costOf(price: ModelPrice, inputTokens: number, outputTokens: number): number {
  return (inputTokens * price.input + outputTokens * price.output) / 1_000_000;
}

/**
 * A cost as people read it: cents from a dollar up (`$1.24`), and two significant digits below
 * a cent (`$0.0031`, `$0.000027`), so that a turn's few tokens never read as nothing.
 */
export function formatCost(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd >= 0.01) return `$${usd.toFixed(2)}`;
  if (usd < 0.000001) return '<$0.000001';
  return `$${Number(usd.toPrecision(2)).toFixed(Math.max(2, 1 - Math.floor(Math.log10(usd))))}`;
}
