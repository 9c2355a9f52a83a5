/**
 * Characters of a turn's text that its metadata carries as `preview`: enough for a card or a
 * list line, so that a client showing what an agent last said need not fetch a whole turn
 * (content and text, up to the per-turn cap each) for every turn that completes.
 */
export const TURN_PREVIEW_CHARS = 400;

/** The start of `text`, trimmed, at most TURN_PREVIEW_CHARS long, never half a character. */
export function turnPreview(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length <= TURN_PREVIEW_CHARS) return trimmed;
  let end = TURN_PREVIEW_CHARS;
  // A UTF-16 surrogate pair (an emoji, say) across the cut: leave the whole character out.
  const last = trimmed.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return trimmed.slice(0, end).trimEnd();
}
