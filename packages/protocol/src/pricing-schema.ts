import { z } from 'zod';
import type { ModelPrice } from './pricing.js';

/** What one model costs: USD per 1M input and per 1M output tokens. */
export const ModelPriceSchema: z.ZodType<ModelPrice> = z.strictObject({
  input: z.number().nonnegative().finite(),
  output: z.number().nonnegative().finite(),
});

/** A price list: `{"models": {"<model>": {"input": USD, "output": USD}}}` (config.json `pricing`). */
export const PricingFileSchema = z.looseObject({
  models: z.record(z.string(), ModelPriceSchema),
});
export type PricingFile = z.infer<typeof PricingFileSchema>;
