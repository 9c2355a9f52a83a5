// Line presets: a turn's text from its raw content — rendered, without the echo of the input
// (and of lines typed at the continuation prompt), the `^C` of an interrupt, the input box's
// area and the preset's chrome lines.
import { DEFAULT_BOTTOM_LINES } from './constants.js';
import { echoEnd } from './extract.js';
import type { OpenTurn } from './open-turn.js';
import type { CompiledPreset } from './presets.js';
import { matchPrompt, matchesContinuation } from './prompt-line.js';
import { compact, firstMatch } from './screen-lines.js';
import { TextRenderer } from './text-renderer.js';
import type { LineRegex } from './user-regex.js';

/** Output bytes after Ctrl-C searched for its `^C` echo: the kernel echoes it at once, after
 * at most what the program had already written (a terminal line or two). */
const INTERRUPT_ECHO_SCAN_BYTES = 4096;

export function lineTurnText(content: Uint8Array, turn: OpenTurn, c: CompiledPreset): string {
  const typed = turn.typed;
  const lines = new TextRenderer();
  lines.write(withoutInterruptEcho(content, turn.interruptAbs - turn.contentStartAbs));
  const all = lines.lineList();
  const first = all.findIndex((l) => l.trim() !== '');
  const start = afterContinuationEchoes(
    all,
    first < 0 ? 0 : echoEnd(all, all.length, typed, first),
    typed,
    c.continuation,
  );
  // What follows the input box's top border (aider's rule, then the files in the chat) is
  // part of the prompt area, not of the answer.
  let end = all.length;
  for (let i = all.length - 1; i >= Math.max(start, all.length - DEFAULT_BOTTOM_LINES); i--) {
    if (firstMatch(c.inputTop, all[i]!) >= 0) {
      end = i;
      break;
    }
  }
  const kept = all.slice(start, end).filter((l) => firstMatch(c.chrome, l) < 0);
  return trimBlankEdges(kept).join('\n');
}

/**
 * Whether `text` shows nothing but blank lines and continuation prompts: the REPL ran nothing
 * yet. Earlier Enters at the continuation prompt (`ask`'s closing Enter, or more lines typed
 * before the detector saw the prompt) leave such lines behind.
 */
export function onlyContinuationPrompts(text: string, more: LineRegex | null): boolean {
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r+$/u, '');
    if (line.trim() === '') continue;
    if (!more || !matchesContinuation(more, line)) return false;
  }
  return true;
}

/**
 * Lines a REPL echoed at its continuation prompt (`... ))`) for lines typed into this turn are
 * input, not answer, and so is a bare continuation prompt: the echo of an Enter there (`ask`'s
 * closing Enter of a block). The watcher restarts the content after them when it saw the prompt
 * before the next line or Enter was typed; when that was typed ahead (before the prompt's output
 * arrived, as under load) its echo is still at the top of the content.
 */
function afterContinuationEchoes(
  all: string[],
  start: number,
  typed: string,
  more: LineRegex | null,
): number {
  if (!more) return start;
  // A one-line input was typed at the main prompt: none of it was echoed at a continuation one.
  const typedLines = new Set(
    typed.includes('\n')
      ? typed
          .split(/\r\n?|\n/u)
          .map(compact)
          .filter((l) => l !== '')
      : [],
  );
  const isEcho = (line: string): boolean => {
    // The prompt alone (rendered lines lose its trailing space).
    if (matchesContinuation(more, line)) return true;
    for (let k = 1; k < line.length; k++) {
      if (matchPrompt(more, line.slice(0, k)) === null) continue;
      if (typedLines.has(compact(line.slice(k)))) return true;
    }
    return false;
  };
  let i = start;
  while (i < all.length && (all[i]!.trim() === '' || isEcho(all[i]!))) i++;
  return i === all.length ? start : i;
}

/** The terminal's `^C` echo of an interrupt is input, not answer: the content without it
 * (the first one at or after `from`, within INTERRUPT_ECHO_SCAN_BYTES). */
function withoutInterruptEcho(content: Uint8Array, from: number): Uint8Array {
  if (from < 0) return content;
  const end = Math.min(content.length - 1, from + INTERRUPT_ECHO_SCAN_BYTES);
  for (let i = Math.max(0, from); i < end; i++) {
    if (content[i] === 0x5e && content[i + 1] === 0x43) {
      const out = new Uint8Array(content.length - 2);
      out.set(content.subarray(0, i));
      out.set(content.subarray(i + 2), i);
      return out;
    }
  }
  return content;
}

function trimBlankEdges(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a]!.trim() === '') a++;
  while (b > a && lines[b - 1]!.trim() === '') b--;
  return lines.slice(a, b);
}
