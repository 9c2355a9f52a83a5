// Prints, per preset, how many real screens of the corpus (../shared/corpus) it classifies as
// expected and how many agentapi `format` answers it extracts cleanly. With --matrix: the
// classifier's confusion matrix (expected label × classified state) per preset and overall, over
// every labelled screen — the repository's screen cases (packages/turns/test/screens) and the
// shared corpus's labelled screens when it is there — and the screens it gets wrong.
// Run: npx tsx --conditions=source scripts/corpus-report.ts [--verbose] [--matrix]
import { corpusDir, hasCorpus } from '@clippy/testkit/paths';
import fs from 'node:fs';
import path from 'node:path';
import {
  CLAUDE_2_1_29_TRUTH,
  CORPUS_AGENTS,
  checkFormatCase,
  claudeScreens,
  classifyWith,
  formatCases,
  initScreens,
} from '../packages/turns/src/test-support/corpus.js';
import {
  isRight,
  labelledSamples,
  renderMatrix,
  type Sample,
} from '../packages/turns/src/test-support/confusion.js';
import { BUILTIN_PRESETS } from '../packages/turns/src/index.js';

interface Row {
  preset: string;
  init: [number, number];
  screens: [number, number];
  format: [number, number];
}

const verbose = process.argv.includes('--verbose');

/** The confusion matrices, per preset and overall, and every screen classified wrongly. */
function matrixReport(): string {
  const samples = labelledSamples();
  const origins = [...new Set(samples.map((s) => s.origin))];
  const count = (o: string): number => samples.filter((s) => s.origin === o).length;
  const out = [
    `Labelled screens: ${origins.map((o) => `${o} ${count(o)}`).join(', ')}` +
      (hasCorpus ? '' : ` (${corpusDir} not found: the shared corpus is left out)`),
    '',
  ];
  const presets = [...new Set(samples.map((s) => s.preset))];
  for (const preset of presets) {
    out.push(`### ${preset}`, '', renderMatrix(samples.filter((s) => s.preset === preset)), '');
  }
  out.push('### all presets', '', renderMatrix(samples), '');
  const wrong = samples.filter((s) => !isRight(s));
  const line = (s: Sample): string =>
    `- ${s.preset} ${s.origin} ${s.name}: expected ${s.expected}, classified ${s.got}` +
    (s.knownMiss === s.got ? ' (known miss, see its case)' : '');
  out.push(wrong.length === 0 ? 'Every labelled screen is classified as labelled.' : 'Wrong:');
  out.push(...wrong.map(line));
  return `${out.join('\n')}\n`;
}

export async function run(): Promise<void> {
  if (process.argv.includes('--matrix')) {
    process.stdout.write(matrixReport());
    return;
  }
  if (!hasCorpus) {
    process.stdout.write(`corpus not found at ${corpusDir}: nothing to report\n`);
    return;
  }
  const rows = new Map<string, Row>();
  const row = (preset: string): Row => {
    let r = rows.get(preset);
    if (!r) rows.set(preset, (r = { preset, init: [0, 0], screens: [0, 0], format: [0, 0] }));
    return r;
  };
  const failures: string[] = [];

  for (const s of initScreens()) {
    const state = classifyWith(s.agent, s.text);
    const ok = (state === 'idle') === s.ready;
    const r = row(s.agent);
    r.init[1]++;
    if (ok) r.init[0]++;
    else
      failures.push(`initialization ${s.file}: ${state} (want ${s.ready ? 'idle' : 'not idle'})`);
  }

  for (const s of claudeScreens()) {
    const want = CLAUDE_2_1_29_TRUTH[s.name];
    const got = classifyWith('claude', s.text);
    const r = row('claude');
    r.screens[1]++;
    if (got === want) r.screens[0]++;
    else
      failures.push(`claude-code-2.1.29 ${s.file}: ${got} (want ${want ?? 'no truth recorded'})`);
  }

  for (const k of formatCases()) {
    const { problems, answer } = checkFormatCase(k);
    const r = row(k.agent);
    r.format[1]++;
    if (problems.length === 0) r.format[0]++;
    else failures.push(`format ${k.id}: ${problems.join('; ')}`);
    if (verbose) process.stdout.write(`--- ${k.id}\n${answer}\n`);
  }

  const cell = ([ok, all]: [number, number]): string => (all === 0 ? '–' : `${ok}/${all}`);
  const lines = [
    '| preset | checked on | initialization (ready idle, not_ready not idle) | Claude Code 2.1.29 screens | format answers |',
    '|---|---|---|---|---|',
  ];
  for (const agent of CORPUS_AGENTS) {
    const r = row(agent);
    const checked = BUILTIN_PRESETS[agent]!.checkedOn[0] ?? '';
    lines.push(
      `| ${agent} | ${checked} | ${cell(r.init)} | ${cell(r.screens)} | ${cell(r.format)} |`,
    );
  }
  const total = (pick: (r: Row) => [number, number]): [number, number] =>
    [...rows.values()].reduce<[number, number]>(
      (a, r) => [a[0] + pick(r)[0], a[1] + pick(r)[1]],
      [0, 0],
    );
  lines.push(
    `| **all** | | ${cell(total((r) => r.init))} | ${cell(total((r) => r.screens))} | ${cell(total((r) => r.format))} |`,
  );
  process.stdout.write(
    `Corpus: ${path.relative(process.cwd(), corpusDir) || corpusDir}\n\n${lines.join('\n')}\n`,
  );
  const rawStreams = fs.readdirSync(path.join(corpusDir, 'raw-streams'));
  process.stdout.write(
    `\nraw streams (checked by packages/turns/src/corpus.test.ts): ${rawStreams.join(', ')}\n`,
  );
  process.stdout.write(
    failures.length === 0
      ? '\nno failures\n'
      : `\nfailures:\n${failures.map((f) => `- ${f}`).join('\n')}\n`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
