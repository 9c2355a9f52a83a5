import { BUSY_ABOVE_INPUT_LINES } from './constants.js';
import type { Preset } from './preset-types.js';
import { compilePreset, type CompiledPreset } from './presets.js';
import {
  borderStart,
  firstMatch,
  framedInput,
  promptMatches,
  screenLines,
  wrappedBorderTails,
} from './screen-lines.js';

export type ScreenState = 'idle' | 'busy' | 'blocked' | 'unknown';

export interface Classification {
  state: ScreenState;
  /** Why, in a sentence (for `clippy classify --explain`). */
  reason: string;
  /** The marker regex source that decided. */
  marker?: string;
  /** 1-based line number (in the given screen text) of the deciding line. */
  line?: number;
  /** Busy loading (a `loading` marker): the agent drops what is typed and took no submit. */
  loading?: boolean;
}

/**
 * Classifies the bottom of a rendered screen. Screen presets: a blocked marker below the input
 * line (or with no input line) → blocked; a busy marker near the input line → busy; an input
 * line → idle. Markers above the input line are history (a dialog already answered, text of an
 * answer) and never count. Line presets: the last line is a prompt → idle.
 */
export function classifyScreen(screenText: string | string[], preset: Preset): Classification {
  const c = compilePreset(preset);
  const lines = screenLines(screenText);
  if (lines.length === 0) return { state: 'unknown', reason: 'the screen is empty' };
  const { inputIndex: _input, ...result } =
    c.preset.kind === 'line' ? classifyLine(lines, c) : classifyTui(lines, c);
  return result;
}

/** Internal form used by the detector and the extractor (already compiled, already split). */
export function classifyLines(
  lines: string[],
  c: CompiledPreset,
): Classification & { inputIndex: number } {
  if (lines.length === 0)
    return { state: 'unknown', reason: 'the screen is empty', inputIndex: -1 };
  return c.preset.kind === 'line' ? classifyLine(lines, c) : classifyTui(lines, c);
}

function classifyLine(lines: string[], c: CompiledPreset): Classification & { inputIndex: number } {
  const n = lines.length;
  const from = Math.max(0, n - c.bottomLines);
  for (let i = n - 1; i >= from; i--) {
    const k = firstMatch(c.blocked, lines[i]!);
    if (k >= 0) {
      return {
        state: 'blocked',
        reason: `a question marker is on line ${i + 1} at the bottom of the screen`,
        marker: c.preset.blocked![k],
        line: i + 1,
        inputIndex: -1,
      };
    }
  }
  const last = lines[n - 1]!;
  if (c.pattern && promptMatches(c.pattern, last)) {
    return {
      state: 'idle',
      reason: `the last line ${JSON.stringify(last)} matches the prompt pattern`,
      marker: c.preset.pattern,
      line: n,
      inputIndex: n - 1,
    };
  }
  return {
    state: 'busy',
    reason: `the last line ${JSON.stringify(last)} is output, not a prompt matching ${c.preset.pattern ?? '(no pattern)'}`,
    line: n,
    inputIndex: -1,
  };
}

function classifyTui(lines: string[], c: CompiledPreset): Classification & { inputIndex: number } {
  const n = lines.length;
  const from = Math.max(0, n - c.bottomLines);
  const tails = wrappedBorderTails(lines);
  // The lowest input line; a line that is also a question marker (a numbered choice) is not one.
  let idleAt = -1;
  let idleMarker = -1;
  for (let i = n - 1; i >= from && idleAt < 0; i--) {
    const k = firstMatch(c.idle, lines[i]!);
    if (
      k >= 0 &&
      firstMatch(c.blocked, lines[i]!) < 0 &&
      framedInput(lines, i, c.inputTop, true, tails)
    ) {
      idleAt = i;
      idleMarker = k;
    }
  }
  for (let i = n - 1; i >= from && i > idleAt; i--) {
    const k = firstMatch(c.blocked, lines[i]!);
    if (k >= 0) {
      return {
        state: 'blocked',
        reason:
          idleAt < 0
            ? `question marker on line ${i + 1} and no input line in the bottom ${c.bottomLines} lines`
            : `question marker on line ${i + 1}, below the input line ${idleAt + 1}`,
        marker: c.preset.blocked![k],
        line: i + 1,
        inputIndex: -1,
      };
    }
  }
  // Below the input line (an echo of a message above looks like one): the box is gone.
  for (let i = n - 1; i >= from && i > idleAt; i--) {
    const k = firstMatch(c.loading, lines[i]!);
    if (k >= 0) {
      return {
        state: 'busy',
        reason: `loading marker on line ${i + 1}: the agent has no input box and drops what is typed`,
        marker: c.preset.loading![k],
        line: i + 1,
        loading: true,
        inputIndex: -1,
      };
    }
  }
  const busyFrom = idleAt < 0 ? from : liveRegionTop(lines, idleAt, from, c, tails);
  for (let i = n - 1; i >= busyFrom; i--) {
    const k = firstMatch(c.busy, lines[i]!);
    if (k >= 0) {
      return {
        state: 'busy',
        reason: `busy marker on line ${i + 1}${idleAt >= 0 ? ` (input line ${idleAt + 1} is shown but the agent is working)` : ''}`,
        marker: c.preset.busy![k],
        line: i + 1,
        inputIndex: idleAt,
      };
    }
  }
  if (idleAt >= 0) {
    return {
      state: 'idle',
      reason: `input line ${idleAt + 1} ${JSON.stringify(lines[idleAt])} with no busy or question marker near it`,
      marker: c.preset.idle![idleMarker],
      line: idleAt + 1,
      inputIndex: idleAt,
    };
  }
  return {
    state: 'unknown',
    reason: `no marker of this preset in the bottom ${c.bottomLines} lines`,
    inputIndex: -1,
  };
}

/**
 * Where the busy search above the input line starts: BUSY_ABOVE_INPUT_LINES above it, and
 * further up over every line of the preset's live region (a task list, tool output, hook
 * messages) however long, so the spinner line above them still counts. An answer's text
 * (a line of none of those kinds) ends the region: markers above it are history.
 */
function liveRegionTop(
  lines: string[],
  idleAt: number,
  from: number,
  c: CompiledPreset,
  tails: ReadonlySet<number>,
): number {
  const top = Math.max(from, idleAt - BUSY_ABOVE_INPUT_LINES);
  if (c.live.length === 0) return top;
  // The input box's top border (with its wrapped tail, if wider than the terminal) and the
  // lines between it and the input line.
  let i = borderStart(idleAt - 1, tails);
  while (i >= 0 && i > idleAt - 3 && firstMatch(c.inputTop, lines[i]!) < 0) i--;
  if (i >= 0 && firstMatch(c.inputTop, lines[i]!) >= 0) i--;
  while (i >= 0 && firstMatch(c.live, lines[i]!) >= 0 && firstMatch(c.busy, lines[i]!) < 0) i--;
  // Line i is the first above the live region: the busy marker itself, or history.
  return Math.max(0, Math.min(top, i));
}
