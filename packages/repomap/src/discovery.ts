import fs from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import { pathMatcher } from './globs.js';

/** Directories never walked: VCS metadata, dependencies, build outputs, caches. */
export const DEFAULT_EXCLUDED_DIRS = new Set([
  '.git',
  '.hg',
  '.svn',
  '.jj',
  'node_modules',
  'bower_components',
  'dist',
  'build',
  'out',
  'target',
  'coverage',
  '.next',
  '.nuxt',
  '.turbo',
  '.cache',
  '.venv',
  'venv',
  '__pycache__',
  '.mypy_cache',
  '.pytest_cache',
  '.tox',
  '.gradle',
  '.idea',
]);

/** Lock files: long, generated, useless to a reader. */
export const DEFAULT_EXCLUDED_FILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'bun.lock',
  'Cargo.lock',
  'Gemfile.lock',
  'poetry.lock',
  'Pipfile.lock',
  'composer.lock',
  'go.sum',
  'uv.lock',
  '.DS_Store',
]);

/** Files that usually hold secrets: never mapped unless an --include glob names them. */
const SECRET_FILE = /^(\.env(\..*)?|.*\.(pem|key|p12|pfx)|id_(rsa|dsa|ecdsa|ed25519))$/;

/** Ignore files read in every directory, in this order (later ones may re-include). */
const IGNORE_FILES = ['.gitignore', '.ignore', '.clippyignore'];

/** Bytes inspected for a NUL to call a file binary (what git and grep look at). */
export const BINARY_SNIFF_BYTES = 8000;

export interface DiscoveredFile {
  /** posix, relative to root */
  path: string;
  abs: string;
  size: number;
  mtimeMs: number;
  /** inode change time: a second signal when mtime was preserved (cp -p, tar). */
  ctimeMs: number;
}

export interface DiscoveryOptions {
  root: string;
  include?: string[];
  exclude?: string[];
}

interface IgnoreLayer {
  /** posix dir relative to root ('' for root) */
  dir: string;
  ig: Ignore;
}

/**
 * Walks the tree honouring nested .gitignore/.ignore/.clippyignore files (negations included)
 * and default excludes. --include globs restrict the set and re-admit ignored files;
 * --exclude globs always win. Symlinked directories are followed once (loops never hang).
 */
export function discoverFiles(opts: DiscoveryOptions, warnings: string[] = []): DiscoveredFile[] {
  const root = path.resolve(opts.root);
  const includes = (opts.include ?? []).filter(Boolean);
  const excludes = (opts.exclude ?? []).filter(Boolean);
  // Same pattern rules as plans: a plain path also covers everything below it.
  const anyOf = (globs: string[]) => {
    const ms = globs.map(pathMatcher);
    return (p: string) => ms.some((m) => m(p));
  };
  const isIncluded = includes.length ? anyOf(includes) : null;
  const isExcluded = excludes.length ? anyOf(excludes) : null;
  // An include glob re-admits ignored directories only below its literal base (so that
  // `--include 'dist/**'` maps dist/ without walking every node_modules for `**/*.ts`).
  const includeBases = includes
    .map((g) => picomatch.scan(g).base)
    .filter((b) => b !== '' && b !== '.');
  const reachesIncluded = (dir: string) =>
    includeBases.some((b) => b === dir || b.startsWith(`${dir}/`) || dir.startsWith(`${b}/`));

  const out: DiscoveredFile[] = [];
  const visited = new Set<string>();

  const ignoredBy = (layers: IgnoreLayer[], rel: string, isDir: boolean): boolean => {
    let ignored = false;
    for (const layer of layers) {
      const sub = layer.dir ? rel.slice(layer.dir.length + 1) : rel;
      const r = layer.ig.test(isDir ? `${sub}/` : sub);
      if (r.ignored) ignored = true;
      else if (r.unignored) ignored = false;
    }
    return ignored;
  };

  const walk = (absDir: string, relDir: string, parentLayers: IgnoreLayer[], forced: boolean) => {
    let real: string;
    try {
      real = fs.realpathSync(absDir);
    } catch {
      return;
    }
    if (visited.has(real)) return;
    visited.add(real);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(absDir, { withFileTypes: true });
    } catch (err) {
      warnings.push(
        `cannot read directory ${relDir || '.'}: ${(err as NodeJS.ErrnoException).code ?? err}`,
      );
      return;
    }
    let layers = parentLayers;
    for (const name of IGNORE_FILES) {
      if (!entries.some((e) => e.name === name)) continue;
      try {
        const text = fs.readFileSync(path.join(absDir, name), 'utf8');
        layers = [...layers, { dir: relDir, ig: ignore().add(text) }];
      } catch {
        warnings.push(`cannot read ${relDir ? `${relDir}/` : ''}${name}`);
      }
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const rel = relDir ? `${relDir}/${e.name}` : e.name;
      const abs = path.join(absDir, e.name);
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      let st: fs.Stats | undefined;
      if (e.isSymbolicLink()) {
        try {
          st = fs.statSync(abs);
        } catch {
          continue; // dangling link
        }
        isDir = st.isDirectory();
        isFile = st.isFile();
      }
      if (isDir) {
        const dropped =
          DEFAULT_EXCLUDED_DIRS.has(e.name) ||
          ignoredBy(layers, rel, true) ||
          IGNORE_FILES.includes(e.name);
        if (isExcluded?.(rel)) continue;
        if (dropped && !reachesIncluded(rel)) continue;
        walk(abs, rel, layers, forced || dropped);
      } else if (isFile) {
        if (isExcluded?.(rel)) continue;
        const explicitlyIncluded = isIncluded?.(rel) ?? false;
        if (isIncluded && !explicitlyIncluded) continue;
        const dropped =
          forced ||
          DEFAULT_EXCLUDED_FILES.has(e.name) ||
          SECRET_FILE.test(e.name) ||
          IGNORE_FILES.includes(e.name) ||
          ignoredBy(layers, rel, false);
        if (dropped && !explicitlyIncluded) continue;
        try {
          st ??= fs.statSync(abs);
        } catch (err) {
          warnings.push(`cannot stat ${rel}: ${(err as NodeJS.ErrnoException).code ?? err}`);
          continue;
        }
        out.push({ path: rel, abs, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs });
      }
    }
  };
  walk(root, '', [], false);
  out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}

/** True when the buffer looks binary (a NUL byte near the start). */
export function isBinary(buf: Uint8Array): boolean {
  const n = Math.min(buf.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

/** Files a reader wants first: READMEs and package manifests. */
const IMPORTANT_NAMES = new Set([
  'readme',
  'readme.md',
  'readme.rst',
  'readme.txt',
  'package.json',
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'requirements.txt',
  'cargo.toml',
  'go.mod',
  'pom.xml',
  'build.gradle',
  'build.gradle.kts',
  'gemfile',
  'composer.json',
  'makefile',
  'cmakelists.txt',
  'dockerfile',
  'tsconfig.json',
  'contributing.md',
  'architecture.md',
  'design.md',
]);

export function isImportant(relPath: string): boolean {
  const base = relPath.split('/').pop()!.toLowerCase();
  if (!IMPORTANT_NAMES.has(base) && !base.endsWith('.csproj')) return false;
  // Manifests deep in the tree are ordinary files; only the top two levels are "important".
  return relPath.split('/').length <= 2;
}
