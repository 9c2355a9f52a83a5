import { describe, expect, it } from 'vitest';
import { ConfigFileSchema } from './config-file.js';
import { DEFAULT_PRICES, costOf, formatCost, priceOf } from './pricing.js';

describe('the pricing table', () => {
  it('prices a model by its name, its dated release and a provider-prefixed name; unknown ones not', () => {
    expect(priceOf('gemini-2.5-pro', DEFAULT_PRICES)).toEqual({ input: 1.25, output: 10 });
    expect(priceOf('claude-sonnet-4-5-20250929', DEFAULT_PRICES)).toEqual({ input: 3, output: 15 });
    expect(priceOf('models/gemini-2.5-flash', DEFAULT_PRICES)).toEqual({ input: 0.3, output: 2.5 });
    expect(priceOf('fake-model', DEFAULT_PRICES)).toBeUndefined();
    // Not a property of every object.
    expect(priceOf('constructor', DEFAULT_PRICES)).toBeUndefined();
    expect(costOf({ input: 2, output: 8 }, 12, 10)).toBeCloseTo(0.000104, 12);
  });

  it('writes cents from a dollar up and two significant digits below a cent, never $0.00 for a cost', () => {
    expect(formatCost(12.345)).toBe('$12.35');
    expect(formatCost(0.42)).toBe('$0.42');
    expect(formatCost(0.0031)).toBe('$0.0031');
    expect(formatCost(0.000104)).toBe('$0.00010');
    expect(formatCost(0.0000275)).toBe('$0.000028');
    expect(formatCost(0)).toBe('$0.00');
    expect(formatCost(1e-9)).toBe('<$0.000001');
  });

  it("config.json's `pricing` is a price list: a price below zero is refused", () => {
    expect(ConfigFileSchema.parse({ pricing: { models: { m: { input: 1, output: 4 } } } })).toEqual(
      {
        pricing: { models: { m: { input: 1, output: 4 } } },
      },
    );
    expect(
      ConfigFileSchema.safeParse({ pricing: { models: { m: { input: -1, output: 4 } } } }).success,
    ).toBe(false);
  });
});
