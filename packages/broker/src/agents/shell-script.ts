/**
 * The last command of a `sh -c` script, found so that clippy can change that command's words and
 * keep every other byte of the script as the user wrote it.
 *
 * Only a small subset of the shell language is taken: commands separated by `;`, `&&`, `||`,
 * `&`, `|` or newlines, with words quoted by `'…'`, `"…"` and backslashes. A script holding
 * anything whose extent this scanner cannot know (subshells, command substitution, here-docs)
 * is not taken at all, and the last command's words must be plain text (no `$`, globs, `~` or
 * redirection): its meaning is then exactly its words. A library parser (shell-quote) gives the
 * words but not where they sit in the script, and the earlier commands must stay byte for byte
 * (their `$VAR` and `~` mean what the user meant).
 */

/** The script's last command: its words, and where it sits in the script. */
export interface LastCommand {
  words: string[];
  start: number;
  end: number;
}

/** Characters that make an unquoted word more than its text. */
const EXPANDS = /[$*?[\]{}~#`]/u;

interface Segment {
  words: string[];
  start: number;
  end: number;
  /** Why its words are not plain text (null: they are). */
  special: string | null;
  /** The operator before it (null: the script's first command). */
  after: string | null;
}

/**
 * The script's last command, or why the script is not one clippy can see through.
 * `lastCommand("cd x && claude --model m")` → words `["claude", "--model", "m"]`.
 */
export function lastCommand(script: string): LastCommand | { why: string } {
  const segments: Segment[] = [];
  let seg: Segment = { words: [], start: -1, end: -1, special: null, after: null };
  let word = null as string | null;
  const endWord = (at: number) => {
    if (word === null) return;
    seg.words.push(word);
    seg.end = at;
    word = null;
  };
  /** Text of the word being read (which starts at `at` when it is the segment's first). */
  const add = (at: number, text: string) => {
    if (seg.start < 0) seg.start = at;
    word = (word ?? '') + text;
  };
  const endSegment = (op: string) => {
    if (seg.words.length > 0 || seg.special) segments.push(seg);
    seg = { words: [], start: -1, end: -1, special: null, after: op };
  };
  let i = 0;
  const n = script.length;
  while (i < n) {
    const c = script[i]!;
    if (c === ' ' || c === '\t') {
      endWord(i);
      i++;
      continue;
    }
    if (c === '\n' || c === ';' || c === '&' || c === '|') {
      endWord(i);
      const two = script.slice(i, i + 2);
      if (two === ';;') return { why: 'its script has a case statement' };
      const op = two === '&&' || two === '||' ? two : c;
      endSegment(op);
      i += op.length;
      continue;
    }
    if (c === '(' || c === ')') return { why: 'its script has a subshell or function' };
    if (c === '`' || script.startsWith('$(', i))
      return { why: 'its script has a command substitution' };
    if (script.startsWith('<<', i)) return { why: 'its script has a here-document' };
    if (c === '<' || c === '>') {
      endWord(i);
      seg.special ??= 'a redirection';
      if (seg.start < 0) seg.start = i;
      i++;
      continue;
    }
    if (c === '#' && word === null) {
      // A comment: to the end of the line.
      const nl = script.indexOf('\n', i);
      i = nl < 0 ? n : nl;
      continue;
    }
    if (c === "'") {
      const close = script.indexOf("'", i + 1);
      if (close < 0) return { why: 'its script has an unclosed quote' };
      add(i, script.slice(i + 1, close));
      i = close + 1;
      continue;
    }
    if (c === '"') {
      add(i, '');
      let j = i + 1;
      for (; j < n && script[j] !== '"'; j++) {
        const d = script[j]!;
        if (d === '\\' && j + 1 < n && '$`"\\\n'.includes(script[j + 1]!)) {
          if (script[j + 1] !== '\n') add(i, script[j + 1]!);
          j++;
          continue;
        }
        if (d === '`' || (d === '$' && script[j + 1] === '('))
          return { why: 'its script has a command substitution' };
        if (d === '$') seg.special ??= 'a variable';
        add(i, d);
      }
      if (j >= n) return { why: 'its script has an unclosed quote' };
      i = j + 1;
      continue;
    }
    if (c === '\\') {
      if (i + 1 >= n) return { why: 'its script ends with a backslash' };
      // A backslash-newline joins lines; any other escaped character is itself.
      if (script[i + 1] !== '\n') add(i, script[i + 1]!);
      i += 2;
      continue;
    }
    if (EXPANDS.test(c) && !(c === '#' && word !== null)) {
      seg.special ??= c === '$' ? 'a variable' : `'${c}'`;
    }
    add(i, c);
    i++;
  }
  endWord(n);
  endSegment('');
  const last = segments.at(-1);
  if (!last || last.words.length === 0) return { why: 'its script runs no command' };
  if (last.after === '|') return { why: 'its script pipes into the command' };
  if (last.special) return { why: `its command has ${last.special}` };
  return { words: last.words, start: last.start, end: last.end };
}
