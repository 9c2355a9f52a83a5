import { BUILTIN_PRESETS } from './builtin-presets.js';
import { compileUserRegex, UnsupportedRegexError, type LineRegex } from './user-regex.js';
import { DEFAULT_BOTTOM_LINES, SCREEN_SETTLE_MS } from './constants.js';
import { z } from 'zod';
import {
  UserPresetsSchema,
  type Preset,
  type UserPreset,
  type UserPresets,
} from './preset-types.js';

/** A preset that cannot be used: unknown name, newline in a pattern, invalid regex, … */
export class PresetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PresetError';
  }
}

/** A preset with its regexes compiled once (a session's pattern never changes). */
export interface CompiledPreset {
  readonly preset: Readonly<Preset>;
  readonly pattern: LineRegex | null;
  /**
   * `pattern` in multi-line mode, to find the lines of a block of output that may match in one
   * scan (null when the pattern has lookarounds: only they can see past a line's ends; null
   * for a user pattern, tested line by line on the linear-time engine). Every
   * line the pattern matches holds the start of a match of this one; the converse need not
   * hold, so candidates are checked with `pattern`.
   */
  readonly linePrefilter: RegExp | null;
  /** Line presets: the continuation prompt (the program wants more input), or null. */
  readonly continuation: LineRegex | null;
  readonly idle: LineRegex[];
  readonly busy: LineRegex[];
  readonly loading: LineRegex[];
  readonly blocked: LineRegex[];
  readonly chrome: LineRegex[];
  readonly live: LineRegex[];
  readonly inputLine: LineRegex[];
  readonly inputTop: LineRegex[];
  readonly inputAbove: LineRegex[];
  readonly busySignal: LineRegex[];
  readonly idleSignal: LineRegex[];
  readonly blockedSignal: LineRegex[];
  readonly interruptArmed: LineRegex[];
  readonly answerUnfinished: LineRegex[];
  readonly bottomLines: number;
  readonly settleMs: number;
  /** See Preset.emptyAnswerMs (never shorter than the settle window). */
  readonly emptyAnswerMs: number;
  /** See Preset.answerRedrawMs (0: none). */
  readonly answerRedrawMs: number;
}

const REGEX_LIST_FIELDS = [
  'idle',
  'busy',
  'loading',
  'blocked',
  'chrome',
  'live',
  'inputLine',
  'inputTop',
  'inputAbove',
  'busySignal',
  'idleSignal',
  'blockedSignal',
  'interruptArmed',
  'answerUnfinished',
] as const;

/**
 * Every regex source of the built-in presets: reviewed (no nested quantifiers), so they keep
 * JavaScript's engine and its lookarounds. Any other source is the user's.
 */
const BUILTIN_SOURCES: ReadonlySet<string> = new Set(
  Object.values(BUILTIN_PRESETS).flatMap((p) => [
    ...(p.pattern !== undefined ? [p.pattern] : []),
    ...(p.continuation !== undefined ? [p.continuation] : []),
    ...REGEX_LIST_FIELDS.flatMap((f) => p[f] ?? []),
  ]),
);

/**
 * Compiles one regex source, or throws a PresetError naming the field and the problem. A
 * built-in preset's source becomes a RegExp; any other runs on the linear-time engine (see
 * user-regex.ts), so no user pattern can stall detection.
 */
export function compileRegex(source: string, where: string): LineRegex {
  if (/[\n\r]/.test(source)) {
    throw new PresetError(
      `${where} contains a literal newline: prompt patterns are matched one line at a time, so a multi-line pattern can never match`,
    );
  }
  let native: RegExp;
  try {
    native = new RegExp(source, 'u');
  } catch (err) {
    throw new PresetError(`${where} is not a valid regular expression: ${(err as Error).message}`);
  }
  if (BUILTIN_SOURCES.has(source)) return native;
  try {
    return compileUserRegex(source);
  } catch (err) {
    if (!(err instanceof UnsupportedRegexError)) throw err;
    throw new PresetError(`${where} ${err.message}`);
  }
}

const compiledCache = new WeakMap<Preset, CompiledPreset>();

/** Validates and compiles a preset (cached per preset object). */
export function compilePreset(preset: Preset): CompiledPreset {
  const cached = compiledCache.get(preset);
  if (cached) return cached;
  const frozen = freezePreset(preset);
  const label = `preset "${preset.name}"`;
  if (preset.kind === 'line' && !preset.pattern)
    throw new PresetError(`${label} is a line preset without a pattern`);
  if (preset.kind === 'screen' && !(preset.idle && preset.idle.length > 0)) {
    throw new PresetError(`${label} is a screen preset without idle markers`);
  }
  const lists = {} as Record<(typeof REGEX_LIST_FIELDS)[number], LineRegex[]>;
  for (const field of REGEX_LIST_FIELDS) {
    lists[field] = (preset[field] ?? []).map((src, i) =>
      compileRegex(src, `${label} ${field}[${i}]`),
    );
  }
  const pattern =
    preset.pattern !== undefined ? compileRegex(preset.pattern, `${label} pattern`) : null;
  const compiled: CompiledPreset = {
    preset: frozen,
    pattern,
    // Only for RegExp patterns: a multi-line scan costs the linear engine more than its per-line tests.
    linePrefilter:
      pattern instanceof RegExp && !/\(\?<?[=!]/.test(pattern.source)
        ? new RegExp(pattern.source, 'gmu')
        : null,
    continuation:
      preset.continuation !== undefined
        ? compileRegex(preset.continuation, `${label} continuation`)
        : null,
    ...lists,
    inputLine: lists.inputLine.length > 0 ? lists.inputLine : lists.idle,
    bottomLines: preset.bottomLines ?? (preset.kind === 'line' ? 1 : DEFAULT_BOTTOM_LINES),
    settleMs: preset.settleMs ?? SCREEN_SETTLE_MS,
    emptyAnswerMs: Math.max(
      preset.settleMs ?? SCREEN_SETTLE_MS,
      preset.emptyAnswerMs ?? SCREEN_SETTLE_MS,
    ),
    answerRedrawMs: preset.answerRedrawMs ?? 0,
  };
  compiledCache.set(preset, compiled);
  compiledCache.set(frozen, compiled);
  return compiled;
}

/** A deep, frozen copy: later changes to the caller's object never reach a running session. */
export function freezePreset(preset: Preset): Readonly<Preset> {
  const copy: Preset = { ...preset, checkedOn: [...(preset.checkedOn ?? [])] };
  for (const field of REGEX_LIST_FIELDS) {
    const list = preset[field];
    if (list) copy[field] = Object.freeze([...list]) as string[];
  }
  if (typeof preset.multiline === 'object') copy.multiline = Object.freeze({ ...preset.multiline });
  if (preset.interruptKeys)
    copy.interruptKeys = Object.freeze([...preset.interruptKeys]) as string[];
  Object.freeze(copy.checkedOn);
  return Object.freeze(copy);
}

export interface ResolveOptions {
  /** A custom prompt regex (`--pattern`): makes the result a line preset with this pattern. */
  pattern?: string;
  /** The user's presets.json (validated with UserPresetsSchema): overrides and additions. */
  userPresets?: Record<string, Partial<Preset> & { extends?: string }>;
}

/** All preset names known with these user presets, sorted. */
export function presetNames(userPresets?: ResolveOptions['userPresets']): string[] {
  return [...new Set([...Object.keys(BUILTIN_PRESETS), ...Object.keys(userPresets ?? {})])].sort();
}

/**
 * Resolves a preset by name (default `generic`), applying the user's overrides and a custom
 * pattern, and validates every regex. Throws PresetError with a message meant for the user.
 */
export function resolvePreset(name: string | undefined, opts: ResolveOptions = {}): Preset {
  const user = opts.userPresets ?? {};
  let preset: Preset;
  if (name === undefined && opts.pattern !== undefined) {
    preset = {
      name: 'custom',
      kind: 'line',
      description: 'Custom prompt pattern given on the command line.',
      checkedOn: [],
      pattern: opts.pattern,
      model: 'unknown',
      provider: 'unknown',
    };
  } else {
    preset = lookup(name ?? 'generic', user, new Set());
  }
  if (opts.pattern !== undefined) preset = { ...preset, kind: 'line', pattern: opts.pattern };
  // Compiling validates every regex now, at configuration time, not mid-session.
  return compilePreset(preset).preset as Preset;
}

function lookup(
  name: string,
  user: NonNullable<ResolveOptions['userPresets']>,
  seen: Set<string>,
): Preset {
  if (seen.has(name))
    throw new PresetError(`preset "${name}" extends itself (through ${[...seen].join(' → ')})`);
  seen.add(name);
  const own = Object.hasOwn(user, name) ? (user[name] as UserPreset) : undefined;
  const builtin = Object.hasOwn(BUILTIN_PRESETS, name) ? BUILTIN_PRESETS[name] : undefined;
  if (!own && !builtin) {
    throw new PresetError(
      `unknown preset "${name}"; known presets: ${presetNames(user).join(', ')}`,
    );
  }
  if (!own) return builtin!;
  let base: Preset | undefined = builtin;
  if (own.extends !== undefined) {
    base = own.extends === name ? builtin : lookup(own.extends, user, seen);
    if (!base) throw new PresetError(`preset "${name}" extends unknown preset "${own.extends}"`);
  }
  const { extends: _ext, ...fields } = own;
  const merged = {
    ...(base ?? {
      description: 'User preset.',
      checkedOn: [],
      model: 'unknown',
      provider: 'unknown',
    }),
    ...fields,
    name,
  } as Preset;
  if (merged.kind !== 'line' && merged.kind !== 'screen') {
    throw new PresetError(
      `preset "${name}" needs "kind": "line" or "screen" (or "extends" a preset that has one)`,
    );
  }
  return merged;
}

/** Validates the content of a presets.json file; throws PresetError naming every problem. */
export function parseUserPresets(json: unknown, source = 'presets.json'): UserPresets {
  const parsed = UserPresetsSchema.safeParse(json);
  if (!parsed.success) throw new PresetError(`${source}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
