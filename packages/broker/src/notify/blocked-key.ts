import type { Menu } from '@clippy/protocol';

/**
 * What makes a `blocked` event the same as the last one told: the same question (and its
 * detail) in the same turn, drawn again after a flap. Compared as text the user reads: an
 * agent's cursor or scrollbar (block characters, U+2580–U+259F) may sit at a line's end in one
 * draw and not the next (Qwen Code's `…why?   █`), and trailing spaces with it.
 */
export function blockedKey(
  turnCount: number,
  menu: Pick<Menu, 'question' | 'detail'> | null | undefined,
): string {
  return [String(turnCount), menu?.question ?? '', ...(menu?.detail ?? [])]
    .map((part) => part.replace(/[\u2580-\u259f]/gu, '').replace(/[ \t]+$/gmu, ''))
    .join('\u0000');
}
