import type { TurnReport } from './turn-report.js';

/** Every box line is this wide (borders included), as in the seed's renderings. */
export const BOX_WIDTH = 75;
/** Text columns inside `│ ` … `│`: the width minus both borders and the left margin. */
const CONTENT = BOX_WIDTH - 3;
/** Wrapped paragraphs and section rules leave one blank column before the right border. */
const WRAP = CONTENT - 1;
/** Width of the verbose bars (label 15 + bar + a 6-column percentage = the content width). */
const BAR = CONTENT - 15 - 6;
/** Verbose focus rows: the path column and the level column. */
const PATH_COL = 29;
const LEVEL_COL = 14;
/** A compact focus entry's path is shortened to this (middle ellipsis) so one deep path cannot fill the line. */
const FOCUS_PATH_MAX = 40;

export const COMPACT_PROMPT = 'Continue? [y/N/feedback]: ';
export const VERBOSE_PROMPT = 'Continue exploration? [y/N/feedback]: ';

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const money4 = (n: number) => `$${n.toFixed(4)}`;
const money2 = (n: number) => `$${n.toFixed(2)}`;
const pct1 = (n: number) => `${n.toFixed(1)}%`;
const pct0 = (n: number) => `${Math.round(n)}%`;

/** Display width of a string: every code point is one column here (box text is plain). */
const width = (s: string) => [...s].length;
const pad = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - width(s)));

/** A word cut to fit is kept when at least this many columns remain for it (else it is dropped, as the seed drops "(L3)"). */
const MIN_SHORTENED = 10;

/** Shortens text to `n` columns by replacing its middle with `…`: a path keeps its root and its file name. */
export function shortenMiddle(text: string, n: number): string {
  const chars = [...text];
  if (chars.length <= n) return text;
  if (n <= 1) return '…'.slice(0, n);
  const tail = Math.ceil((n - 1) / 2);
  const head = n - 1 - tail;
  return `${chars.slice(0, head).join('')}…${chars.slice(chars.length - tail).join('')}`;
}

/**
 * Cuts text to `n` columns at a word boundary (the seed's Focus line drops a short word that
 * does not fit); a long word such as a path is shortened in the middle instead of vanishing.
 */
export function truncateWords(text: string, n: number): string {
  // Only line breaks are flattened: runs of spaces are layout ("Cost:  $0.0012").
  const flat = text.replace(/\s*\n\s*/g, ' ').trimEnd();
  if (width(flat) <= n) return flat;
  const cut = [...flat].slice(0, n + 1).join('');
  const space = cut.lastIndexOf(' ');
  if (space <= 0) return shortenMiddle(flat.split(' ')[0]!, n);
  const head = cut
    .slice(0, space)
    .replace(/[,;:|-]+$/, '')
    .trimEnd();
  const next = flat
    .slice(space + 1)
    .split(' ')[0]!
    .replace(/[,;:|]+$/, '');
  const room = n - width(head) - 1;
  if (room >= MIN_SHORTENED && width(next) > room) return `${head} ${shortenMiddle(next, room)}`;
  return head;
}

/** Greedy word wrap to `n` columns; words longer than a line are split. */
export function wrapWords(text: string, n: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (let word of paragraph.split(/\s+/).filter(Boolean)) {
      while (width(word) > n) {
        if (line) lines.push(line);
        line = '';
        lines.push([...word].slice(0, n).join(''));
        word = [...word].slice(n).join('');
      }
      if (!line) line = word;
      else if (width(line) + 1 + width(word) <= n) line += ` ${word}`;
      else {
        lines.push(line);
        line = word;
      }
    }
    lines.push(line);
  }
  while (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}

/** The first sentence of the reasoning: the compact box has one line for it. */
function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(flat);
  return m ? m[1]! : flat;
}

/** The user's cost limit (older reports without it: spend + remaining). */
function maxSpend(r: TurnReport): number {
  return r.budget_limit ?? r.total_cost + r.budget_remaining;
}

/** Share of the cost limit spent (from the amounts, so it is exact even past the limit). */
function budgetPct(r: TurnReport): number {
  const max = maxSpend(r);
  if (max > 0) return (r.total_cost / max) * 100;
  return r.budget_percentage ?? 0;
}

/** Share of the token budget used; may pass 100 (the schema's field is capped, the box is not). */
function tokenPct(r: TurnReport): number {
  if (r.token_budget > 0) return (r.map_size_tokens / r.token_budget) * 100;
  return r.token_utilization ?? 0;
}

function levelLabel(level: number): string {
  return level >= 4 ? 'L4 (full)' : 'L3 (interface)';
}

/**
 * The compact Focus line: cut at a word boundary like the seed (a last path may lose its level);
 * when whole entries would vanish, the line says how many with "+N more".
 */
function focusLine(r: TurnReport): string {
  if (r.focus_areas.length === 0) return 'Focus: (none yet)';
  const items = r.focus_areas.map(
    (f) => `${shortenMiddle(f.path, FOCUS_PATH_MAX)} (L${f.verbosity_level})`,
  );
  const full = `Focus: ${items.join(', ')}`;
  const cut = truncateWords(full, CONTENT);
  const shown = items.filter((item) => cut.includes(item.slice(0, item.lastIndexOf(' (')))).length;
  if (shown === items.length) return cut;
  for (let k = items.length - 1; k >= 1; k--) {
    const line = `Focus: ${items.slice(0, k).join(', ')}, +${items.length - k} more`;
    if (width(line) <= CONTENT) return line;
  }
  return cut;
}

/** The seed's compact box (the default rendering). */
export function renderCompact(r: TurnReport): string {
  const row = (s: string) => `│ ${pad(truncateWords(s, CONTENT), CONTENT)}│`;
  const blank = row('');
  const rule = (l: string, r2: string) => `${l}${'─'.repeat(BOX_WIDTH - 2)}${r2}`;
  const lines = [
    rule('┌', '┐'),
    row(`TURN REPORT - Step ${r.step_number}`),
    rule('├', '┤'),
    row(
      `Cost:  ${money4(r.cost_this_turn)} this turn | ${money4(r.total_cost)} total (${pct1(budgetPct(r))} of ${money2(maxSpend(r))})`,
    ),
    row(
      `Size:  ${int(r.map_size_tokens)} tokens (${pct0(tokenPct(r))} of ${int(r.token_budget)}) | ${int(r.file_count)} files`,
    ),
    blank,
    row(focusLine(r)),
    blank,
    row(`Action: ${r.last_action}`),
    row(`Reason: ${firstSentence(r.reasoning)}`),
  ];
  if (r.is_complete) lines.push(row(`Done:   ${r.completion_reason ?? 'complete'}`));
  lines.push(rule('└', '┘'));
  return lines.join('\n');
}

function bar(percent: number): string {
  const p = Math.max(0, Math.min(100, percent));
  // Any spending shows at least one block, so a cheap run never looks free.
  const filled = p > 0 ? Math.max(1, Math.round((p / 100) * BAR)) : 0;
  return '█'.repeat(filled) + '░'.repeat(BAR - filled);
}

/** `2025-12-31 10:35` (UTC), as the verbose header shows it. */
function shortTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso.slice(0, 16);
  return d.toISOString().slice(0, 16).replace('T', ' ');
}

/** The seed's verbose box (`--verbose`): sections with bars for cost and tokens. */
export function renderVerbose(r: TurnReport): string {
  const row = (s: string) => `║ ${pad(s, CONTENT)}║`;
  const rows = (text: string) => wrapWords(text, WRAP).map(row);
  const blank = row('');
  const section = (title: string) => [row(title), row('─'.repeat(WRAP))];
  const border = (l: string, r2: string) => `${l}${'═'.repeat(BOX_WIDTH - 2)}${r2}`;
  const title = `TURN REPORT - Step ${r.step_number}`;
  const time = shortTime(r.timestamp);
  const lines = [
    border('╔', '╗'),
    row(`${pad(title, CONTENT - width(time))}${time}`),
    border('╠', '╣'),
    ...section('COST TRACKING'),
    row(`${pad('This turn:', 15)}${money4(r.cost_this_turn)}`),
    row(`${pad('Total spent:', 15)}${money4(r.total_cost)}`),
    row(`${pad('Remaining:', 15)}${money4(r.budget_remaining)}`),
    row(`${pad('Budget used:', 15)}${bar(budgetPct(r))}${pct1(budgetPct(r)).padStart(6)}`),
    blank,
    ...section('TOKEN UTILIZATION'),
    row(`${pad('Current:', 15)}${int(r.map_size_tokens)} tokens`),
    row(`${pad('Budget:', 15)}${int(r.token_budget)} tokens`),
    row(`${pad('Utilization:', 15)}${bar(tokenPct(r))}${pct0(tokenPct(r)).padStart(6)}`),
    row(`${pad('Files:', 15)}${int(r.file_count)} included`),
    blank,
    ...section('FOCUS AREAS (High Verbosity)'),
  ];
  if (r.focus_areas.length === 0) lines.push(row('(none yet)'));
  for (const f of r.focus_areas) {
    const path =
      width(f.path) > PATH_COL - 1 ? `…${[...f.path].slice(-(PATH_COL - 2)).join('')}` : f.path;
    const tokens =
      f.token_contribution !== undefined
        ? `${`~${int(f.token_contribution)}`.padStart(6)} tokens`
        : '';
    lines.push(
      row(`• ${pad(path, PATH_COL)}${pad(levelLabel(f.verbosity_level), LEVEL_COL)}${tokens}`),
    );
  }
  lines.push(blank, ...section('EXCLUDED AREAS'));
  const excluded = r.excluded_areas ?? [];
  lines.push(...rows(excluded.length ? excluded.join(', ') : '(none)'));
  lines.push(blank, ...section('AGENT REASONING'));
  lines.push(
    ...rows(`Action: ${r.last_action}`),
    blank,
    ...rows(r.reasoning || '(no reasoning given)'),
  );
  if (r.is_complete) {
    lines.push(blank, row(`Complete: ${r.completion_reason ?? 'yes'}`));
  }
  lines.push(border('╚', '╝'));
  return lines.join('\n');
}

export function renderTurnReport(r: TurnReport, opts: { verbose?: boolean } = {}): string {
  return opts.verbose ? renderVerbose(r) : renderCompact(r);
}
