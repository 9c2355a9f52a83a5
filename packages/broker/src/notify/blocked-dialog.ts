import type { Menu } from '@clippy/protocol';
import { sameDialog, type DialogRead } from '@clippy/turns';

/** Reads of one question kept to compare a later read with: the draws of one dialog are few. */
const MAX_READS = 8;

/** The question a blocked session showed when told, and its reads since: one event. */
export interface BlockedDialog {
  turn: number;
  /** Every distinct read of it (half-drawn, whole, closing), oldest first; none: no question read. */
  reads: DialogRead[];
}

export function blockedDialog(turnCount: number, menu: Menu | null | undefined): BlockedDialog {
  return { turn: turnCount, reads: menu ? [menu] : [] };
}

/**
 * Whether `read` is the question told as `told`: the same turn, and the same dialog as one of its
 * reads (see `sameDialog`: a dialog read half-drawn as it opens or closes is still that dialog).
 * A session blocked with no question read is the same only as another such.
 */
export function sameQuestion(told: BlockedDialog, read: BlockedDialog): boolean {
  if (told.turn !== read.turn) return false;
  if (told.reads.length === 0 || read.reads.length === 0) {
    return told.reads.length === read.reads.length;
  }
  return told.reads.some((r) => sameDialog(r, read.reads[0]!));
}

/** The question told with one more read of it. */
export function withRead(told: BlockedDialog, read: BlockedDialog): BlockedDialog {
  const fresh = read.reads.filter((r) => !told.reads.some((t) => sameRead(t, r)));
  return { turn: told.turn, reads: [...told.reads, ...fresh].slice(-MAX_READS) };
}

/** The very same read again (a redraw): kept once. */
function sameRead(a: DialogRead, b: DialogRead): boolean {
  return a.question === b.question && a.detail.join('\n') === b.detail.join('\n');
}
