/**
 * Terms of a goal written in a user's words, in the form identifiers are compared in:
 * lowercase, camelCase/snake_case split, stopwords and task words dropped, lightly stemmed.
 */

/** English function words and the words of a task request that name no code. */
const STOPWORDS = new Set(
  `a about above after again against all also am an and any are as at be because been before being
  below between both but by can could did do does doing done down during each either else etc
  every few for from further get gets getting got had has have having he her here hers him his how
  i if in into is it its itself just let like me more most my no nor not now of off on once only
  or other our out over own please same she should so some such than that the their them then
  there these they this those through to too under until up us very via was we were what when
  where which while who whom why will with within without would you your yours
  add adding bug bugs broken change changes code correct correctly debug does doesnt dont ensure
  error-free feature file files fix fixes fixed fixing find help implement implementation improve
  issue issues look make makes need needs new problem problems properly someone something support
  task thing things understand want wants way work works working wrong`
    .split(/\s+/)
    .filter(Boolean),
);

/** Extensions of source files a goal may name (`multistream.js`, `core.py`). */
const SOURCE_EXTENSIONS =
  'ts|tsx|js|jsx|mjs|cjs|py|go|rs|rb|java|kt|c|h|cc|cpp|hpp|cs|php|swift|lua|sh';
const SOURCE_EXT = new RegExp(`\\.(${SOURCE_EXTENSIONS})$`, 'i');
/** The same ending a word of a goal: not a term of its own ("ts" would match every .ts file). */
const SOURCE_EXT_IN_TEXT = new RegExp(`\\.(${SOURCE_EXTENSIONS})\\b`, 'gi');

/** Light stemming (suffix stripping), applied alike to goal words and identifier parts. */
export function stem(word: string): string {
  let w = word;
  if (w.length > 5 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 4 && /(ss|x|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us'))
    w = w.slice(0, -1);
  // "refreshing" → "refresh", "parsed" → "pars" vs "parse" → "pars": drop a final e so they meet.
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/**
 * Splits an identifier or path into lowercase words: `refreshToken_v2` → refresh, token, v2;
 * `HTTPServer` → http, server. (A scan, not regular expressions: it runs on every identifier of
 * a repository.)
 */
export function splitWords(text: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0;
    const upper = c >= 65 && c <= 90;
    if (!(upper || (c >= 97 && c <= 122) || (c >= 48 && c <= 57))) {
      if (start >= 0) out.push(text.slice(start, i).toLowerCase());
      start = -1;
    } else if (start < 0) start = i;
    else if (upper) {
      // A word starts at a capital after a lowercase letter or digit (camelCase), or at the
      // last capital of a run followed by a lowercase letter (HTTPServer).
      const p = text.charCodeAt(i - 1);
      const n = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      const afterLower = (p >= 97 && p <= 122) || (p >= 48 && p <= 57);
      const runEnds = p >= 65 && p <= 90 && n >= 97 && n <= 122;
      if (afterLower || runEnds) {
        out.push(text.slice(start, i).toLowerCase());
        start = i;
      }
    }
  }
  return out;
}

/** The distinct, stemmed content words of a goal (order kept, at least 2 characters). */
export function goalTerms(goal: string): string[] {
  const out: string[] = [];
  for (const word of splitWords(goal.replace(SOURCE_EXT_IN_TEXT, ' '))) {
    if (STOPWORDS.has(word) || word.length < 2 || /^\d+$/.test(word)) continue;
    const s = stem(word);
    if (!out.includes(s)) out.push(s);
  }
  return out;
}

/** Stemmed words of an identifier, path or comment. */
export function identifierTerms(text: string): string[] {
  return splitWords(text).map(stem);
}

/**
 * Whether a goal term names an identifier word: equal stems, or a prefix of at least 4
 * characters ("auth" names "authenticate", "config" names "configuration").
 */
export function termMatches(term: string, word: string): boolean {
  if (term === word) return true;
  if (term.length >= 4 && word.startsWith(term)) return true;
  if (word.length >= 4 && term.startsWith(word) && word.length >= term.length - 3) return true;
  return false;
}

/**
 * Identifier-like words of a goal, lowercased: camelCase, snake_case and CONSTANT names, the
 * members of dotted names (`res.sendFile` → sendfile), words in backticks and calls (`tool()`).
 * They are looked up whole among definitions and in file texts.
 */
export function goalIdentifiers(goal: string): string[] {
  const out = new Set<string>();
  const add = (w: string) => {
    const l = w.toLowerCase();
    if (l.length >= 3 && !STOPWORDS.has(l)) out.add(l);
  };
  for (const m of goal.matchAll(/`([^`]+)`/g))
    for (const w of m[1]!.match(/[A-Za-z_$][\w$]*/g) ?? []) add(w);
  for (const m of goal.matchAll(/[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+/g))
    for (const w of m[0].split('.').slice(1)) add(w);
  // A call names code; `feat(dev):` is a commit's scope, not a call.
  for (const m of goal.matchAll(/([A-Za-z_$][\w$]*)\((?![^)]*\)!?:)/g)) add(m[1]!);
  for (const m of goal.matchAll(/[A-Za-z_$][\w$]*/g)) {
    const w = m[0];
    if (
      /[a-z][A-Z]/.test(w) ||
      /^[A-Z]{2,}[a-z]/.test(w) ||
      /[A-Za-z]_[A-Za-z]/.test(w) ||
      /^[A-Z][A-Z0-9_]{2,}$/.test(w)
    )
      add(w);
  }
  return [...out];
}

/**
 * Parts of the repository a goal names, as lowercase path segments: paths and file names
 * (`lib/multistream.js`, `utils/body`) and the scope of a commit-style subject (`fix(cors): …`
 * names the cors module). A file whose path holds those segments in a row is in that part.
 */
export function goalAreas(goal: string): string[][] {
  const out: string[][] = [];
  const add = (raw: string) => {
    const segs = raw
      .replace(/[.]+$/, '')
      .toLowerCase()
      .replace(SOURCE_EXT, '')
      .split('/')
      .filter((s) => /^[\w.-]+$/.test(s) && s !== '.' && s !== '..');
    if (
      segs.length &&
      segs.join('/').length >= 2 &&
      !out.some((o) => o.join('/') === segs.join('/'))
    )
      out.push(segs);
  };
  const scope = /^\s*\w+\(([^)]+)\)!?:/.exec(goal);
  if (scope) for (const s of scope[1]!.split(/[,\s]+/)) if (s) add(s);
  for (const m of goal.matchAll(
    /(?:^|[\s`'"(])((?:[\w.-]+\/)+[\w.-]+|[\w-]+\.[A-Za-z]{1,4})(?=$|[\s`'",):;])/g,
  ))
    if (m[1]!.includes('/') || SOURCE_EXT.test(m[1]!)) add(m[1]!);
  return out;
}

/** Whether a path lies in an area: its segments (the file's without extension) hold the area's in a row. */
export function inArea(path: string, area: string[]): boolean {
  const segs = path.toLowerCase().split('/');
  segs[segs.length - 1] = segs[segs.length - 1]!.replace(/\.[^.]*$/, '');
  for (let i = 0; i + area.length <= segs.length; i++)
    if (area.every((a, k) => segs[i + k] === a)) return true;
  return false;
}

/**
 * How the goal spells each of its terms and identifiers (`remov` → remove, `trpcerror` →
 * TRPCError), for reasons a user reads.
 */
export function termLabels(goal: string): Map<string, string> {
  const labels = new Map<string, string>();
  for (const m of goal.matchAll(/[A-Za-z_$][\w$]*/g)) {
    const word = m[0];
    const lower = word.toLowerCase();
    if (!labels.has(lower)) labels.set(lower, word);
    for (const w of splitWords(word)) {
      const s = stem(w);
      if (!labels.has(s)) labels.set(s, w);
    }
  }
  return labels;
}
