// The navigator's measure run in one process, with what the end-to-end eval does not show: where
// each gold file ranks, recall at k of the ranking, and a plain BM25 over path (x3) + content as
// the comparison. The planner figures (gold at L3/L4, files at L3/L4) match `npm run
// eval:navigator` (same trees, same budget, the final plan rendered on its own); it takes seconds
// instead of minutes, so a ranking change can be measured on more than one set of cases.
//
//   npx tsx --conditions=source scripts/eval-navigator-ranking.ts [CASES.json] [--mirror DIR] [-v]
//
// CASES defaults to ../shared/eval/navigator-devset.json; each case's parent commit is checked
// out from MIRROR/<owner>+<name>/repo (as the eval does) into $TMPDIR/navigator-eval. Measures,
// never asserts.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { goalTerms, navigate, OfflinePlanner, scoreFiles, splitWords } from '@clippy/navigator';
import { indexRepository, referenceGraph, renderMap, type RepoIndex } from '@clippy/repomap';

interface Case {
  repo: string;
  parent: string;
  goal: string;
  gold: string[];
}

/** The issue's budget. */
const BUDGET = 20_000;
/** BM25 parameters (the usual defaults) and the path's weight in the baseline. */
const BM25_K1 = 1.2;
const BM25_B = 0.75;
const PATH_REPEAT = 3;
/** Words a commit subject shares with every file: not query words for the baseline. */
const BASELINE_STOPWORDS = new Set(
  'a an the of to in for and or with fix fixes fixed feat add on is be by from as at it this that not when if use'.split(
    ' ',
  ),
);
/** Ranks reported for recall at k. */
const KS = [1, 3, 5, 10, 20];

const args = process.argv.slice(2);
const verbose = args.includes('-v');
const mirrorAt = args.indexOf('--mirror');
const root = process.cwd();
const mirror = mirrorAt >= 0 ? args[mirrorAt + 1]! : path.join(root, '..', '.mirror');
const casesFile =
  args.find((a, i) => !a.startsWith('-') && args[i - 1] !== '--mirror') ??
  path.join(root, '..', 'shared', 'eval', 'navigator-devset.json');
if (!fs.existsSync(casesFile)) {
  process.stdout.write(`eval-navigator-ranking skipped: no cases at ${casesFile}\n`);
  process.exit(0);
}
const cases = (JSON.parse(fs.readFileSync(casesFile, 'utf8')) as { cases: Case[] }).cases;

/** The case's tree: the parent commit checked out (shared with the eval's runs). */
function treeOf(c: Case): string {
  const tree = path.join(os.tmpdir(), 'navigator-eval', c.parent.slice(0, 12));
  if (!fs.existsSync(tree)) {
    const git = path.join(mirror, c.repo.replace('/', '+'), 'repo');
    if (!fs.existsSync(git)) throw new Error(`no git mirror of ${c.repo} at ${git}`);
    fs.mkdirSync(tree, { recursive: true });
    spawnSync('git', [
      '--git-dir',
      git,
      '--work-tree',
      tree,
      'checkout',
      '-f',
      c.parent,
      '--',
      '.',
    ]);
  }
  return tree;
}

/** BM25 of the goal's words over each file's path (repeated) and text: the comparison. */
function bm25(index: RepoIndex, goal: string): string[] {
  const docs = index.files.map((f) => {
    let text = '';
    try {
      text = fs.readFileSync(path.join(index.root, f.path), 'utf8');
    } catch {
      // unreadable: the path alone
    }
    const words = [
      ...Array.from({ length: PATH_REPEAT }, () => splitWords(f.path)).flat(),
      ...splitWords(text),
    ];
    const tf = new Map<string, number>();
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    return { path: f.path, tf, len: words.length };
  });
  const query = [
    ...new Set(splitWords(goal).filter((w) => !BASELINE_STOPWORDS.has(w) && !/^\d+$/.test(w))),
  ];
  const n = docs.length;
  const avg = docs.reduce((a, d) => a + d.len, 0) / Math.max(1, n);
  const idf = new Map(
    query.map((q) => {
      const df = docs.filter((d) => d.tf.has(q)).length;
      return [q, Math.log(1 + (n - df + 0.5) / (df + 0.5))];
    }),
  );
  return docs
    .map((d) => {
      let s = 0;
      for (const q of query) {
        const tf = d.tf.get(q) ?? 0;
        if (tf)
          s +=
            (idf.get(q)! * tf * (BM25_K1 + 1)) /
            (tf + BM25_K1 * (1 - BM25_B + (BM25_B * d.len) / avg));
      }
      return { path: d.path, s };
    })
    .sort((a, b) => b.s - a.s || (a.path < b.path ? -1 : 1))
    .map((d) => d.path);
}

interface Tally {
  hits: number;
  gold: number;
  detailed: number[];
  ours: number[];
  baseline: number[];
}
const tallies = new Map<string, Tally>();
const all: Tally = { hits: 0, gold: 0, detailed: [], ours: [], baseline: [] };
const started = Date.now();
for (const c of cases) {
  const tree = treeOf(c);
  const index = await indexRepository({ root: tree });
  const ranked = scoreFiles(index, referenceGraph(index), goalTerms(c.goal), c.goal).map(
    (s) => s.path,
  );
  const baseline = bm25(index, c.goal);
  const result = await navigate({
    root: tree,
    index,
    goal: c.goal,
    planner: new OfflinePlanner(),
    pricing: { model: 'offline', input: 0, output: 0 },
    tokenBudget: BUDGET,
  });
  // As the eval does: the final plan rendered on its own.
  const map = await renderMap(index, { plan: result.state.flight_plan, format: 'json' });
  const level = new Map(map.files.map((f) => [f.path, f.level]));
  const hits = c.gold.filter((g) => (level.get(g) ?? 0) >= 3).length;
  const detailed = map.files.filter((f) => f.level >= 3).length;
  const pos = (list: string[], g: string) => {
    const i = list.indexOf(g);
    return i < 0 ? Infinity : i;
  };
  const t = tallies.get(c.repo) ?? { hits: 0, gold: 0, detailed: [], ours: [], baseline: [] };
  tallies.set(c.repo, t);
  for (const x of [t, all]) {
    x.hits += hits;
    x.gold += c.gold.length;
    x.detailed.push(detailed);
    x.ours.push(...c.gold.map((g) => pos(ranked, g)));
    x.baseline.push(...c.gold.map((g) => pos(baseline, g)));
  }
  if (verbose)
    process.stdout.write(
      `${c.repo}: ${hits}/${c.gold.length} at L3/L4 (${detailed} files), ranks [${c.gold.map((g) => pos(ranked, g)).join(', ')}], BM25 [${c.gold.map((g) => pos(baseline, g)).join(', ')}]  ${c.goal.slice(0, 60)}\n`,
    );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const at = (ranks: number[], k: number) =>
  (ranks.filter((r) => r < k).length / ranks.length).toFixed(2);
const line = (name: string, t: Tally) =>
  `${name.padEnd(20)} recall ${(t.hits / t.gold).toFixed(2)} (${t.hits}/${t.gold})  files at L3/L4 median ${median(t.detailed)} max ${Math.max(...t.detailed)}  | ranking ${KS.map((k) => `@${k} ${at(t.ours, k)}`).join(' ')} | BM25 ${KS.map((k) => `@${k} ${at(t.baseline, k)}`).join(' ')}\n`;
for (const [repo, t] of tallies) process.stdout.write(line(repo, t));
process.stdout.write(line('all', all));
process.stdout.write(`${cases.length} cases in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
