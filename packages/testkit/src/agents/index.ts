import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { repoRoot } from '../paths.js';

/** The fake agents, by name. Each is a node script run in a real PTY. */
export const AGENT_NAMES = ['claude', 'aider', 'slow', 'big', 'crash'] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

const SOURCES = resolve(repoRoot, 'packages', 'testkit', 'src', 'agents');
/** Bundles of the fake agents, one folder per version of their sources (inside the clone). */
const BUNDLES = resolve(repoRoot, 'node_modules', '.cache', 'clippy-fake-agents');

let bundled: string | null = null;

/** Every source file of the fake agents, for the hash that names their bundle. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory()
        ? sourceFiles(join(dir, e.name))
        : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
          ? [join(dir, e.name)]
          : [],
    )
    .sort();
}

/**
 * The folder of the fake agents bundled from their sources (esbuild, a few tens of
 * milliseconds, once per version of the sources): tests run them as they are in the tree, with
 * no `npm run build` and never a stale dist/, and each starts as plain node (tsx would add half
 * a second of CPU to every start). Concurrent test workers each write their own copy and
 * rename it into place; the first rename wins, and the others' copies are identical.
 */
function bundleDir(): string {
  if (bundled) return bundled;
  const hash = createHash('sha256');
  for (const file of sourceFiles(SOURCES)) hash.update(file).update(readFileSync(file));
  const dir = join(BUNDLES, hash.digest('hex').slice(0, 16));
  if (!existsSync(dir)) {
    mkdirSync(BUNDLES, { recursive: true });
    const tmp = `${dir}.${process.pid}.tmp`;
    buildSync({
      entryPoints: AGENT_NAMES.map((name) => join(SOURCES, `${name}.ts`)),
      outdir: tmp,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'error',
    });
    try {
      renameSync(tmp, dir);
    } catch (err) {
      rmSync(tmp, { recursive: true, force: true });
      if (!existsSync(dir)) throw err; // not another worker's rename that came first
    }
  }
  bundled = dir;
  return dir;
}

/** Path of a fake agent's script (bundled from the sources on first use). */
export function agentScript(name: AgentName): string {
  return join(bundleDir(), `${name}.mjs`);
}

/** The command and arguments that start a fake agent (for `spawn` or `clippy new --`). */
export function agentCommand(
  name: AgentName,
  args: string[] = [],
): { command: string; args: string[] } {
  return { command: process.execPath, args: [agentScript(name), ...args] };
}

export type { Submission } from './lib/log.js';
export { answerLines, bigLine, pieceLine } from './lib/answer.js';
