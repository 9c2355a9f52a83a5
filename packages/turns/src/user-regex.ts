// User-supplied regexes (`--pattern`, presets.json, a client's preset) run on every line of a
// session's output. JavaScript's RegExp backtracks: a pattern with nested quantifiers such as
// `^(\w+\s?)+> $` takes 2^n steps on a line of n word characters, and detection shares one
// worker thread, so one such pattern would stop turn detection for every session. User
// regexes therefore run on re2js (a port of RE2: time linear in the line, whatever the
// pattern). Their syntax stays JavaScript's (`u` flag): they are translated here, and what a
// linear-time engine cannot run (lookaround, backreferences) is refused with its name.
import { RE2JS } from 're2js';

/** What the turn engine needs of a compiled regex: RegExp has it, and so does a linear one. */
export interface LineRegex {
  /** The regex as the user (or the built-in preset) wrote it. */
  readonly source: string;
  test(line: string): boolean;
}

/** A user regex the linear-time engine cannot run; the message names the construct. */
export class UnsupportedRegexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedRegexError';
  }
}

/** JavaScript's `\s` (ASCII whitespace, \v, Unicode space separators, line/paragraph separators, BOM) in RE2 class syntax, without brackets. */
const JS_SPACE = String.raw`\t\n\x{0B}\f\r\p{Zs}\x{2028}\x{2029}\x{FEFF}`;
/** JavaScript's `.` without the `s` flag: anything but a line terminator. */
const JS_DOT = String.raw`[^\n\r\x{2028}\x{2029}]`;
/** Every code point (JavaScript's `[^]`). */
const ANY = String.raw`\x{0}-\x{10FFFF}`;

const LOOKAROUND: Record<string, string> = {
  '(?=': 'a lookahead "(?=…)"',
  '(?!': 'a negative lookahead "(?!…)"',
  '(?<=': 'a lookbehind "(?<=…)"',
  '(?<!': 'a negative lookbehind "(?<!…)"',
};

/** Why a construct is refused, after its name. */
const NOT_LINEAR =
  'which needs a backtracking engine; user patterns run on a linear-time engine (RE2 syntax rules) so that no pattern can stall turn detection';

/**
 * Compiles a user regex (JavaScript syntax, already checked by `new RegExp(source, 'u')`) for
 * the linear-time engine. Throws UnsupportedRegexError naming what it cannot run.
 */
export function compileUserRegex(source: string): LineRegex {
  const translated = toRe2Syntax(source);
  let re: RE2JS;
  try {
    re = RE2JS.compile(translated);
  } catch (err) {
    throw new UnsupportedRegexError(
      `cannot be run by the linear-time engine: ${(err as Error).message}`,
    );
  }
  return { source, test: (line) => re.test(line) };
}

/**
 * Rewrites a valid JavaScript (`u` flag) regex in RE2's syntax with the same meaning: named
 * groups, `\u` escapes, and the classes whose meaning differs (`\s`, `.`, `[^]`) are spelled
 * out; lookaround and backreferences are refused.
 */
export function toRe2Syntax(source: string): string {
  let out = '';
  let inClass = false;
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === '\\') {
      const [text, next] = escape(source, i, inClass);
      out += text;
      i = next;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      // A `[` inside a class is a literal in JavaScript; RE2 would read `[:alpha:]` in it.
      out += ch === '[' ? '\\[' : ch;
      i++;
      continue;
    }
    if (ch === '[') {
      const negated = source[i + 1] === '^';
      const start = negated ? i + 2 : i + 1;
      if (source[start] === ']') {
        // `[]` matches nothing and `[^]` anything: RE2 has no empty class.
        out += negated ? `[${ANY}]` : `[^${ANY}]`;
        i = start + 1;
        continue;
      }
      out += negated ? '[^' : '[';
      inClass = true;
      i = start;
      continue;
    }
    if (ch === '(') {
      const around = Object.keys(LOOKAROUND).find((k) => source.startsWith(k, i));
      if (around) throw new UnsupportedRegexError(`uses ${LOOKAROUND[around]}, ${NOT_LINEAR}`);
      if (source.startsWith('(?<', i)) {
        out += '(?P<';
        i += 3;
        continue;
      }
    }
    out += ch === '.' ? JS_DOT : ch;
    i++;
  }
  return out;
}

/** One escape at `source[i]` (a backslash): its RE2 spelling and the index after it. */
function escape(source: string, i: number, inClass: boolean): [string, number] {
  const c = source[i + 1]!;
  if (c >= '1' && c <= '9') {
    const digits = /^\d+/.exec(source.slice(i + 1))![0];
    throw new UnsupportedRegexError(`uses a backreference "\\${digits}", ${NOT_LINEAR}`);
  }
  switch (c) {
    case 'k': {
      const name = /^k<[^>]*>/.exec(source.slice(i + 1))?.[0] ?? 'k';
      throw new UnsupportedRegexError(`uses a named backreference "\\${name}", ${NOT_LINEAR}`);
    }
    case '0':
      return ['\\x{0}', i + 2];
    case 'c':
      return [hex(source.charCodeAt(i + 2) % 32), i + 3];
    case 'u':
      return unicodeEscape(source, i);
    case 's':
      return [inClass ? JS_SPACE : `[${JS_SPACE}]`, i + 2];
    case 'S':
      if (inClass)
        throw new UnsupportedRegexError(
          String.raw`uses "\S" inside a character class, which the linear-time engine cannot combine with other members; write the class without it (e.g. "(?:\S|[…])")`,
        );
      return [`[^${JS_SPACE}]`, i + 2];
    case 'b':
      // Inside a class `\b` is a backspace; outside, a word boundary (ASCII in both engines).
      return [inClass ? '\\x{8}' : '\\b', i + 2];
    case '/':
      return ['/', i + 2];
    case 'p':
    case 'P': {
      const body = /^[pP]\{([^}]*)\}/.exec(source.slice(i + 1));
      if (!body) return [`\\${c}`, i + 2];
      // `Script=Greek` / `gc=Lu` are plain names in RE2.
      const name = body[1]!.replace(/^(?:Script|sc|General_Category|gc)=/, '');
      return [`\\${c}{${name}}`, i + 1 + body[0].length];
    }
    default:
      // \d \D \w \W \B \t \n \r \f \v \xHH and escaped punctuation mean the same in RE2.
      return [`\\${c}`, i + 2];
  }
}

/** `\uHHHH` (a surrogate pair of two such escapes is one code point) or `\u{H…}`. */
function unicodeEscape(source: string, i: number): [string, number] {
  const braced = /^u\{([0-9A-Fa-f]+)\}/.exec(source.slice(i + 1));
  if (braced) return [`\\x{${braced[1]}}`, i + 1 + braced[0].length];
  const code = parseInt(source.slice(i + 2, i + 6), 16);
  const low = /^\\u([0-9A-Fa-f]{4})/.exec(source.slice(i + 6))?.[1];
  if (code >= 0xd800 && code <= 0xdbff && low !== undefined) {
    const lo = parseInt(low, 16);
    if (lo >= 0xdc00 && lo <= 0xdfff)
      return [hex(0x10000 + ((code - 0xd800) << 10) + (lo - 0xdc00)), i + 12];
  }
  return [hex(code), i + 6];
}

function hex(code: number): string {
  return `\\x{${code.toString(16).toUpperCase()}}`;
}
