import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { packOutline } from './content.js';
import { isBinary, isImportant } from './discovery.js';
import { extractCode, extractMarkdown, type Extraction } from './extract.js';
import { languageForPath } from './languages.js';
import { hasGeneratedHeader, packWords } from './words.js';
import type { IndexedFile } from './types.js';

/** Default per-file size cap: larger files are listed (L1) but not read. */
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
/** A line this long means generated/minified code: list it (L1), do not parse or inline it. */
const MINIFIED_LINE_CHARS = 2_000;
/** Files smaller than this are never called minified (a long URL line is fine). */
const MINIFIED_MIN_BYTES = 10_000;

/** Extractions kept per thread for identical contents (npm trees ship .d.ts twice, etc.). */
const MAX_MEMO_ENTRIES = 4_096;
const extractionMemo = new Map<string, Extracted>();

/** What a file keeps of its extraction: tags, and the outline packed as IndexedFile holds it. */
interface Extracted extends Pick<IndexedFile, 'tags' | 'outline' | 'outlineSize'> {
  syntaxErrors?: boolean;
}

async function extract(text: string, language: string): Promise<Extracted> {
  const ex: Extraction =
    language === 'markdown' ? extractMarkdown(text) : await extractCode(text, language);
  return {
    tags: ex.tags,
    ...packOutline(ex.outline),
    ...(ex.syntaxErrors ? { syntaxErrors: true } : {}),
  };
}

export interface FileJob {
  abs: string;
  rel: string;
  size: number;
}

export interface ProcessedFile {
  /** null: binary, not part of the map. */
  file: IndexedFile | null;
  /** Content hash (for the cache when mtime is unreliable). */
  hash?: string;
  warning?: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Lossy = new TextDecoder('utf-8');

/** Reads, classifies and parses one file. Never throws: problems become `error`/warnings. */
export async function processFile(job: FileJob, maxFileBytes: number): Promise<ProcessedFile> {
  const language = languageForPath(job.rel);
  const base: IndexedFile = {
    path: job.rel,
    language,
    bytes: job.size,
    important: isImportant(job.rel),
    tags: [],
  };
  if (job.size > maxFileBytes) {
    return {
      file: {
        ...base,
        maxLevel: 1,
        error: `larger than the ${maxFileBytes}-byte cap: listed only`,
      },
    };
  }
  let buf: Buffer;
  try {
    buf = fs.readFileSync(job.abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    return {
      file: { ...base, maxLevel: 1, error: `unreadable (${code}): listed only` },
      warning: `cannot read ${job.rel}: ${code}`,
    };
  }
  if (isBinary(buf)) return { file: null };
  const hash = fastHash(buf);
  let text: string;
  let warning: string | undefined;
  let error: string | undefined;
  try {
    text = utf8.decode(buf);
  } catch {
    text = utf8Lossy.decode(buf);
    error = 'invalid UTF-8: decoded with replacement characters';
    warning = `${job.rel}: ${error}`;
  }
  const file: IndexedFile = { ...base, bytes: buf.length, lines: countLines(text) };
  if (error) file.error = error;
  if (buf.length >= MINIFIED_MIN_BYTES && longestLine(text) > MINIFIED_LINE_CHARS) {
    return {
      file: { ...file, maxLevel: 1, error: 'minified or generated (very long lines): listed only' },
      hash,
    };
  }
  const words = packWords(text);
  if (words) file.words = words;
  if (hasGeneratedHeader(text)) file.generated = true;
  if (!language) return { file, hash, ...(warning ? { warning } : {}) };
  try {
    const key = `${language}:${hash}`;
    let ex = extractionMemo.get(key);
    if (!ex) {
      ex = await extract(text, language);
      if (extractionMemo.size >= MAX_MEMO_ENTRIES) extractionMemo.clear();
      extractionMemo.set(key, ex);
    }
    file.tags = ex.tags;
    if (ex.outline) {
      file.outline = ex.outline;
      file.outlineSize = ex.outlineSize;
    }
    if (ex.syntaxErrors && !file.error) file.error = 'syntax errors: outline may be incomplete';
  } catch (err) {
    file.error = `parse failed: ${(err as Error).message}`;
    warning = `${job.rel}: ${file.error}`;
  }
  return { file, hash, ...(warning ? { warning } : {}) };
}

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

function longestLine(text: string): number {
  let max = 0;
  let start = 0;
  for (;;) {
    const i = text.indexOf('\n', start);
    const end = i === -1 ? text.length : i;
    if (end - start > max) max = end - start;
    if (i === -1) return max;
    start = i + 1;
  }
}

/** Content hash for the cache (sha1: native and fast; not used for security). */
export function fastHash(buf: Uint8Array): string {
  return createHash('sha1').update(buf).digest('hex');
}
