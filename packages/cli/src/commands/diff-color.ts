// A patch coloured byte for byte as git colours it with its default colours (`color.diff.*`
// unset, `core.whitespace` its default: trailing whitespace and a space before a tab in the
// indent are errors on added lines). Used for what clippy writes itself (new files git does not
// track yet, files moved by hand) beside git's own coloured output, and for a patch read from a
// daemon on another machine. One thing needs the whole files and is left out: git's mark of blank
// lines added at the end of a file (never shown for a new file, so none is missed there).

/** SGR sequences of git's default colours (color.c). */
const META = '\x1b[1m';
const FRAG = '\x1b[36m';
const OLD = '\x1b[31m';
const NEW = '\x1b[32m';
const WHITESPACE = '\x1b[41m';
const RESET = '\x1b[m';

/** git's isspace (sane_ctype): space, tab, LF and CR; not VT nor FF. */
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/**
 * An added line's text after its `+`, as git's ws_check_emit writes it: a tab in the indent
 * after spaces marks those spaces, a correct indent's tabs are plain, then the text in green,
 * then trailing whitespace marked.
 */
function addedText(text: string): string {
  let trailing = text.length;
  while (trailing > 0 && isSpace(text[trailing - 1]!)) trailing--;
  let out = '';
  let written = 0;
  for (let i = 0; i < trailing; i++) {
    if (text[i] === ' ') continue;
    if (text[i] !== '\t') break;
    if (written < i) out += `${WHITESPACE}${text.slice(written, i)}${RESET}\t`;
    else out += text.slice(written, i + 1);
    written = i + 1;
  }
  if (trailing > written) out += `${NEW}${text.slice(written, trailing)}${RESET}`;
  if (trailing < text.length) out += `${WHITESPACE}${text.slice(trailing)}${RESET}`;
  return out;
}

/** A `@@ -a,b +c,d @@ func` line: the range cyan, then the blank and the function, each reset. */
function hunkHeader(line: string): string {
  const end = line.length >= 10 ? line.indexOf('@@', 2) : -1;
  if (end < 0) return line;
  const cr = line.endsWith('\r') ? '\r' : '';
  const body = cr ? line.slice(0, -1) : line;
  let at = end + 2;
  let out = `${FRAG}${body.slice(0, at)}${RESET}`;
  const blank = /^[ \t]*/u.exec(body.slice(at))![0];
  if (blank) out += `${blank}${RESET}`;
  at += blank.length;
  if (at < body.length) out += `${body.slice(at)}${RESET}`;
  return out + cr;
}

/** A line painted `color` up to a trailing CR, which git writes after the reset. */
function painted(color: string, line: string): string {
  return line.endsWith('\r') ? `${color}${line.slice(0, -1)}${RESET}\r` : `${color}${line}${RESET}`;
}

/**
 * Colours the lines of a patch (no newlines) as git does. A file's header runs from its
 * `diff --git` line to its first hunk; a hunk's lines start with ` `, `+`, `-` or `\`.
 */
export function coloredPatchLines(lines: readonly string[]): string[] {
  let inHunk = false;
  return lines.map((line) => {
    if (line.startsWith('diff --git ')) inHunk = false;
    else if (line.startsWith('@@')) inHunk = true;
    else if (inHunk && !/^[ +\-\\]/u.test(line)) inHunk = false;
    if (line.startsWith('@@')) return hunkHeader(line);
    if (!inHunk) {
      if (line.startsWith('Binary files ')) return line;
      // A name with a space ends with a tab, which git writes after the reset.
      if (/^(?:---|\+\+\+) .*\t$/u.test(line)) return `${META}${line.slice(0, -1)}${RESET}\t`;
      return `${META}${line}${RESET}`;
    }
    if (line.startsWith('+')) return `${NEW}+${RESET}${addedText(line.slice(1))}`;
    if (line.startsWith('-')) return painted(OLD, line);
    return painted('', line);
  });
}

/** A whole patch text (lines ending in newlines) coloured as git does. */
export function coloredPatch(text: string): string {
  const lines = text.split('\n');
  const last = lines.pop(); // '' after the final newline
  return `${coloredPatchLines(lines).join('\n')}\n${last ?? ''}`;
}
