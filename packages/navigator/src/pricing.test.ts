import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { costOf, defaultPrices, PricingError, resolvePricing, userPricingPath } from './pricing.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tmpFile(content: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-'));
  dirs.push(dir);
  const file = path.join(dir, 'pricing.json');
  fs.writeFileSync(file, content);
  return file;
}
const none = '/nonexistent/clippy/pricing.json';

describe('pricing', () => {
  it('ships the default table', () => {
    expect(defaultPrices()).toMatchObject({
      'gemini-3-pro-preview': { input: 2, output: 12 },
      'gemini-3-flash-preview': { input: 0.5, output: 3 },
      'gemini-2.5-pro': { input: 1.25, output: 10 },
      'gemini-2.5-flash': { input: 0.3, output: 2.5 },
      'gemini-2.5-flash-lite': { input: 0.1, output: 0.4 },
      'gemini-2.0-flash': { input: 0.1, output: 0.4 },
      'gemini-2.0-flash-lite': { input: 0.075, output: 0.3 },
    });
  });

  it('lets the user file override defaults and flags override both', () => {
    const file = tmpFile(
      JSON.stringify({
        models: {
          'gemini-2.5-flash': { input: 1, output: 2 },
          'my-model': { input: 3, output: 4 },
        },
      }),
    );
    expect(resolvePricing({ model: 'gemini-2.5-flash', userPricingFile: file })).toEqual({
      model: 'gemini-2.5-flash',
      input: 1,
      output: 2,
    });
    expect(resolvePricing({ model: 'my-model', userPricingFile: file })).toEqual({
      model: 'my-model',
      input: 3,
      output: 4,
    });
    expect(
      resolvePricing({ model: 'gemini-2.5-flash', userPricingFile: file, priceOutput: 9 }),
    ).toEqual({ model: 'gemini-2.5-flash', input: 1, output: 9 });
  });

  it("takes config.json's prices over the shipped ones, and pricing.json's over both", () => {
    const configPrices = {
      'gemini-2.5-flash': { input: 5, output: 6 },
      mine: { input: 7, output: 8 },
    };
    expect(
      resolvePricing({ model: 'gemini-2.5-flash', userPricingFile: none, configPrices }),
    ).toEqual({
      model: 'gemini-2.5-flash',
      input: 5,
      output: 6,
    });
    const file = tmpFile(JSON.stringify({ models: { mine: { input: 1, output: 2 } } }));
    expect(resolvePricing({ model: 'mine', userPricingFile: file, configPrices })).toEqual({
      model: 'mine',
      input: 1,
      output: 2,
    });
  });

  it('refuses an unknown model unless both prices are given', () => {
    expect(() => resolvePricing({ model: 'gemini-9-ultra', userPricingFile: none })).toThrow(
      PricingError,
    );
    expect(() =>
      resolvePricing({ model: 'gemini-9-ultra', userPricingFile: none, priceInput: 1 }),
    ).toThrow(/--price-input and --price-output/);
    expect(
      resolvePricing({
        model: 'gemini-9-ultra',
        userPricingFile: none,
        priceInput: 1,
        priceOutput: 2,
      }),
    ).toEqual({ model: 'gemini-9-ultra', input: 1, output: 2 });
  });

  it('names the file and the field of a broken override', () => {
    expect(() =>
      resolvePricing({ model: 'gemini-2.5-flash', userPricingFile: tmpFile('{oops') }),
    ).toThrow(/pricing\.json: not valid JSON/);
    expect(() =>
      resolvePricing({
        model: 'gemini-2.5-flash',
        userPricingFile: tmpFile('{"models":{"x":{"input":-1,"output":1}}}'),
      }),
    ).toThrow(/models\.x\.input/);
  });

  it('computes costs per 1M tokens and finds the XDG path', () => {
    expect(costOf({ model: 'm', input: 0.3, output: 2.5 }, 1_000_000, 0)).toBeCloseTo(0.3, 12);
    expect(costOf({ model: 'm', input: 0.3, output: 2.5 }, 10_000, 2_000)).toBeCloseTo(0.008, 12);
    expect(userPricingPath({ XDG_CONFIG_HOME: '/cfg' })).toBe('/cfg/clippy/pricing.json');
  });
});
