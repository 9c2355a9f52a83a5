import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_PRICES, PricingFileSchema, priceTokens, type ModelPrice } from '@clippy/client';
import type { Pricing } from './state.js';

// The table is clippy's one pricing table (protocol's, through client): the broker prices every
// agent session's tokens with it too. The user's pricing.json override stays the navigator's.
export { PricingFileSchema, type PricingFile } from '@clippy/client';

/** A pricing problem the user can fix (unknown model, unreadable override). */
export class PricingError extends Error {
  override name = 'PricingError';
}

/** The prices shipped with clippy (protocol's `DEFAULT_PRICES`). */
export function defaultPrices(): Record<string, ModelPrice> {
  return { ...DEFAULT_PRICES };
}

/** `$XDG_CONFIG_HOME/clippy/pricing.json` (or `~/.config/clippy/pricing.json`). */
export function userPricingPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'clippy', 'pricing.json');
}

/** Reads the user's override file; absent is fine, malformed is an error naming the file. */
export function loadUserPrices(path: string = userPricingPath()): Record<string, ModelPrice> {
  if (!existsSync(path)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new PricingError(`${path}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = PricingFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new PricingError(
      `${path}: ${issue.path.join('.') || '(root)'}: ${issue.message} (expected {"models": {"<model>": {"input": USD, "output": USD}}})`,
    );
  }
  return parsed.data.models;
}

/**
 * The price of a model: flags win, then the user's pricing.json, then config.json's `pricing`,
 * then the shipped defaults. An unknown model without both flags is an error.
 */
export function resolvePricing(opts: {
  model: string;
  priceInput?: number;
  priceOutput?: number;
  userPricingFile?: string;
  /** config.json `pricing.models` (the prices every part of clippy uses). */
  configPrices?: Record<string, ModelPrice>;
}): Pricing {
  const table = {
    ...defaultPrices(),
    ...opts.configPrices,
    ...loadUserPrices(opts.userPricingFile),
  };
  const known = table[opts.model];
  const input = opts.priceInput ?? known?.input;
  const output = opts.priceOutput ?? known?.output;
  if (input === undefined || output === undefined) {
    throw new PricingError(
      `no price for model "${opts.model}": give --price-input and --price-output (USD per 1M tokens) or add it to ${opts.userPricingFile ?? userPricingPath()} (known: ${Object.keys(table).sort().join(', ')})`,
    );
  }
  return { model: opts.model, input, output };
}

/** USD for a number of input and output tokens (thinking tokens count as output). */
export function costOf(pricing: Pricing, inputTokens: number, outputTokens: number): number {
  return priceTokens(pricing, inputTokens, outputTokens);
}
