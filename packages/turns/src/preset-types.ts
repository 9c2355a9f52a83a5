import { z } from 'zod';

/** How a preset sees a prompt: a regex on stripped lines, or markers on the rendered screen. */
export type PresetKind = 'line' | 'screen';

/**
 * A preset is data: every field is a string or a list of regex sources (JavaScript syntax,
 * `u` flag), so users can override and extend presets in their config. Sources other than the
 * built-in presets' own run on a linear-time engine (see user-regex.ts).
 */
export interface Preset {
  name: string;
  kind: PresetKind;
  description: string;
  /** Agent versions (and corpus screens) the preset was checked on. */
  checkedOn: string[];
  /** Line presets: the prompt regex, matched anywhere in each ANSI-stripped line. */
  pattern?: string;
  /**
   * Line presets: a REPL's continuation prompt (Python's and Node's `... `). Shown on the last
   * line while a turn is open, it means the program wants more input for the same turn: the
   * turn stays open and the session is `blocked` (see docs/turns.md).
   */
  continuation?: string;
  /** Screen presets: markers of an agent waiting for input (its input line). */
  idle?: string[];
  /** Markers of an agent working (spinner lines, "esc to interrupt"). */
  busy?: string[];
  /**
   * Screen presets: markers of an agent loading, its input box gone and every key it reads
   * dropped (Gemini CLI's "Resuming session..."): busy, but it took nothing (no submit), and an
   * idle agent showing one is busy until its box is back.
   */
  loading?: string[];
  /** Markers of an agent asking a question (numbered choices, "Esc to cancel"). */
  blocked?: string[];
  /** Lines dropped from a turn's `text` (spinners, footers, status lines). */
  chrome?: string[];
  /**
   * Screen presets: the mark the agent draws before each block of its answer (Claude Code's
   * `● `, Codex's `• `, Gemini CLI's `✦ `), as literal text at the start of a line: removed
   * from `text`, with the indentation of the block's other lines.
   */
  answerBullet?: string[];
  /**
   * Screen presets: lines of the live region between a busy marker and the input box (a task
   * list, a tool's output block, a hook message): a busy marker above any number of them counts.
   */
  live?: string[];
  /** The input line itself, for answer extraction (defaults to `idle`, or `pattern` for line presets). */
  inputLine?: string[];
  /** The top border of the input box above the input line (rule, box corner); the answer ends above it. */
  inputTop?: string[];
  /**
   * Screen presets whose input box goes on above `inputTop` (OpenCode draws its text rows, each
   * with a bar at the left, above the border under them): its rows there. The answer ends above
   * them, and the text you typed is looked for in them as well as on the input line.
   */
  inputAbove?: string[];
  /**
   * Screen presets: the agent's own reports of its state, matched against the payload of every
   * OSC sequence it writes as `<code>;<text>` (the window title `0;✳ Claude Code`, Codex's
   * `7501;state=working`). While the latest report is busy (or blocked) no turn completes, the
   * screen notwithstanding; a busy report after a submit shows the agent took it.
   */
  busySignal?: string[];
  idleSignal?: string[];
  blockedSignal?: string[];
  /**
   * Screen presets: the keys that stop the agent's work, pressed one after the other (default
   * `Esc`; OpenCode stops on a second Esc). A turn is flagged interrupted once its Esc presses
   * while busy reach the number of Escs here.
   */
  interruptKeys?: string[];
  /**
   * Screen presets with several `interruptKeys`: what the screen shows once the agent read a
   * key and waits for the next (OpenCode's "esc again to interrupt"). The next key is pressed
   * only once a line shows it: a loaded agent still redrawing its spinner, its first key not
   * read yet, would read both keys in one read, as one sequence (ESC ESC), and go on working.
   */
  interruptArmed?: string[];
  /** How many bottom screen lines the classifier looks at. */
  bottomLines?: number;
  /** Screen presets: how long the screen must stay unchanged and idle before a turn completes. */
  settleMs?: number;
  /**
   * Screen presets: how long an idle screen that shows nothing of the answer to a message must
   * stay so before it ends the turn with nothing (default `settleMs`): an agent that marks its
   * turn done a frame before it draws the answer (OpenCode) is not done on that frame.
   */
  emptyAnswerMs?: number;
  /**
   * Screen presets: the agent draws an answer as it streams in pieces (some lines left
   * half-written) and draws it whole once more only after its screen shows the turn done
   * (OpenCode re-renders its Markdown then). A turn whose answer a busy screen showed ends only
   * once its idle screen redrew the answer and settled, or stayed unchanged this long (default 0:
   * no such wait) — or, when the agent's channel reported the answer, once the screen shows its
   * end (up to 10 s).
   */
  answerRedrawMs?: number;
  /**
   * Screen presets: lines only a half-written answer shows (OpenCode's list item drawn before
   * its text: a bare "1."), matched against each line of the answer read from an idle screen.
   * Without the agent's record of the answer to tell by, an answer with one waits for the
   * agent's redraw up to 10 s, not `answerRedrawMs`: a turn that ended on it would keep words the
   * agent had not drawn yet.
   */
  answerUnfinished?: string[];
  /**
   * Screen presets: the agent rewrites its whole screen line by line (Codex's alternate
   * screen), so a dialog it closes after Enter is read in part (some choices, only its footer)
   * before it goes: not a new question.
   */
  redrawsWhole?: boolean;
  /** For run reports; 'unknown' when the preset cannot know. */
  model?: string;
  provider?: string;
  /**
   * The agent whose own record of its turns the broker reads (its hooks, notify program,
   * transcript or chat file: docs/turns.md, "Agent channels"); the screen stays the fallback.
   */
  agent?: PresetAgent;
  /**
   * Screen presets: what is typed before each text injected at the input box (`send`, `ask`,
   * `relay`, routes) to empty it of what the agent left there — Qwen Code puts a message that
   * Esc cancelled back in its box, where the next text would be appended to it. It must change
   * nothing in an empty box.
   */
  clearInput?: string;
  /**
   * How a text of several lines is typed into the program when it has not enabled bracketed
   * paste (with paste mode on, a text is always one paste): see `MultilineSetting`. Default
   * `lines`.
   */
  multiline?: MultilineSetting;
}

/**
 * How a multi-line text reaches a program that takes no bracketed paste, where every newline
 * typed is an Enter:
 * - `lines`: as it is, each line submitted on its own (a shell runs a script line by line, a
 *   REPL reads a block);
 * - `join`: its lines joined into one line with `separator` (default one space), blank lines
 *   dropped: one submission, the line breaks lost;
 * - `block`: between an opening and a closing line the program reads as one input (aider's
 *   `{tag` … `tag}`): one submission, the lines kept;
 * - `continuation`: every line but the last ends with `lineEnd` (default `\`, a shell's and
 *   Python's line continuation): one submission.
 */
export type MultilineSetting =
  | MultilineMode
  | { mode: 'lines' }
  | { mode: 'join'; separator?: string }
  | { mode: 'block'; open: string; close: string }
  | { mode: 'continuation'; lineEnd?: string };
/** The modes named by a string alone (`block` needs its lines). */
export type MultilineMode = 'lines' | 'join' | 'continuation';

/** Agents with a channel the broker can wire (broker/src/agents/<agent>/). */
export const PRESET_AGENTS = ['claude', 'codex', 'gemini', 'qwen', 'opencode', 'copilot'] as const;
export type PresetAgent = (typeof PRESET_AGENTS)[number];

const regexList = z.array(z.string()).max(64);

/** A line the program reads, or text typed within one: no control character, no line break. */
const lineText = (what: string) =>
  z
    .string()
    .max(64)
    .regex(/^[^\x00-\x1f\x7f-\x9f]*$/u, `${what} holds no control character or line break`);

/** `multiline` in presets.json: a mode's name, or an object with the mode's own settings. */
export const MultilineSettingSchema = z.union([
  z.enum(['lines', 'join', 'continuation']),
  z.object({ mode: z.literal('lines') }).strict(),
  z.object({ mode: z.literal('join'), separator: lineText('separator').optional() }).strict(),
  z
    .object({
      mode: z.literal('block'),
      open: lineText('open').min(1),
      close: lineText('close').min(1),
    })
    .strict(),
  z
    .object({ mode: z.literal('continuation'), lineEnd: lineText('lineEnd').min(1).optional() })
    .strict(),
]);

/** One preset as written in `$XDG_CONFIG_HOME/clippy/presets.json`: any Preset field, all optional. */
export const UserPresetSchema = z
  .object({
    /** Start from this built-in (or earlier user) preset and override only the fields given. */
    extends: z.string().optional(),
    kind: z.enum(['line', 'screen']).optional(),
    description: z.string().optional(),
    checkedOn: z.array(z.string()).optional(),
    pattern: z.string().optional(),
    continuation: z.string().optional(),
    idle: regexList.optional(),
    busy: regexList.optional(),
    loading: regexList.optional(),
    blocked: regexList.optional(),
    chrome: regexList.optional(),
    answerBullet: z.array(z.string().min(1).max(8)).max(16).optional(),
    live: regexList.optional(),
    inputLine: regexList.optional(),
    inputTop: regexList.optional(),
    inputAbove: regexList.optional(),
    busySignal: regexList.optional(),
    idleSignal: regexList.optional(),
    blockedSignal: regexList.optional(),
    interruptKeys: z.array(z.string().min(1).max(16)).min(1).max(4).optional(),
    interruptArmed: regexList.optional(),
    bottomLines: z.number().int().min(1).max(1000).optional(),
    settleMs: z.number().int().min(0).max(60_000).optional(),
    emptyAnswerMs: z.number().int().min(0).max(60_000).optional(),
    answerRedrawMs: z.number().int().min(0).max(60_000).optional(),
    answerUnfinished: regexList.optional(),
    redrawsWhole: z.boolean().optional(),
    model: z.string().optional(),
    provider: z.string().optional(),
    agent: z.enum(PRESET_AGENTS).optional(),
    clearInput: z.string().max(256).optional(),
    multiline: MultilineSettingSchema.optional(),
  })
  .strict();
export type UserPreset = z.infer<typeof UserPresetSchema>;

/** The whole presets.json file: `{ "name": { ...Preset fields } }`. */
export const UserPresetsSchema = z.record(
  z.string().regex(/^[A-Za-z0-9][\w.-]*$/, 'a preset name is letters, digits, ".", "_" or "-"'),
  UserPresetSchema,
);
export type UserPresets = z.infer<typeof UserPresetsSchema>;
