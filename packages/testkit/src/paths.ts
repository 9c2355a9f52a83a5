import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (works from src/ under vitest and from dist/ in built code). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** `../shared/corpus` beside the clone: present in CI and on the developers' machines, absent in users' clones. */
export const corpusDir = resolve(repoRoot, '..', 'shared', 'corpus');

/** Whether the real-agent corpus is available; corpus tests skip cleanly when it is not. */
export const hasCorpus = existsSync(corpusDir);

/** Built entry points that end-to-end tests run as real processes (need `npm run build`). */
export const bins = {
  clippy: resolve(repoRoot, 'packages', 'cli', 'bin', 'clippy.js'),
  clippyd: resolve(repoRoot, 'packages', 'broker', 'bin', 'clippyd.js'),
};
