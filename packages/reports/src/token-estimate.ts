/**
 * A rough token count: one token per 4 characters (Unicode code points), rounded up.
 * Agent sessions give no tokenizer, and the run report only asks for an estimate.
 */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  let chars = 0;
  for (const _ of text) chars += 1;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}
