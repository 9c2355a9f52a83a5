import { createRequire } from 'node:module';

type CountFn = (text: string, opts: { disallowedSpecial: Set<string> }) => number;

/** Special-token markers in files (`<|endoftext|>` in tokenizer sources) are counted as text. */
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

let o200kCount: CountFn | undefined;

/**
 * Loaded on first use: the o200k ranks take ~0.5 s to load, and a warm `clippy map` whose
 * result is cached never needs them.
 */
function counter(): CountFn {
  if (!o200kCount) {
    const require = createRequire(import.meta.url);
    const mod = require('gpt-tokenizer/cjs/encoding/o200k_base') as { countTokens: CountFn };
    o200kCount = mod.countTokens;
  }
  return o200kCount;
}

/** Loads the encoder now (e.g. while other threads parse) instead of at the first count. */
export function preloadTokenizer(): void {
  counter();
}

/** Exact token count with the o200k_base encoding (GPT-4o and later). */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return counter()(text, AS_PLAIN_TEXT);
}

/** Characters per token measured for source code with o200k; estimates stay slightly high. */
const CHARS_PER_TOKEN_ESTIMATE = 3.6;

/** A fast estimate for text not yet counted (whole files); verified exactly before output. */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN_ESTIMATE);
}
