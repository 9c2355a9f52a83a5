import { stripVTControlCharacters } from 'node:util';

export interface Column {
  header: string;
  /** Right-align (numbers). */
  right?: boolean;
  /** Cut longer cells to this many characters, ending with `…`. */
  max?: number;
}

/** Display width: code points, not UTF-16 units, escape sequences not counted. */
function width(s: string): number {
  return [...stripVTControlCharacters(s)].length;
}

function cut(s: string, max: number | undefined): string {
  if (max === undefined || width(s) <= max) return s;
  return `${[...s].slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** Renders rows as aligned columns separated by two spaces, without trailing blanks. */
export function renderTable(columns: Column[], rows: string[][]): string {
  const cells = rows.map((r) =>
    columns.map((c, i) => cut((r[i] ?? '').replace(/[\r\n\t]/g, ' '), c.max)),
  );
  const widths = columns.map((c, i) =>
    Math.max(width(c.header), ...cells.map((r) => width(r[i]!))),
  );
  const line = (r: string[]) =>
    r
      .map((cell, i) => {
        const pad = ' '.repeat(widths[i]! - width(cell));
        return columns[i]!.right ? pad + cell : cell + pad;
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join('\n') + '\n';
}

/** `45s`, `12m`, `3h`, `2d`: a short age. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

/**
 * `14:03:07`: a local time of day, 24-hour. Written out rather than toLocaleTimeString(), whose
 * first call loads the ICU locale data: some 8 MB and milliseconds every `clippy turns` pays.
 */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}
