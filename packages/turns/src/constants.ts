// Every timeout and limit of the turn engine, each with the reason for its value.

/** Quiet period before the unterminated last line is tested as a prompt: prompts rarely end
 * with a newline, and the broker's target is ≤ 20 ms p99 turn latency for line presets, so
 * the wait must be short — just long enough that a line still being written is not judged. */
export const PROMPT_QUIET_MS = 8;

/** How long a TUI screen must stay unchanged (and idle) before a turn completes: TUIs redraw in
 * bursts a few ms apart; 200 ms rides over those bursts and keeps turn latency ≤ 300 ms p99. */
export const SCREEN_SETTLE_MS = 200;

/** The settle window once the agent's own record (its transcript, its rollout) says the open
 * turn ended: the agent draws nothing more for it, so the quiet wait only has to cover the
 * final frame reaching the screen model in pieces (a TUI writes a frame in one burst, a few ms;
 * two snapshot intervals, 50 ms, leave room for a loaded machine). The screen still has to show
 * the agent's prompt: the record shortens the wait, it never ends a turn. */
export const RECORDED_SETTLE_MS = 50;

/** Default cap of a turn's raw content (the registry's per-turn cap): longer content is cut and
 * flagged `truncated`, so one runaway turn cannot exhaust the broker's memory. */
export const DEFAULT_MAX_TURN_BYTES = 4 * 1024 * 1024;

/** Longest stripped line kept for prompt matching; only the tail is kept because a prompt is
 * printed at the end of a line (`output$ `), and a longer line is output, not a prompt. */
export const MAX_LINE_CHARS = 16 * 1024;

/** Longest typed input tracked for echo removal and answer extraction (a big paste is still
 * recognised by its first megabyte). */
export const MAX_TYPED_CHARS = 1024 * 1024;

/** Longest echo looked for after a submit before giving up and treating output as content:
 * bounds the bytes held while the echo is matched. */
export const MAX_ECHO_PHASE_BYTES = 256 * 1024;

/** Raw output kept between turns (the prompt line, the input echoed while it was typed, a REPL's
 * preview): the echo after Enter redraws that line, so it is rendered on top of it. A prompt
 * line with its typed input is far smaller; the bound only caps output printed while idle. */
export const MAX_IDLE_RAW_BYTES = 64 * 1024;

/**
 * Longest wait, after a prompt is shown while the end of a multi-line input is not yet echoed,
 * for the rest of the echo (a REPL draws its prompt after a definition, then echoes the line
 * typed after it; a loaded machine can pause between the two for tens of milliseconds). Past it
 * the program is taken not to echo the rest. Only such a turn waits: an echo complete, or one
 * whose end was shown, ends at the prompt's quiet wait (PROMPT_QUIET_MS) as before.
 */
export const ECHO_REST_WAIT_MS = 1_000;

/** Line feeds beyond the input's own lines after which an unfinished echo is given up (a
 * line editor may redraw a line or add an empty one; more is the answer, not the echo). */
export const MAX_ECHO_EXTRA_LINES = 2;

/** Raw bytes at the end of the prompt's line examined to find where the prompt begins (so the
 * output before it on that line is kept): far more than any prompt and its escape sequences. */
export const PROMPT_SCAN_BYTES = 64 * 1024;

/** Default number of bottom screen lines a screen preset's classifier looks at: enough for an
 * input box, its footer and a dialog, while older markers scrolled higher up never count. */
export const DEFAULT_BOTTOM_LINES = 20;

/** Busy markers (spinner lines) are drawn just above the input box; further up they are stale
 * answer text, so only this many lines above the input line count. */
export const BUSY_ABOVE_INPUT_LINES = 6;

/** How far above the input line its box's top border is searched for (aider lists the files in
 * the chat between its rule and the `>` prompt, so this is more than a box border needs). */
export const INPUT_TOP_SCAN_LINES = 24;

/** Shortest wrapped first echo line accepted as the start of the user's input (shorter
 * fragments match answer text by chance). */
export const ECHO_MIN_PREFIX_CHARS = 8;

/** Screen presets: a submit the agent did not react to at all (no output, screen idle) for this
 * long — Enter on an empty input box — returns the session to idle without a turn. TUIs echo
 * the submitted text at once, so a real answer always shows output well within this. */
export const NO_REACTION_MS = 1000;
