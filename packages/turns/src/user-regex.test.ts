import { describe, expect, it } from 'vitest';
import { BUILTIN_PRESETS } from './builtin-presets.js';
import { compilePreset, compileRegex, PresetError, resolvePreset } from './presets.js';
import { compileUserRegex, toRe2Syntax } from './user-regex.js';

/** Compiles a `--pattern` the way `clippy new` does and returns the compiled prompt regex. */
function userPattern(pattern: string) {
  return compilePreset(resolvePreset(undefined, { pattern })).pattern!;
}

describe('user patterns run on the linear-time engine', () => {
  it('refuses lookaround and backreferences at configuration time, naming the construct', () => {
    const refused: [string, RegExp][] = [
      ['(?=x)y', /lookahead "\(\?=…\)"/],
      ['^(?!#)\\$ $', /negative lookahead "\(\?!…\)"/],
      ['(?<=x)y', /lookbehind "\(\?<=…\)"/],
      ['(?<!x)> $', /negative lookbehind "\(\?<!…\)"/],
      ['(a)\\1> $', /backreference "\\1"/],
      ['(?<q>a)\\k<q>', /named backreference "\\k<q>"/],
    ];
    for (const [pattern, construct] of refused) {
      let error: unknown;
      try {
        resolvePreset(undefined, { pattern });
      } catch (err) {
        error = err;
      }
      expect(error, pattern).toBeInstanceOf(PresetError);
      const message = (error as Error).message;
      expect(message, pattern).toMatch(/^preset "custom" pattern uses /);
      expect(message, pattern).toMatch(construct);
      expect(message, pattern).toMatch(/linear-time engine/);
    }
  });

  it('refuses them in a user preset from presets.json too, naming the preset and field', () => {
    expect(() =>
      resolvePreset('mine', {
        userPresets: { mine: { extends: 'claude', idle: ['^> (?=\\S)'] } },
      }),
    ).toThrow(/^preset "mine" idle\[0\] uses a lookahead/);
  });

  it('keeps the syntax errors and the newline rule of JavaScript regexes', () => {
    expect(() => resolvePreset(undefined, { pattern: '([' })).toThrow(
      /pattern is not a valid regular expression/,
    );
    expect(() => resolvePreset(undefined, { pattern: 'a\nb' })).toThrow(/literal newline/);
    expect(() => resolvePreset(undefined, { pattern: 'a{2000}' })).toThrow(
      /cannot be run by the linear-time engine: .*repe/,
    );
  });

  it('does not mistake escaped or bracketed parentheses and digits for refused constructs', () => {
    for (const [pattern, line] of [
      ['\\(\\?=\\) $', '(?=) '],
      ['[(?=!<]+> $', '(?=!<> '],
      ['\\\\1> $', '\\1> '],
    ] as const) {
      expect(userPattern(pattern).test(line), pattern).toBe(true);
    }
  });

  it('matches ordinary prompt patterns exactly as JavaScript does', () => {
    const lines = [
      '$ ',
      'user@host:~$ ',
      'user@host:~/src$ ',
      '>>> ',
      '... ',
      '> ',
      'aider> ',
      'PROMPT$ ',
      '➜  repo git:(main) ',
      '❯ ',
      '% ',
      'root# ',
      'a\u00a0$ ',
      'tab\t> ',
      'vt\u000b> ',
      'cr\rprompt$ ',
      'x\u2028$ ',
      '😀 ',
      'Ünïcode> ',
      'output line 12 with words',
      'not a prompt $x',
      '',
      'ends with backspace\b',
      'ctrl-A\u0001',
      'nul\u0000',
      'path/to> ',
      'ABC',
      'Δelta> ',
    ];
    const patterns = [
      '^\\$ $',
      '>>> $',
      '[$#%>❯➜»] $',
      '(?:[%#$❯] |^➜ .* )$',
      '^(?<user>\\w+)@\\w+:.*\\$ $',
      '^\\w+@[^:]+:[~/\\w]*[$#] $',
      '\\s[$>]\\s$',
      '\\S+> $',
      '^.{1,12}> $',
      '^[^]*\\$ $',
      '^[]?\\$ $',
      '\\u276F $',
      '\\u{1F600} $',
      '\\uD83D\\uDE00 $',
      '\\p{Lu}\\p{Ll}+> $',
      '\\p{Script=Greek}',
      '\\P{L}> $',
      '[\\s\\d]> $',
      '\\bprompt\\b',
      '\\Bend',
      'path\\/to> $',
      '\\x41',
      '\\cA',
      '\\0',
      '[\\b]',
      '[[:a]+',
      '^(?:>|\\.\\.\\.) $',
      '^(?:[a-z][\\w-]*)?(?: ?multi)?> $',
      '^\\w+\\s*\\$?\\s*$',
      '(?:\\$|#|%) +$',
      '^.*?> $',
      '[^\\n]*\\$ $',
      '^(\\w+\\s?)+> $',
    ];
    for (const pattern of patterns) {
      const native = new RegExp(pattern, 'u');
      // Built-in sources among these would get RegExp from the preset path: compile directly.
      const linear = compileUserRegex(pattern);
      expect(linear.source).toBe(pattern);
      for (const line of lines)
        expect(linear.test(line), `${pattern} on ${JSON.stringify(line)}`).toBe(native.test(line));
    }
  });

  it('runs a pattern with nested quantifiers on a long killer line (backtracking takes 2^n steps)', () => {
    const evil = userPattern('^(\\w+\\s?)+> $');
    expect(evil.test(`${'w'.repeat(100_000)}!`)).toBe(false);
    expect(evil.test(`${'w '.repeat(50_000)}!> `)).toBe(false);
    expect(evil.test(`${'w '.repeat(50_000)}> `)).toBe(true);
  });

  it('keeps JavaScript regexes for the reviewed built-in presets (some use lookaround)', () => {
    for (const preset of Object.values(BUILTIN_PRESETS)) {
      const c = compilePreset(preset);
      if (c.pattern) expect(c.pattern, preset.name).toBeInstanceOf(RegExp);
      for (const re of [...c.idle, ...c.busy, ...c.blocked, ...c.chrome])
        expect(re, `${preset.name} ${re.source}`).toBeInstanceOf(RegExp);
    }
    // The same reviewed source, given again by the user, is still the reviewed regex.
    expect(compileRegex(BUILTIN_PRESETS.bash!.pattern!, 'pattern')).toBeInstanceOf(RegExp);
    expect(compileRegex('[$#] $x', 'pattern')).not.toBeInstanceOf(RegExp);
  });

  it('translates JavaScript-only syntax to RE2', () => {
    expect(toRe2Syntax('(?<name>a)')).toBe('(?P<name>a)');
    expect(toRe2Syntax('\\u00e9\\/')).toBe('\\x{E9}/');
    expect(compileUserRegex('(?<name>\\w+)> $').test('me> ')).toBe(true);
  });
});
