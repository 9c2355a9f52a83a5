// A turn in progress and its stored output, shared by both watchers: from the user's submit to
// the next prompt (line presets) or the agent's settled idle screen (screen presets).
import { concat } from './bytes.js';

/** What both watchers keep of a turn in progress. */
export interface OpenTurn {
  typed: string;
  startedAt: number;
  interrupted: boolean;
  /** Output offset at submit. */
  startAbs: number;
  /** Where content starts (line presets: after the echo, once the echo phase is over). */
  contentStartAbs: number;
  /** Stored raw bytes, starting at bufBaseAbs, at most bufCap of them. */
  chunks: Uint8Array[];
  bufBaseAbs: number;
  bufCap: number;
  outputBytes: number;
  /** Output offset when Ctrl-C was first pressed (its `^C` echo follows), or -1. */
  interruptAbs: number;
  /** Keys the input tracker cannot follow edited the line (↑, Tab, ←…): `typed` may be wrong,
   * and `shownInput` (line presets: the echo's line after the prompt at Enter) is the input. */
  edited: boolean;
  shownInput: string | null;
}

/**
 * The shared fields of a turn opened at output offset `at` (a later Enter `joined` to an earlier
 * one keeps its start and interrupt).
 */
export function openTurnAt(
  typed: string,
  now: number,
  at: number,
  bufCap: number,
  joined?: OpenTurn,
): OpenTurn {
  return {
    typed,
    startedAt: joined?.startedAt ?? now,
    interrupted: joined?.interrupted ?? false,
    startAbs: at,
    contentStartAbs: at,
    chunks: [],
    bufBaseAbs: at,
    bufCap,
    outputBytes: 0,
    interruptAbs: joined?.interruptAbs ?? -1,
    edited: false,
    shownInput: null,
  };
}

/**
 * Keeps the part of `bytes` (at output offset `atAbs`) that falls in the turn's buffer: a view,
 * not a copy (output given to a watcher is never changed afterwards: see onOutput).
 */
export function storeOutput(turn: OpenTurn, bytes: Uint8Array, atAbs: number): void {
  const from = Math.max(atAbs, turn.bufBaseAbs);
  const to = Math.min(atAbs + bytes.length, turn.bufBaseAbs + turn.bufCap);
  if (to > from) turn.chunks.push(bytes.subarray(from - atAbs, to - atAbs));
}

/** The stored bytes of a turn between two output offsets, or null when not all are stored. */
export function storedRange(turn: OpenTurn, from: number, to: number): Uint8Array | null {
  if (from < turn.bufBaseAbs) return null;
  const parts: Uint8Array[] = [];
  let end = turn.bufBaseAbs;
  for (const c of turn.chunks) end += c.length;
  if (end < to) return null;
  for (let i = turn.chunks.length - 1; i >= 0 && end > from; i--) {
    const c = turn.chunks[i]!;
    const start = end - c.length;
    parts.unshift(c.subarray(Math.max(0, from - start), Math.min(c.length, to - start)));
    end = start;
  }
  return concat(parts);
}

/**
 * The turn's content up to output offset `contentEnd`, cut at `maxBytes`: copied once into a
 * buffer of its own (nothing else holds it, so the pipeline worker hands it to the main thread
 * without a copy).
 */
export function turnContent(
  turn: OpenTurn,
  contentEnd: number,
  maxBytes: number,
): { content: Uint8Array; truncated: boolean } {
  const length = Math.max(0, contentEnd - turn.contentStartAbs);
  let stored = 0;
  for (const c of turn.chunks) stored += c.length;
  const content = new Uint8Array(Math.min(length, maxBytes, stored));
  let at = 0;
  for (const c of turn.chunks) {
    if (at === content.length) break;
    const n = Math.min(c.length, content.length - at);
    content.set(n === c.length ? c : c.subarray(0, n), at);
    at += n;
  }
  return { content, truncated: length > maxBytes };
}
