import type { SessionState } from '@clippy/protocol';
import { applyMultiline, MultilineError, type MultilineForm } from '@clippy/turns';
import { HandlerError } from '../errors.js';
import { neutralizeControls } from './injected-text.js';

/**
 * How long an injection waits for the target to become idle before failing with
 * `target_busy`: an agent finishing an answer settles within seconds; beyond this the caller
 * should decide (retry, or `--force`).
 */
export const INJECT_IDLE_WAIT_MS = 15_000;
/** Bytes per write of a large text: small enough to respect the PTY's backpressure between writes. */
export const INJECT_CHUNK_BYTES = 4096;
/**
 * Quiet time between the text and its Enter: in one write many TUIs take `\r` as a newline in
 * the paste, and a target still redrawing the pasted text has not finished reading it.
 */
export const INJECT_ENTER_DELAY_MS = 80;
/**
 * Longest wait for the target to show that it read the text (a TUI's input box shows it, a
 * line program echoed it) before Enter: an Enter that comes first is lost (Claude Code reads
 * the paste only after asking the terminal for its attributes, and drew a paste 2.1 s after it
 * on a machine with a load of 15), or taken as a newline (Gemini CLI, within 40 ms of a paste).
 * A program that echoes nothing (a password prompt) gets its Enter after this.
 */
export const INJECT_ECHO_WAIT_MS = 5_000;
/** Longest wait for the target to finish echoing a large paste before Enter is pressed anyway. */
export const INJECT_SETTLE_MAX_MS = 10_000;
/** How long output may take to follow an Enter before it counts as not taken (echo is immediate). */
export const INJECT_CONFIRM_MS = 1_000;
/**
 * How long a TUI may take to show that it took an Enter (its input box cleared, a spinner, its
 * busy title) before Enter is pressed again: the answer comes the moment it does; the bound is
 * for an agent redrawing slowly on a loaded machine (measured: Gemini CLI 0.61 first redrew
 * 3.7 s after an Enter, with a load of 15 on 2 cores).
 */
export const INJECT_TAKEN_MS = 5_000;
/**
 * How much longer a TUI may take when, past INJECT_TAKEN_MS, its input box no longer shows the
 * text but its screen does not say what came of it (a view being drawn): it took the Enter and is
 * slow to show it, and a second Enter would land in its next view. Measured: OpenCode 1.18.33
 * opens its session view at the first message, blank for 13 s with a load of 20 on 2 cores and
 * over 35 s with a load of 40. (An Enter not taken leaves the text in the box: never waited on.)
 */
export const INJECT_VIEW_CHANGE_MS = 90_000;
/**
 * How long `complete` waits after Enter for a REPL's continuation prompt: it is drawn with the
 * echo of Enter (nothing runs before a block is complete), so within this even under load;
 * a turn completing first ends the wait at once.
 */
export const CONTINUATION_WAIT_MS = 1_000;
/** Longest line a canonical-mode reader takes on Linux (4096 with its newline). */
export const MAX_CANONICAL_LINE_BYTES = 4095;

/**
 * States in which a target takes text: idle at its prompt; and `blocked` where the program
 * reads a line (see `readsLines`). A TUI's `blocked` is a dialog, which takes keys, not text.
 */
const IDLE_STATES: readonly SessionState[] = ['idle'];
const LINE_ANSWER_STATES: readonly SessionState[] = ['idle', 'blocked'];

const PASTE_START = Buffer.from('\x1b[200~');
const PASTE_END = Buffer.from('\x1b[201~');
const ENTER = Buffer.from('\r');

/** What the injector needs from a target session (a PTY session of the broker). */
export interface InjectTarget {
  readonly name: string;
  isLive(): boolean;
  state(): SessionState;
  /** Resolves true as soon as the state is one of `ready`, false after `ms` (or when the target exits). */
  waitState(ready: readonly SessionState[], ms: number): Promise<boolean>;
  /**
   * Whether a `blocked` target reads a line of text (a line preset: a program reading its
   * terminal without a prompt, a REPL's continuation, aider's question), rather than showing a
   * TUI dialog whose choices are keys.
   */
  readsLines(): boolean;
  /** Whether the application enabled bracketed paste (`ESC[?2004h`). */
  bracketedPaste(): boolean;
  /**
   * How its preset has a multi-line text typed when the application takes no bracketed paste
   * (default `lines`: as it is, every newline an Enter).
   */
  multiline?(): MultilineForm;
  /**
   * What to type before a text at the agent's input box to empty it of what the agent left there
   * (its preset's `clearInput`: Qwen Code puts a cancelled message back); null: nothing.
   */
  clearInput?(): Uint8Array | null;
  /** Output bytes the target produced so far. */
  outputBytes(): number;
  /** Resolves true once output passes `afterBytes`, false after `ms`. */
  waitOutput(afterBytes: number, ms: number): Promise<boolean>;
  /** Writes through the session's input path (the detector sees it); resolves once little is queued. */
  write(data: Uint8Array): Promise<void>;
  /** Resolves once the PTY has taken every byte written so far. */
  drain(): Promise<void>;
  /** Canonical-mode line discipline: true/false, or null when it cannot be told. */
  canonicalMode(): Promise<boolean | null>;
  /**
   * Whether the target's input box shows `text` (a TUI read the paste); null when it cannot be
   * told (a line program: its echo is output).
   */
  inputShows?(text: string): boolean | null;
  /** Resolves true once the input box shows `text`, false after `ms`. */
  waitShown?(text: string, ms: number): Promise<boolean>;
  /**
   * How many loading screens (its preset's `loading`: the input box gone, every key read
   * dropped — Gemini CLI resuming a chat) the session's detector saw begin so far.
   */
  loads?(): number;
  /**
   * Submits (Enter at the input box) the session's detector saw, and the latest the agent took;
   * null when the detector cannot tell (line presets: output after Enter tells).
   */
  submits?(): { sent: number; taken: number } | null;
  /**
   * The agent took none of the Enters: its detector forgets the submit (no turn is open);
   * resolves once it did.
   */
  dropUntaken?(): void | Promise<void>;
  /**
   * Resolves true once submit number `seq` (or a later one) was taken, false after `ms` — or,
   * given `held`, as soon as the input box shows that text again (the agent drew its box anew
   * with the text still in it: it did not take the Enter).
   */
  waitTaken?(seq: number, ms: number, held?: string): Promise<boolean>;
  /** Whether the session's preset knows a continuation prompt (REPLs). */
  hasContinuation?(): boolean;
  /** Resolves true once the program shows its continuation prompt, false once a turn
   * completes, the target exits or `ms` pass. */
  waitContinuation?(ms: number): Promise<boolean>;
}

export interface InjectOptions {
  /** Press Enter after the text (a separate write after a pause). */
  enter: boolean;
  /** Do not wait for the target to be idle. */
  force: boolean;
  /**
   * After Enter, a continuation prompt (a REPL block left open: `for i in x: f(i)`) gets one more
   * Enter to close it; still one after that fails with `needs_input` (`clippy ask`).
   */
  complete?: boolean;
  /** The wait for idle (default INJECT_IDLE_WAIT_MS; shorter for `ask --timeout`). */
  idleWaitMs?: number;
  /**
   * Try a text again after `not_submitted` (a route's hop): where its input still holds it (a
   * TUI's box shows it; a line program keeps its line) only Enter is pressed, confirmed as
   * always; where it does not, the text is typed anew. Never typed twice into one input.
   */
  resubmit?: boolean;
}

export interface InjectResult {
  /** Enter was pressed and the target reacted to it. */
  submitted: boolean;
  /** The text went in as a bracketed paste. */
  bracketed: boolean;
}

/**
 * Injects text into a session the way that works with real agents (agent-screens.md): wait
 * for the idle prompt (or `target_busy`), replace control characters (injected-text.ts), wrap the text in a bracketed paste when the target
 * enabled it, write it in chunks with backpressure, press Enter as a separate write after a
 * pause, confirm output followed, retry Enter once, else `not_submitted`. A line longer than a
 * canonical-mode reader takes is refused with `input_too_long` instead of being cut.
 */
export async function inject(
  target: InjectTarget,
  payload: Uint8Array,
  opts: InjectOptions,
): Promise<InjectResult> {
  if (!target.isLive())
    throw new HandlerError(
      'session_exited',
      `session '${target.name}' has exited: it takes no input`,
    );
  const ready: readonly SessionState[] = target.readsLines() ? LINE_ANSWER_STATES : IDLE_STATES;
  if (!opts.force && !ready.includes(target.state())) {
    const waitMs = opts.idleWaitMs ?? INJECT_IDLE_WAIT_MS;
    const idle = await target.waitState(ready, waitMs);
    if (!target.isLive())
      throw new HandlerError('session_exited', `session '${target.name}' exited while waiting`);
    if (!idle) {
      const state = target.state();
      throw new HandlerError(
        'target_busy',
        state === 'blocked'
          ? `session '${target.name}' asks a question (a dialog) and still did after waiting ${waitMs} ms: text does not answer a dialog; answer it with \`clippy send ${target.name} --keys …\`, or use --force`
          : `session '${target.name}' is ${state}, not idle, after waiting ${waitMs} ms; retry later or use --force`,
      );
    }
  }
  // Text, never keys: no control character of the payload may act on the target's input (it
  // could end the paste early and type the rest as keystrokes). Done here, where the paste is
  // framed, so no caller can bypass it.
  const safe = neutralizeControls(payload);
  // Text, never keys: into a program that enabled paste mode it goes as one bracketed paste,
  // one line too — TUIs take characters typed in a burst as shortcuts (Gemini CLI toggles its
  // help on `?`, `!` enters its shell mode) and an Enter in the burst as a newline. Keys for a
  // menu are sent with `send --keys`.
  const bracketed = target.bracketedPaste();
  // Without paste mode every newline typed is an Enter: the preset says how a text of several
  // lines becomes one submission (aider's `{tag` block), if it should (a shell runs each line).
  const text = bracketed ? safe : typedForm(target, safe);
  if (
    !bracketed &&
    longestLine(text) > MAX_CANONICAL_LINE_BYTES &&
    (await target.canonicalMode()) !== false
  ) {
    throw new HandlerError(
      'input_too_long',
      `session '${target.name}' reads lines in canonical mode without bracketed paste, and a line of the text is ` +
        `${longestLine(text)} bytes: the kernel would cut it at ${MAX_CANONICAL_LINE_BYTES}`,
    );
  }
  const held = opts.resubmit === true && target.inputShows?.(text.toString('utf8')) !== false;
  if (!held) {
    const pasted = bracketed ? Buffer.concat([PASTE_START, text, PASTE_END]) : text;
    // At the input box (not into a dialog or a program reading a line), first what empties it.
    const clear = target.state() === 'idle' && !target.readsLines() ? target.clearInput?.() : null;
    const body = clear ? Buffer.concat([clear, pasted]) : pasted;
    const loadsBefore = target.loads?.() ?? 0;
    const beforeText = await typeIn(target, body);
    if (opts.enter) {
      const typed = text.toString('utf8');
      await settle(target, beforeText, typed);
      // Typed again only where the screen proves the first was lost: never on a box merely
      // slow to show it (a first-starting Gemini CLI under load reads a paste late).
      if (await droppedWhileLoading(target, typed, loadsBefore))
        await settle(target, await typeIn(target, pasted), typed);
    }
  }
  if (!opts.enter) return { submitted: false, bracketed };
  const typed = text.toString('utf8');
  // Whether the box showed the text before Enter: only then is a box gone after Enter a sign
  // the agent took it (text a dialog took as its keys never shows there).
  const shownBeforeEnter = target.inputShows?.(typed) === true;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (!target.isLive())
      throw new HandlerError('session_exited', `session '${target.name}' exited before Enter`);
    // The first Enter was taken after all: the agent now asks a question (a tool's approval,
    // drawn later than the wait on a loaded machine), which a second Enter would answer.
    if (attempt > 0 && target.state() === 'blocked' && !target.readsLines())
      return { submitted: true, bracketed };
    const before = target.outputBytes();
    const sentBefore = target.submits?.()?.sent ?? 0;
    await target.write(ENTER);
    // A TUI's detector saw this Enter as a submit: the agent took it when its input box no longer
    // holds the text (output alone may be the paste still being drawn). Else output tells.
    const sent = target.submits?.()?.sent ?? 0;
    const taken =
      sent > sentBefore && target.waitTaken
        ? await waitTaken(target, sent, typed, shownBeforeEnter, before)
        : await target.waitOutput(before, INJECT_CONFIRM_MS);
    if (taken) {
      if (opts.complete) await closeContinuation(target);
      return { submitted: true, bracketed };
    }
  }
  await target.dropUntaken?.();
  throw new HandlerError(
    'not_submitted',
    `the text was written to '${target.name}' but it did not react to Enter (tried twice)`,
  );
}

/**
 * Whether the agent took submit `seq`: within INJECT_TAKEN_MS, or — when by then its input box
 * is gone from a screen that does not say what came of it (no input line, no marker: a view
 * being drawn) — within INJECT_VIEW_CHANGE_MS more, unless the box comes back with the text.
 * A box still holding the text did not take it, and text the box never showed (a dialog took it
 * as its keys) is not waited on either. An agent that printed nothing at all since the Enter
 * (output `before` it) has not read it yet: its first output, up to INJECT_VIEW_CHANGE_MS later,
 * is what says.
 */
async function waitTaken(
  target: InjectTarget,
  seq: number,
  typed: string,
  shownBeforeEnter: boolean,
  before: number,
): Promise<boolean> {
  if (await target.waitTaken!(seq, INJECT_TAKEN_MS)) return true;
  // OpenCode's first message on a loaded machine: not a byte for over 10 s after Enter. Its box
  // still holds the text only because it has not redrawn; an Enter more would be typed after it.
  if (target.isLive() && target.outputBytes() === before) {
    if (!(await target.waitOutput(before, INJECT_VIEW_CHANGE_MS))) return false;
    if (await target.waitTaken!(seq, INJECT_TAKEN_MS)) return true;
  }
  if (!shownBeforeEnter || !target.isLive() || target.inputShows?.(typed) !== false) return false;
  // Ends as soon as the box is back holding the text: Gemini CLI, resumed, draws "Resuming
  // session..." in place of its box, drops the Enter meanwhile and draws the box again with the
  // text: the next Enter is taken; waiting on, the ask timed out.
  return target.waitTaken!(seq, INJECT_VIEW_CHANGE_MS, typed);
}

/** Writes `body` in chunks (PTY backpressure); resolves with the output count before it. */
async function typeIn(target: InjectTarget, body: Buffer): Promise<number> {
  const before = target.outputBytes();
  for (let at = 0; at < body.length; at += INJECT_CHUNK_BYTES) {
    if (!target.isLive())
      throw new HandlerError('session_exited', `session '${target.name}' exited during the paste`);
    await target.write(body.subarray(at, at + INJECT_CHUNK_BYTES));
  }
  await target.drain();
  return before;
}

/**
 * Whether the target dropped the text: its box does not show it, a loading screen (the box
 * gone, keys read dropped) began since it was typed (Gemini CLI, resumed, draws its box before
 * it loads the chat: a text typed into it just then is lost), and the box, back and settled
 * (idle again), shows it still not.
 */
async function droppedWhileLoading(
  target: InjectTarget,
  typed: string,
  loadsBefore: number,
): Promise<boolean> {
  if (!target.loads || target.loads() <= loadsBefore || target.inputShows?.(typed) === true)
    return false;
  if (!(await target.waitState(IDLE_STATES, INJECT_IDLE_WAIT_MS))) return false;
  return target.isLive() && target.inputShows?.(typed) === false;
}

/** The text as the target's preset has multi-line text typed without bracketed paste. */
function typedForm(target: InjectTarget, text: Buffer): Buffer {
  const form = target.multiline?.() ?? { mode: 'lines' };
  if (form.mode === 'lines') return text;
  try {
    return Buffer.from(applyMultiline(text.toString('utf8'), form), 'utf8');
  } catch (err) {
    if (!(err instanceof MultilineError)) throw err;
    throw new HandlerError(
      'invalid_argument',
      `session '${target.name}' takes no bracketed paste and its preset sends several lines as one ${form.mode}: ${err.message}`,
    );
  }
}

/** One Enter closes a block the program still waits on; a second continuation is reported. */
async function closeContinuation(target: InjectTarget): Promise<void> {
  if (!target.hasContinuation?.() || !target.waitContinuation) return;
  if (!(await target.waitContinuation(CONTINUATION_WAIT_MS))) return;
  const before = target.outputBytes();
  await target.write(ENTER);
  await target.waitOutput(before, INJECT_CONFIRM_MS);
  if (await target.waitContinuation(CONTINUATION_WAIT_MS)) {
    throw new HandlerError(
      'needs_input',
      `session '${target.name}' still shows its continuation prompt after a closing Enter: the program wants more input than the text gave (an unclosed bracket, string or block?)`,
    );
  }
}

/** Bytes in the longest line (split at CR or LF) of the payload. */
export function longestLine(payload: Uint8Array): number {
  let longest = 0;
  let start = 0;
  for (let i = 0; i <= payload.length; i++) {
    if (i === payload.length || payload[i] === 0x0a || payload[i] === 0x0d) {
      longest = Math.max(longest, i - start);
      start = i + 1;
    }
  }
  return longest;
}

/**
 * Waits until the target read the text — a TUI's input box shows it, a line program echoed it
 * (output since `beforeText`) — bounded by INJECT_ECHO_WAIT_MS, then until its output has been
 * quiet for INJECT_ENTER_DELAY_MS (bounded).
 */
async function settle(target: InjectTarget, beforeText: number, text: string): Promise<void> {
  if (target.inputShows?.(text) != null && target.waitShown)
    await target.waitShown(text, INJECT_ECHO_WAIT_MS);
  else await target.waitOutput(beforeText, INJECT_ECHO_WAIT_MS);
  const deadline = Date.now() + INJECT_SETTLE_MAX_MS;
  while (target.isLive() && Date.now() < deadline) {
    if (!(await target.waitOutput(target.outputBytes(), INJECT_ENTER_DELAY_MS))) return;
  }
}
