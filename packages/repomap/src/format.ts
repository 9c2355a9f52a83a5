import type { Level } from './types.js';

export type MapFormat = 'md' | 'json' | 'xml';

export interface HeaderInfo {
  files: number;
  tokens: number;
  budget: number;
  overBudget: boolean;
  countsByLevel: [number, number, number, number, number];
}

export interface Block {
  path: string;
  level: Level;
  language: string | null;
  rank: number;
  body: string | null;
}

/** A fence longer than any backtick run inside the body, so Markdown files nest safely. */
function fenceFor(body: string): string {
  let longest = 0;
  for (const m of body.matchAll(/`{3,}/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

function xmlEscape(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** Ranks in output: fixed precision so output is byte-identical across runs. */
function fmtRank(rank: number): number {
  return Number(rank.toPrecision(6));
}

export function renderHeader(format: MapFormat, h: HeaderInfo): string {
  const [l0, l1, l2, l3, l4] = h.countsByLevel;
  if (format === 'md') {
    const over = h.overBudget ? ' · OVER BUDGET' : '';
    return (
      `# Repository map\n\n` +
      `Files: ${h.files} · Tokens: ${h.tokens} / ${h.budget}${over} · ` +
      `L0 ${l0} · L1 ${l1} · L2 ${l2} · L3 ${l3} · L4 ${l4}\n`
    );
  }
  if (format === 'xml') {
    return (
      `<repomap files="${h.files}" tokens="${h.tokens}" budget="${h.budget}" ` +
      `over_budget="${h.overBudget}" l0="${l0}" l1="${l1}" l2="${l2}" l3="${l3}" l4="${l4}">\n`
    );
  }
  return (
    `{"files":${h.files},"tokens":${h.tokens},"budget":${h.budget},` +
    `"overBudget":${h.overBudget},"countsByLevel":${JSON.stringify(h.countsByLevel)},"map":[\n`
  );
}

export function renderFooter(format: MapFormat): string {
  if (format === 'xml') return '</repomap>\n';
  if (format === 'json') return ']}\n';
  return '';
}

/** One file's section. JSON blocks after the first are prefixed by a comma by the caller. */
export function renderBlock(format: MapFormat, b: Block): string {
  if (format === 'md') {
    const head = `\n## ${b.path} (L${b.level})\n`;
    if (b.body === null) return head;
    const fence = fenceFor(b.body);
    const body = b.body.endsWith('\n') ? b.body : `${b.body}\n`;
    return `${head}${fence}${b.language ?? ''}\n${body}${fence}\n`;
  }
  if (format === 'xml') {
    const attrs = `path="${xmlEscape(b.path)}" level="${b.level}" rank="${fmtRank(b.rank)}"`;
    if (b.body === null) return `<file ${attrs}/>\n`;
    return `<file ${attrs}>\n${xmlEscape(b.body)}\n</file>\n`;
  }
  const entry: Record<string, unknown> = { path: b.path, level: b.level, rank: fmtRank(b.rank) };
  if (b.language) entry.language = b.language;
  if (b.body !== null) entry.content = b.body;
  return `${JSON.stringify(entry)}\n`;
}

export interface SummaryRow {
  path: string;
  level: Level;
  tokens: number;
}

export function renderSummaryRow(format: MapFormat, r: SummaryRow): string {
  if (format === 'md') return `- ${r.path} (L${r.level}, ${r.tokens} tokens)\n`;
  if (format === 'xml')
    return `<file path="${xmlEscape(r.path)}" level="${r.level}" tokens="${r.tokens}"/>\n`;
  return `${JSON.stringify(r)}\n`;
}

export interface CostRow {
  path: string;
  level: Level;
  l1: number;
  l2: number;
  l3: number;
  l4: number;
}

export function renderCostRow(format: MapFormat, r: CostRow): string {
  if (format === 'md')
    return `| ${r.path} | L${r.level} | ${r.l1} | ${r.l2} | ${r.l3} | ${r.l4} |\n`;
  if (format === 'xml') {
    return `<file path="${xmlEscape(r.path)}" level="${r.level}" l1="${r.l1}" l2="${r.l2}" l3="${r.l3}" l4="${r.l4}"/>\n`;
  }
  return `${JSON.stringify(r)}\n`;
}

export const COST_TABLE_HEAD =
  '\n| path | level | L1 | L2 | L3 | L4 |\n|---|---|---|---|---|---|\n';
