import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Edit } from './edits.js';

/** Behaviour knobs every fake agent takes on its command line. */
export interface AgentOptions {
  /** Think time before the first output of an answer (ms). */
  delay: number;
  /** Answer in this many pieces (the slow agent). */
  pieces: number;
  /** Pause between pieces (ms): longer than any detector's quiet period. */
  pause: number;
  /** The first answer's first pause lasts until SIGUSR1 (see piece-gap.ts). */
  hold: boolean;
  /** The first answer's think time lasts until SIGUSR1 (see think-time.ts). */
  holdThink: boolean;
  /** Stream this many extra bytes inside the answer (the big agent). */
  big: number;
  /** Exit with code 3 in the middle of the answer (the crashing agent). */
  crash: boolean;
  /** Append one JSON line per submission here (what the agent received). */
  log: string | undefined;
  /** Which screen style: `claude` (a redrawing TUI) or `aider` (a line agent). */
  style: 'claude' | 'aider';
  /**
   * TUI style: leave the cursor in the input line, with the rule and footer below it, as
   * Claude Code 2.1 does (seen in raw-streams/claude-code-2.1.105.cast), instead of below the
   * footer.
   */
  cursorInBox: boolean;
  /** `--replies FILE` (a JSON array of strings): the Nth answer is the Nth reply, then the usual one. */
  replies: string[];
  /**
   * Ask for permission before each answer, as the real agents do before running a command: a
   * Claude-Code-style numbered dialog (TUI style) or an aider-style `(Y)es/(N)o/(D)on't ask
   * again [Yes]:` question (line style). The choice is logged (`{"choice": label}`) and shown
   * as `Permission: <label>` before the answer.
   */
  ask: boolean;
  /** `--edits FILE` (a JSON array of lists of edits): the Nth answer first makes the Nth list's edits. */
  edits: Edit[][];
  /**
   * TUI style: the first N Enters on text in the input box add a newline to it instead of
   * submitting, as Gemini CLI 0.61 takes an Enter that comes soon after a paste: the text stays
   * in the box, redrawn, and nothing is submitted.
   */
  newlineEnters: number;
  /**
   * TUI style, `--drop-enter MS`: the first Enter on text in the box is dropped, and for MS ms
   * a `Resuming session...` line replaces the box, every key read meanwhile dropped; then the
   * box is back holding the text. Gemini CLI 0.61 resumed does this when the Enter comes before
   * it has loaded the chat (it draws its box first).
   */
  dropEnterMs: number;
  /**
   * TUI style, `--drop-input MS`: the first text read (a paste) is dropped, and for MS ms the
   * same `Resuming session...` line replaces the box, every key read meanwhile dropped; then the
   * box is back, empty. Gemini CLI 0.61 resumed does this to a paste that comes as it starts
   * loading the chat.
   */
  dropInputMs: number;
  /**
   * `--settings JSON`: what clippy wires for a Claude Code session (its hooks). Taken always, so
   * a fake agent under the `claude` preset starts as the real one does; its hooks run only with
   * `--hooks` (without, it is a Claude Code that runs none: the screen alone gives its turns).
   */
  settings: string | undefined;
  /** Run the hooks `--settings` names, with the events and transcript Claude Code gives them. */
  hooks: boolean;
  /**
   * `--hook-lag MS`: run the Stop hook this long after the prompt is back on screen (a loaded
   * machine, a slow hook) instead of before it.
   */
  hookLag: number;
  /**
   * `--resume ID`: go on with Claude Code session ID (as `claude --resume ID` does, what
   * `clippy revive` runs): the hooks name that session and its transcript grows.
   */
  resume: string | undefined;
}

/** Think time by default: short, so tests stay fast, but never zero (real agents take time). */
const DEFAULT_DELAY_MS = 120;
/** Pause between a slow answer's pieces: well above the detectors' quiet/settle periods. */
const DEFAULT_SLOW_PAUSE_MS = 1200;

export function parseAgentOptions(
  argv: string[],
  defaults: Partial<AgentOptions> = {},
): AgentOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      delay: { type: 'string' },
      pieces: { type: 'string' },
      pause: { type: 'string' },
      hold: { type: 'boolean' },
      'hold-think': { type: 'boolean' },
      big: { type: 'string' },
      crash: { type: 'boolean' },
      log: { type: 'string' },
      style: { type: 'string' },
      'cursor-in-box': { type: 'boolean' },
      replies: { type: 'string' },
      ask: { type: 'boolean' },
      edits: { type: 'string' },
      'newline-enters': { type: 'string' },
      'drop-enter': { type: 'string' },
      'drop-input': { type: 'string' },
      settings: { type: 'string' },
      hooks: { type: 'boolean' },
      'hook-lag': { type: 'string' },
      resume: { type: 'string' },
    },
    strict: true,
  });
  const num = (v: string | undefined, d: number): number => (v === undefined ? d : Number(v));
  const style = values.style ?? defaults.style ?? 'aider';
  if (style !== 'claude' && style !== 'aider') throw new Error(`unknown --style ${style}`);
  return {
    delay: num(values.delay, defaults.delay ?? DEFAULT_DELAY_MS),
    pieces: num(values.pieces, defaults.pieces ?? 1),
    pause: num(values.pause, defaults.pause ?? DEFAULT_SLOW_PAUSE_MS),
    hold: values.hold ?? defaults.hold ?? false,
    holdThink: values['hold-think'] ?? defaults.holdThink ?? false,
    big: num(values.big, defaults.big ?? 0),
    crash: values.crash ?? defaults.crash ?? false,
    log: values.log ?? defaults.log,
    style,
    cursorInBox: values['cursor-in-box'] ?? defaults.cursorInBox ?? false,
    replies: values.replies ? (JSON.parse(readFileSync(values.replies, 'utf8')) as string[]) : [],
    ask: values.ask ?? defaults.ask ?? false,
    edits: values.edits ? (JSON.parse(readFileSync(values.edits, 'utf8')) as Edit[][]) : [],
    newlineEnters: num(values['newline-enters'], defaults.newlineEnters ?? 0),
    dropEnterMs: num(values['drop-enter'], defaults.dropEnterMs ?? 0),
    dropInputMs: num(values['drop-input'], defaults.dropInputMs ?? 0),
    settings: values.settings,
    hooks: values.hooks ?? false,
    hookLag: num(values['hook-lag'], 0),
    resume: values.resume,
  };
}
