// Benchmark: does the offline navigator find the files a goal is about, in code no one here
// wrote? Source trees of installed npm packages (ws, pino, yaml, zod) are copied to a temp dir;
// each goal is written in a user's words (not the identifiers) with a hand-made truth list (the
// files that implement what the goal names, found by reading the code). Measured in one run at
// the same 20,000-token budget: the share of truth files that end at L3/L4 with
//   - the offline navigator (goal terms, references, its plan steps),
//   - a plain PageRank map (renderMap without goal terms),
//   - a plain BM25 ranking of the goal over file text (top files at L4, then L3, until the budget).
// Prints figures and ratios; never asserts. Run: npx tsx --conditions=source scripts/bench/navigator.ts
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { goalTerms, identifierTerms, navigate, OfflinePlanner } from '@clippy/navigator';
import { fileCosts, indexRepository, renderMap, type RepoIndex } from '@clippy/repomap';
import { tempDir } from './_common.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const NODE_MODULES = path.join(ROOT, 'node_modules');
/** The budget for the comparison. */
const BUDGET = 20_000;
/** BM25 parameters (the usual defaults). */
const BM25_K1 = 1.2;
const BM25_B = 0.75;

interface Corpus {
  name: string;
  /** [from (inside node_modules), to (inside the copy)]: dist/ is renamed, default excludes would hide it. */
  copy: [string, string][];
  goals: { goal: string; truth: string[] }[];
}

const CORPORA: Corpus[] = [
  {
    name: 'ws',
    copy: [
      ['ws/lib', 'lib'],
      ['ws/index.js', 'index.js'],
      ['ws/README.md', 'README.md'],
    ],
    goals: [
      {
        goal: 'how the server accepts the HTTP upgrade handshake from a browser',
        truth: ['lib/websocket-server.js'],
      },
      {
        goal: 'compress messages with deflate when both sides agree',
        truth: ['lib/permessage-deflate.js', 'lib/extension.js'],
      },
      {
        goal: 'split incoming bytes into frames and unmask the payload',
        truth: ['lib/receiver.js', 'lib/buffer-util.js'],
      },
    ],
  },
  {
    name: 'pino',
    copy: [
      ['pino/lib', 'lib'],
      ['pino/docs', 'docs'],
      ['pino/pino.js', 'pino.js'],
      ['pino/file.js', 'file.js'],
      ['pino/README.md', 'README.md'],
    ],
    goals: [
      {
        goal: 'hide passwords and secrets from log lines',
        truth: ['lib/redaction.js', 'docs/redaction.md'],
      },
      {
        goal: 'send logs to another process in a worker thread',
        truth: ['lib/transport.js', 'lib/worker.js', 'lib/transport-stream.js'],
      },
      {
        goal: 'write every log line to several destinations at once',
        truth: ['lib/multistream.js'],
      },
    ],
  },
  {
    name: 'yaml',
    copy: [
      ['yaml/dist', 'src'],
      ['yaml/README.md', 'README.md'],
    ],
    goals: [
      {
        goal: 'turn yaml text into tokens before building the tree',
        truth: ['src/parse/lexer.js', 'src/parse/parser.js'],
      },
      {
        goal: 'long strings get folded onto several lines when writing yaml',
        truth: ['src/stringify/foldFlowLines.js', 'src/stringify/stringifyString.js'],
      },
      {
        goal: 'anchors and aliases that point at an earlier node',
        truth: ['src/nodes/Alias.js', 'src/doc/anchors.js'],
      },
    ],
  },
  {
    name: 'zod',
    copy: [
      ['zod/src/v4/core', 'core'],
      ['zod/README.md', 'README.md'],
    ],
    goals: [
      {
        goal: 'export a schema as json schema',
        truth: [
          'core/to-json-schema.ts',
          'core/json-schema-processors.ts',
          'core/json-schema-generator.ts',
        ],
      },
    ],
  },
];

function copy(from: string, to: string): void {
  const st = fs.statSync(from);
  if (st.isDirectory()) {
    fs.mkdirSync(to, { recursive: true });
    for (const name of fs.readdirSync(from)) {
      // Tests and type declarations are not what a reader of the source looks for.
      if (name === 'tests' || name === 'test' || name.endsWith('.d.ts') || name.endsWith('.map'))
        continue;
      copy(path.join(from, name), path.join(to, name));
    }
  } else {
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(from, to);
  }
}

/** Plain BM25 of the goal's terms over each file's words (stems compared exactly). */
function bm25Levels(index: RepoIndex, goal: string): Map<string, number> {
  const terms = goalTerms(goal);
  const docs = index.files.map((f) => {
    let text = '';
    try {
      text = fs.readFileSync(path.join(index.root, f.path), 'utf8');
    } catch {
      // unreadable: empty
    }
    const words = identifierTerms(text);
    const tf = new Map<string, number>();
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    return { path: f.path, len: words.length, tf };
  });
  const avg = docs.reduce((n, d) => n + d.len, 0) / Math.max(1, docs.length);
  const df = new Map(terms.map((t) => [t, docs.filter((d) => d.tf.has(t)).length]));
  const scored = docs
    .map((d) => {
      let s = 0;
      for (const t of terms) {
        const f = d.tf.get(t) ?? 0;
        if (!f) continue;
        const idf = Math.log(1 + (docs.length - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
        s += (idf * f * (BM25_K1 + 1)) / (f + BM25_K1 * (1 - BM25_B + (BM25_B * d.len) / avg));
      }
      return { path: d.path, s };
    })
    .filter((d) => d.s > 0)
    .sort((a, b) => b.s - a.s || (a.path < b.path ? -1 : 1));
  // Top files in full while they fit, else as interfaces, until the budget is used.
  const levels = new Map<string, number>();
  let used = 0;
  for (const d of scored) {
    const c = fileCosts(index, d.path);
    if (used + c.l4 <= BUDGET) {
      levels.set(d.path, 4);
      used += c.l4;
    } else if (c.l3 > 0 && used + c.l3 <= BUDGET) {
      levels.set(d.path, 3);
      used += c.l3;
    }
  }
  return levels;
}

const share = (levels: Map<string, number>, truth: string[]) =>
  truth.filter((t) => (levels.get(t) ?? 0) >= 3).length;

export async function run(): Promise<void> {
  const temp = tempDir('clippy-bench-nav-');
  const tmp = temp.dir;
  const totals = { truth: 0, navigator: 0, pagerank: 0, bm25: 0 };
  try {
    console.log(`navigator file-finding at ${BUDGET} tokens: truth files at L3/L4 (found/total)`);
    console.log('corpus  files  navigator  pagerank  bm25   goal');
    for (const corpus of CORPORA) {
      const root = path.join(tmp, corpus.name);
      for (const [from, to] of corpus.copy)
        copy(path.join(NODE_MODULES, from), path.join(root, to));
      const index = await indexRepository({ root, cache: false });
      const plain = await renderMap(index, { budget: BUDGET });
      const pagerankLevels = new Map(plain.files.map((f) => [f.path, f.level as number]));
      for (const g of corpus.goals) {
        for (const t of g.truth) {
          if (!index.files.some((f) => f.path === t))
            throw new Error(`${corpus.name}: truth file ${t} is not in the index`);
        }
        const result = await navigate({
          root,
          index,
          goal: g.goal,
          planner: new OfflinePlanner(),
          pricing: { model: 'offline', input: 0, output: 0 },
          tokenBudget: BUDGET,
        });
        const navLevels = new Map(result.map.files.map((f) => [f.path, f.level as number]));
        const n = share(navLevels, g.truth);
        const p = share(pagerankLevels, g.truth);
        const b = share(bm25Levels(index, g.goal), g.truth);
        totals.truth += g.truth.length;
        totals.navigator += n;
        totals.pagerank += p;
        totals.bm25 += b;
        const cell = (x: number) => `${x}/${g.truth.length}`.padEnd(10);
        console.log(
          `${corpus.name.padEnd(8)}${String(index.files.length).padEnd(7)}${cell(n)} ${cell(p)}${cell(b).slice(0, 7)}${g.goal}`,
        );
      }
    }
    const pct = (x: number) => `${((x / totals.truth) * 100).toFixed(0)}%`;
    console.log(
      `\nshare of truth files at L3/L4: navigator ${pct(totals.navigator)} (${totals.navigator}/${totals.truth}), ` +
        `pagerank ${pct(totals.pagerank)} (${totals.pagerank}), bm25 ${pct(totals.bm25)} (${totals.bm25})`,
    );
    const ratio = (a: number, b: number) =>
      b === 0 ? 'n/a (baseline found none)' : `${(a / b).toFixed(2)}x`;
    console.log(
      `ratio navigator/pagerank ${ratio(totals.navigator, totals.pagerank)}, navigator/bm25 ${ratio(totals.navigator, totals.bm25)}`,
    );
  } finally {
    temp.remove();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
