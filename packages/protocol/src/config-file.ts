import {
  applyEdits,
  findNodeAtLocation,
  modify,
  parse,
  parseTree,
  printParseErrorCode,
  type Node as JsonNode,
  type ParseError,
} from 'jsonc-parser';
import { z } from 'zod';
import { configDir } from './paths.js';
import { PricingFileSchema } from './pricing-schema.js';
import { NotifyPartialSchema } from './schemas/common.js';

/**
 * The user's settings files (`$XDG_CONFIG_HOME/clippy/config.json`, `presets.json`): where they
 * are and how they are read, written once for the broker and the CLI. This package does no I/O,
 * so the caller passes the read; everything else (location, JSON, schema, the error naming
 * file and line) happens here, so a broken file reads the same wherever it is loaded.
 */

// Where the files are (configDir, CONFIG_FILE_NAME) needs no schema: it sits in paths.ts, which
// the CLI's fast path loads without zod.

/** Largest accepted ring depth: bounds memory at depth × per-turn cap per session. */
export const MAX_TURN_RING_DEPTH = 1024;
/** Smallest accepted per-turn cap: below this a turn is a fragment, not an answer. */
export const MIN_TURN_BYTES = 1024;
/** Largest accepted per-turn cap: a turn must fit in one 16 MiB frame with room to spare. */
export const MAX_TURN_BYTES_LIMIT = 12 * 1024 * 1024;

/** Smallest accepted history size limit: below it a single segment could not be kept. */
export const MIN_HISTORY_BYTES = 1024 * 1024;

/** Turns kept per session by default (clippy's registry default). */
export const DEFAULT_TURN_RING_DEPTH = 32;
/** Content bytes kept per turn by default (clippy's registry default): 4 MiB. */
export const DEFAULT_MAX_TURN_BYTES = 4 * 1024 * 1024;
/** The turn history's size limit by default: weeks of agent work, small beside a disk. */
export const DEFAULT_HISTORY_MAX_BYTES = 512 * 1024 * 1024;
/** The turn history's age limit by default, in days: a month of looking back. */
export const DEFAULT_HISTORY_MAX_AGE_DAYS = 30;
/**
 * How long a starting daemon waits for the history lock of a predecessor by default, in
 * seconds: one killed with SIGKILL still held it for 1.4 s on a loaded machine.
 */
export const DEFAULT_HISTORY_LOCK_WAIT_SECONDS = 5;
/** The longest wait for the history lock a user can set: clients wait that long for a start. */
const MAX_HISTORY_LOCK_WAIT_SECONDS = 600;

/** `config.json`: every key any part of clippy reads; keys of newer versions are let through. */
export const ConfigFileSchema = z
  .object({
    turnRingDepth: z
      .number()
      .int()
      .min(1)
      .max(MAX_TURN_RING_DEPTH)
      .optional()
      .describe('turns kept per session (broker)'),
    maxTurnBytes: z
      .number()
      .int()
      .min(MIN_TURN_BYTES)
      .max(MAX_TURN_BYTES_LIMIT)
      .optional()
      .describe('content bytes kept per turn (broker)'),
    persist: z
      .union([z.boolean(), z.array(z.string().min(1))], {
        error: 'must be true, false or a list of preset names',
      })
      .optional()
      .describe('keep turns on disk: true for every session, or the presets listed (broker)'),
    agentChannels: z
      .union([z.boolean(), z.array(z.string().min(1))], {
        error: 'must be true, false or a list of preset names',
      })
      .optional()
      .describe(
        'read the agent’s own record of its turns (hooks, notify, transcripts): true (default) for every preset that declares an agent, false for none, or the presets listed (broker)',
      ),
    historyMaxBytes: z
      .number()
      .int()
      .min(MIN_HISTORY_BYTES)
      .optional()
      .describe('turn history size limit in bytes, oldest dropped first (broker)'),
    historyMaxAgeDays: z
      .number()
      .positive()
      .optional()
      .describe('turn history age limit in days (broker)'),
    historyLockWaitSeconds: z
      .number()
      .positive()
      .max(MAX_HISTORY_LOCK_WAIT_SECONDS)
      .optional()
      .describe(
        'how long a starting daemon waits for the history of one still exiting before it runs without history (broker)',
      ),
    detachKey: z
      .string({ error: 'must be a string like "ctrl-]"' })
      .optional()
      .describe('key that detaches `clippy attach` (cli)'),
    term: z
      .string({ error: 'must be a string like "xterm-256color"' })
      .optional()
      .describe('TERM of new sessions (cli)'),
    hotkeys: z
      .object({
        capture: z
          .string({ error: 'must be a string like "super+shift+c"' })
          .optional()
          .describe('key that captures the focused session’s last turn'),
        paste: z
          .string({ error: 'must be a string like "super+shift+v"' })
          .optional()
          .describe('key that pastes the relay buffer into the focused session'),
        feedback: z
          .enum(['auto', 'desktop', 'terminal'])
          .optional()
          .describe(
            'where success and errors show: a desktop notification or the focused terminal',
          ),
      })
      .strict()
      .optional()
      .describe('`clippy hotkeys` keys and feedback (cli)'),
    executionReport: z
      .object({
        tipMaxLines: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe('an Execution Report longer than this many lines ends with the pruning tip'),
        tipMaxChars: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe(
            'an Execution Report longer than this many characters ends with the pruning tip',
          ),
      })
      .strict()
      .optional()
      .describe('Execution Report pruning-tip thresholds (cli: navigate, report)'),
    web: z
      .object({
        port: z
          .number()
          .int()
          .min(1)
          .max(65535)
          .optional()
          .describe(
            'start the web view with the daemon on this port of 127.0.0.1 (its token survives restarts)',
          ),
      })
      .strict()
      .optional()
      .describe('the web view (broker)'),
    hosts: z
      .record(
        z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/u, {
          error: 'host names are letters, digits, ".", "_" and "-"',
        }),
        z.string({ error: 'must be an ssh destination like "me@build.example" or "local"' }).min(1),
      )
      .optional()
      .describe('machines for `--host NAME` and `NAME:session`: ssh destinations (cli)'),
    worktreeDir: z
      .string({ error: 'must be a folder like "~/worktrees" or "../worktrees"' })
      .min(1)
      .optional()
      .describe(
        'where `new --worktree` puts worktrees: absolute, `~/…`, or relative to the working tree (broker)',
      ),
    pricing: PricingFileSchema.optional().describe(
      'model prices over the shipped table, USD per 1M tokens: {"models": {"my-model": {"input": 1, "output": 4}}} (broker: each session’s cost; navigator)',
    ),
    notify: NotifyPartialSchema.extend({
      presets: z
        .record(z.string().min(1), NotifyPartialSchema)
        .optional()
        .describe(
          'settings for the sessions of a preset, over the ones above: {"shell": {"turn": false}}',
        ),
    })
      .strict()
      .optional()
      .describe(
        'notifications when a turn finishes or a session waits for you (broker; `clippy notify`)',
      ),
  })
  .loose();
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/**
 * Every setting of config.json by its dotted key (`hotkeys.capture`), with its description;
 * a record (`hosts`) is one setting. What `clippy config` lists.
 */
export function configSettings(): { key: string; description: string }[] {
  const out: { key: string; description: string }[] = [];
  const walk = (shape: Record<string, z.ZodType>, prefix: string) => {
    for (const [name, schema] of Object.entries(shape)) {
      const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
      if (inner instanceof z.ZodObject) walk(inner.shape, `${prefix}${name}.`);
      else out.push({ key: `${prefix}${name}`, description: schema.description ?? '' });
    }
  };
  walk(ConfigFileSchema.shape, '');
  return out;
}

/** A settings file that cannot be used: the message is `<file>:<line>: <reason>`. */
export class ConfigFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly reason: string,
  ) {
    super(line === undefined ? `${file}: ${reason}` : `${file}:${line}: ${reason}`);
    this.name = 'ConfigFileError';
  }
}

/** What the loader needs from its caller: the home directory and a file read (throws ENOENT). */
export interface ConfigIo {
  home: string;
  readFile(path: string): string;
}

/**
 * Parses a settings file's text and checks it against `schema`. Throws ConfigFileError naming
 * the file and the line of the first problem: a JSON syntax error, or the value a schema check
 * refused (its key path in the reason).
 */
export function parseConfigText<S extends z.ZodType>(
  schema: S,
  text: string,
  file: string,
): z.output<S> {
  const errors: ParseError[] = [];
  const json: unknown = parse(text, errors, {
    disallowComments: true,
    allowTrailingComma: false,
    allowEmptyContent: false,
  });
  const syntax = errors[0];
  if (syntax) {
    throw new ConfigFileError(
      file,
      lineAt(text, syntax.offset),
      `not valid JSON (${describeSyntaxError(printParseErrorCode(syntax.error))})`,
    );
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  const tree = parseTree(text);
  // The refused value's line; a missing key's object when the value is absent.
  let node = tree && findNodeAtLocation(tree, path);
  for (let n = path.length - 1; !node && tree && n >= 0; n--)
    node = findNodeAtLocation(tree, path.slice(0, n));
  const where = path.length > 0 ? `${path.join('.')}: ` : '';
  throw new ConfigFileError(file, lineAt(text, node?.offset ?? 0), `${where}${issue.message}`);
}

/**
 * The one loader of a settings file in the config directory: its checked content, or
 * undefined when the file does not exist. Anything else wrong (unreadable, not JSON, a value
 * the schema refuses) throws ConfigFileError.
 */
export function loadConfigFile<S extends z.ZodType>(
  name: string,
  schema: S,
  env: Record<string, string | undefined>,
  io: ConfigIo,
): z.output<S> | undefined {
  const file = `${configDir(env, io.home)}/${name}`;
  let text: string;
  try {
    text = io.readFile(file);
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') return undefined;
    throw new ConfigFileError(file, undefined, (err as Error).message);
  }
  return parseConfigText(schema, text, file);
}

/**
 * The line of every setting written in a config file's text, by its dotted key
 * (`hotkeys.capture`, `hosts.build`); objects are listed too (`hotkeys`). Empty when the text is
 * not JSON. For saying where a value came from (`clippy config`).
 */
export function settingLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  const walk = (node: JsonNode | undefined, prefix: string) => {
    if (node?.type !== 'object') return;
    for (const prop of node.children ?? []) {
      const [key, value] = prop.children ?? [];
      if (key?.type !== 'string') continue;
      const name = `${prefix}${String(key.value)}`;
      lines.set(name, lineAt(text, key.offset));
      walk(value, `${name}.`);
    }
  };
  walk(parseTree(text), '');
  return lines;
}

/** 1-based line of a character offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** jsonc-parser's codes (`PropertyNameExpected`) as words (`property name expected`). */
function describeSyntaxError(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/**
 * The text of a settings file with one value set (undefined: removed) at a key path, the rest of
 * the text as it was (comments aside, which the files do not allow). Creates the objects on the
 * path. For commands that change a setting (`clippy notify`).
 */
export function withSetting(text: string, path: string[], value: unknown): string {
  const base = text.trim() === '' ? '{}\n' : text;
  const edits = modify(base, path, value, {
    formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' },
  });
  return applyEdits(base, edits);
}
