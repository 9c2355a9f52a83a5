import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { Pricing } from './state.js';

/** USD per 1M tokens for one model. */
const ModelPriceSchema = z.strictObject({
  input: z.number().nonnegative().finite(),
  output: z.number().nonnegative().finite(),
});

/** The shipped data file and the user's override share this shape. */
export const PricingFileSchema = z.looseObject({
  models: z.record(z.string(), ModelPriceSchema),
});
export type PricingFile = z.infer<typeof PricingFileSchema>;

/** A pricing problem the user can fix (unknown model, unreadable override). */
export class PricingError extends Error {
  override name = 'PricingError';
}

/** The prices shipped with clippy (`packages/navigator/data/pricing.json`). */
export function defaultPrices(): Record<string, { input: number; output: number }> {
  const url = new URL('../data/pricing.json', import.meta.url);
  return PricingFileSchema.parse(JSON.parse(readFileSync(url, 'utf8'))).models;
}

/** `$XDG_CONFIG_HOME/clippy/pricing.json` (or `~/.config/clippy/pricing.json`). */
export function userPricingPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'clippy', 'pricing.json');
}

/** Reads the user's override file; absent is fine, malformed is an error naming the file. */
export function loadUserPrices(
  path: string = userPricingPath(),
): Record<string, { input: number; output: number }> {
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
 * The price of a model: flags win, then the user's file, then the shipped defaults.
 * An unknown model without both flags is an error.
 */
export function resolvePricing(opts: {
  model: string;
  priceInput?: number;
  priceOutput?: number;
  userPricingFile?: string;
}): Pricing {
  const table = { ...defaultPrices(), ...loadUserPrices(opts.userPricingFile) };
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
  return (inputTokens * pricing.input + outputTokens * pricing.output) / 1_000_000;
}
