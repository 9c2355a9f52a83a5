import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURE_DIR = fileURLToPath(new URL('./fixtures/repo', import.meta.url));
export const GOLDEN_DIR = fileURLToPath(new URL('./fixtures/golden', import.meta.url));
export const REPO_ROOT = path.resolve(
  fileURLToPath(new URL('.', import.meta.url)),
  '..',
  '..',
  '..',
);

/**
 * Copies the fixture repository into a fresh temp dir. Ignore files are stored as `dot-*` (so
 * they do not act on the monorepo's own git); the files they must ignore, and the binary,
 * oversized, minified and symlinked cases, are written here.
 */
export function makeFixtureRepo(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-repomap-'));
  const copy = (from: string, to: string) => {
    for (const e of fs.readdirSync(from, { withFileTypes: true })) {
      const name = e.name.startsWith('dot-') ? `.${e.name.slice(4)}` : e.name;
      if (e.isDirectory()) {
        fs.mkdirSync(path.join(to, name), { recursive: true });
        copy(path.join(from, e.name), path.join(to, name));
      } else fs.copyFileSync(path.join(from, e.name), path.join(to, name));
    }
  };
  copy(FIXTURE_DIR, dir);
  const write = (rel: string, data: string | Buffer) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), data);
  };
  write('app.log', 'ignored by *.log\n');
  write('build/out.js', 'ignored build output\n');
  write('secret/password.txt', 'ignored by secret/*\n');
  write('secret/keep.txt', 're-included by a negation\n');
  write('src/local-only.ts', 'export const ignoredByNestedGitignore = 1;\n');
  write('src/other.gen.ts', 'export const ignoredByRootPattern = 1;\n');
  write('scratch.tmp', 'ignored by .clippyignore\n');
  write('node_modules/dep/index.js', 'module.exports = 1;\n');
  write('.git/HEAD', 'ref: refs/heads/main\n');
  write('package-lock.json', '{}\n');
  write('.env', 'API_KEY=not-a-real-secret\n');
  write('assets/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0x03]));
  fs.symlinkSync('..', path.join(dir, 'src', 'loop'));
  return dir;
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}
