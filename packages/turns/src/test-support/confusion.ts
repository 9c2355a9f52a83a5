// The classifier's confusion matrix over every labelled screen: the repository's screen cases
// (test/screens/cases.json) and, when ../shared/corpus is there, its labelled screens (Claude
// Code 2.1.29 screens, agentapi's initialization screens). Used by screen-cases.test.ts and
// printed by scripts/corpus-report.ts --matrix.
import { hasCorpus } from '@clippy/testkit/paths';
import { stripAnsi } from '../ansi-stripper.js';
import { BUILTIN_PRESETS } from '../builtin-presets.js';
import { classifyScreen, type ScreenState } from '../classify.js';
import { CLAUDE_2_1_29_TRUTH, claudeScreens, initScreens } from './corpus.js';
import { isPublic, readScreen, screenCases } from './screen-cases.js';

/** agentapi's `not_ready` screens are labelled only "not ready yet": any state but idle is right. */
export type Expected = ScreenState | 'starting';
export const EXPECTED: readonly Expected[] = ['idle', 'busy', 'blocked', 'unknown', 'starting'];
export const STATES: readonly ScreenState[] = ['idle', 'busy', 'blocked', 'unknown'];

export interface Sample {
  preset: string;
  /** Which collection: `public`, `project` (captured or constructed here), `claude-2.1.29`, `agentapi-init`. */
  origin: string;
  name: string;
  expected: Expected;
  got: ScreenState;
  /** For a repository case the preset cannot get right: what it is expected to say instead. */
  knownMiss?: ScreenState;
}

export function isRight(s: Pick<Sample, 'expected' | 'got'>): boolean {
  return s.expected === 'starting' ? s.got !== 'idle' : s.got === s.expected;
}

const classify = (preset: string, text: string): ScreenState =>
  classifyScreen(text, BUILTIN_PRESETS[preset]!).state;

/** Every labelled screen this checkout can read, classified by the built-in presets. */
export function labelledSamples(): Sample[] {
  const out: Sample[] = [];
  for (const c of screenCases()) {
    const files = [c.file, c.file.replace(/\.txt$/u, '.ansi.txt')];
    for (const file of files) {
      let text: string;
      try {
        text = readScreen(file);
      } catch {
        continue; // most screens have no colour capture
      }
      if (file.endsWith('.ansi.txt')) text = stripAnsi(text);
      out.push({
        preset: c.preset,
        origin: isPublic(c) ? 'public' : 'project',
        name: file.replace(/\.txt$/u, ''),
        expected: c.state,
        got: classify(c.preset, text),
        ...(c.knownMiss ? { knownMiss: c.knownMiss.classifiedAs } : {}),
      });
    }
  }
  if (!hasCorpus) return out;
  for (const s of claudeScreens()) {
    const expected = CLAUDE_2_1_29_TRUTH[s.name];
    if (expected === undefined) continue;
    out.push({
      preset: 'claude',
      origin: 'claude-2.1.29',
      name: s.file,
      expected,
      got: classify('claude', s.text),
    });
  }
  for (const s of initScreens()) {
    out.push({
      preset: s.agent,
      origin: 'agentapi-init',
      name: s.file,
      expected: s.ready ? 'idle' : 'starting',
      got: classify(s.agent, s.text),
    });
  }
  return out;
}

/** counts[expected][got] */
export type Matrix = Record<Expected, Record<ScreenState, number>>;

export function confusion(samples: readonly Sample[]): Matrix {
  const m = Object.fromEntries(
    EXPECTED.map((e) => [e, Object.fromEntries(STATES.map((s) => [s, 0]))]),
  ) as Matrix;
  for (const s of samples) m[s.expected][s.got]++;
  return m;
}

/** A Markdown table: a row per expected label that occurs, a column per classified state. */
export function renderMatrix(samples: readonly Sample[]): string {
  const m = confusion(samples);
  const right = samples.filter(isRight).length;
  const lines = [
    `| expected ↓ / classified → | ${STATES.join(' | ')} | right |`,
    `|---|${STATES.map(() => '---:').join('|')}|---:|`,
  ];
  for (const e of EXPECTED) {
    const row = samples.filter((s) => s.expected === e);
    if (row.length === 0) continue;
    const label = e === 'starting' ? 'starting (any but idle)' : e;
    const ok = row.filter(isRight).length;
    lines.push(`| ${label} | ${STATES.map((s) => m[e][s]).join(' | ')} | ${ok}/${row.length} |`);
  }
  lines.push(`| **all** | | | | | **${right}/${samples.length}** |`);
  return lines.join('\n');
}
