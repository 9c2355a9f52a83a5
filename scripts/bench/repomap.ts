// Benchmark: `clippy map` (cold and warm cache) against `repomix --compress` on trees of real code
// copied from installed npm packages (and a few packed from the registry for the large tree).
// Prints figures and ratios; never asserts times. Run: npx tsx scripts/bench/repomap.ts
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './_common.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const NODE_MODULES = path.join(ROOT, 'node_modules');
const CLI = path.join(ROOT, 'packages', 'cli', 'bin', 'clippy.js');
const REPOMAP_DIST = path.join(ROOT, 'packages', 'repomap', 'dist', 'index.js');
/** Files in the "medium" tree (the issue's ~1,500-file case). */
const MEDIUM_FILES = 1_500;
/** Files in the large tree (the issue's ≥ 10,000-file case). */
const LARGE_FILES = 10_000;
/** Packages the medium tree is made of, in order, until it holds MEDIUM_FILES files. */
const MEDIUM_PACKAGES = ['zod', 'ajv', 'yaml', 'yargs', 'pino'];
/** Packed from the registry when node_modules alone holds fewer than LARGE_FILES files. */
const EXTRA_PACKAGES = ['lodash@4.17.21', 'rxjs@7.8.1', 'date-fns@3.6.0'];
/** A repomix run longer than this is stopped and reported as such. */
const REPOMIX_TIMEOUT_MS = 600_000;
const REPOMIX_VERSION = 'repomix@1';
const BUDGET = '20000';
/** Directory names renamed on copy, so default excludes do not hide packaged code. */
const RENAME_DIRS = new Set(['node_modules', 'dist', 'build', 'out', 'target', 'coverage', '.git']);

function copyTree(from: string, to: string, limit: { left: number }): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(from, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  fs.mkdirSync(to, { recursive: true });
  for (const e of entries) {
    if (limit.left <= 0) return;
    const src = path.join(from, e.name);
    if (e.isDirectory()) {
      const name = RENAME_DIRS.has(e.name) ? `_${e.name}` : e.name;
      copyTree(src, path.join(to, name), limit);
    } else if (e.isFile() && !e.name.startsWith('.')) {
      fs.copyFileSync(src, path.join(to, e.name));
      limit.left--;
    }
  }
}

function countFiles(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) n++;
  return n;
}

function topPackages(): string[] {
  const out: string[] = [];
  for (const name of fs.readdirSync(NODE_MODULES).sort()) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) {
      for (const sub of fs.readdirSync(path.join(NODE_MODULES, name)).sort())
        out.push(`${name}/${sub}`);
    } else out.push(name);
  }
  return out.filter((p) => !p.startsWith('@clippy/'));
}

/** GNU time, when installed, also gives CPU seconds (a fairer figure on a loaded machine). */
const GNU_TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

interface Run {
  wall: number;
  cpu: number;
  ok: boolean;
  stderr: string;
}

/** Runs a command, returning wall seconds and (with GNU time) user+sys CPU seconds. */
function measure(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; timeout?: number } = {},
): Run {
  const t0 = performance.now();
  const [bin, argv] = GNU_TIME ? [GNU_TIME, ['-f', 'CPU %U %S', cmd, ...args]] : [cmd, args];
  const r = spawnSync(bin, argv, { env: opts.env, timeout: opts.timeout, encoding: 'utf8' });
  const wall = (performance.now() - t0) / 1000;
  const m = /CPU ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr ?? '');
  const cpu = m ? Number(m[1]) + Number(m[2]) : Number.NaN;
  return { wall, cpu, ok: !r.error && r.status === 0, stderr: r.error?.message ?? r.stderr ?? '' };
}

const fmt = (r: Run) => `${r.wall.toFixed(2)} s (CPU ${r.cpu.toFixed(2)} s)`;

function clippyRunner(work: string): { cmd: string; pre: string[]; cli: boolean; how: string } {
  const probe = spawnSync(process.execPath, [CLI, 'map', '--help'], { encoding: 'utf8' });
  if (probe.status === 0) {
    return {
      cmd: process.execPath,
      pre: [CLI, 'map'],
      cli: true,
      how: 'node packages/cli/bin/clippy.js map',
    };
  }
  // The CLI does not start (another package's build is broken): run the same library call.
  const script = path.join(work, 'clippy-map.mjs');
  fs.writeFileSync(
    script,
    `const m = await import(${JSON.stringify(REPOMAP_DIST)});\n` +
      `const [root, out] = process.argv.slice(2);\n` +
      `const r = await m.generateMap({ root, budget: ${BUDGET} });\n` +
      `(await import('node:fs')).writeFileSync(out, r.output);\n`,
  );
  const why = probe.stderr.split('\n').find((l) => l.includes('Error')) ?? `exit ${probe.status}`;
  return {
    cmd: process.execPath,
    pre: [script],
    cli: false,
    how: `generateMap() from packages/repomap/dist in a fresh node process (the clippy CLI did not start: ${why})`,
  };
}

export async function run(): Promise<void> {
  const temp = tempDir('clippy-bench-repomap-');
  const work = temp.dir;
  try {
    if (!fs.existsSync(REPOMAP_DIST)) throw new Error('build first: npm run build');
    // Trees.
    const medium = path.join(work, 'medium');
    const limit = { left: MEDIUM_FILES };
    for (const p of MEDIUM_PACKAGES)
      copyTree(path.join(NODE_MODULES, p), path.join(medium, p), limit);
    const large = path.join(work, 'large');
    const big = { left: LARGE_FILES + 500 };
    for (const p of topPackages())
      copyTree(path.join(NODE_MODULES, p), path.join(large, p.replace('/', '__')), big);
    if (countFiles(large) < LARGE_FILES) {
      const packs = path.join(work, 'packs');
      fs.mkdirSync(packs);
      for (const spec of EXTRA_PACKAGES) {
        if (countFiles(large) >= LARGE_FILES) break;
        const tgz = execFileSync('npm', ['pack', spec, '--silent', '--pack-destination', packs], {
          encoding: 'utf8',
        })
          .trim()
          .split('\n')
          .pop()!;
        const dest = path.join(packs, spec.replace(/[@/]/g, '_'));
        fs.mkdirSync(dest);
        execFileSync('tar', ['xzf', path.join(packs, tgz), '-C', dest]);
        copyTree(dest, path.join(large, `packed_${spec.replace(/[@/.]/g, '_')}`), big);
      }
    }
    // repomix, installed for the benchmark only.
    const prefix = path.join(work, 'repomix');
    execFileSync(
      'npm',
      ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--silent', REPOMIX_VERSION],
      { stdio: 'inherit' },
    );
    const repomixBin = path.join(prefix, 'node_modules', '.bin', 'repomix');
    const repomixVersion = execFileSync(repomixBin, ['--version'], { encoding: 'utf8' }).trim();

    const runner = clippyRunner(work);
    console.log(`clippy runner: ${runner.how}`);
    console.log(`repomix: ${repomixVersion} (--compress)`);
    console.log(
      `machine: ${os.cpus().length} cores, node ${process.version}, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    if (runner.cli) {
      // What every clippy command pays before it starts (module loading), for the warm figure.
      const startup = [1, 2, 3].map(() => measure(process.execPath, [CLI, '--help']));
      const best = startup.reduce((a, b) => (a.wall <= b.wall ? a : b));
      console.log(`clippy CLI startup (clippy --help): ${fmt(best)}`);
    }
    console.log('');
    const rows: string[] = [];
    for (const [name, tree] of [
      ['medium', medium],
      ['large', large],
    ] as const) {
      const files = countFiles(tree);
      const cache = path.join(work, `cache-${name}`);
      const out = path.join(work, `${name}.md`);
      const env = { ...process.env, XDG_CACHE_HOME: cache };
      const clippy = () => {
        const tail = runner.cli ? ['--budget', BUDGET, '--output', out] : [out];
        const r = measure(runner.cmd, [...runner.pre, tree, ...tail], {
          env: { ...env, NODE_OPTIONS: '' },
        });
        if (!r.ok) throw new Error(`clippy map failed: ${r.stderr}`);
        return r;
      };
      const cold = clippy();
      const warms = [clippy(), clippy()];
      const warm = warms[0]!.wall <= warms[1]!.wall ? warms[0]! : warms[1]!;
      const rmOut = path.join(work, `${name}-repomix.xml`);
      const repomix = measure(repomixBin, ['--compress', '--quiet', '-o', rmOut, tree], {
        timeout: REPOMIX_TIMEOUT_MS,
      });
      const note = repomix.ok ? '' : ` (repomix failed: ${repomix.stderr.slice(0, 200)})`;
      rows.push(
        `${name.padEnd(7)} ${String(files).padStart(6)} files | clippy cold ${fmt(cold)}, ` +
          `warm ${fmt(warm)} | repomix --compress ${fmt(repomix)}${note} | cold speed-up ` +
          `×${(repomix.wall / cold.wall).toFixed(1)} wall, ×${(repomix.cpu / cold.cpu).toFixed(1)} CPU`,
      );
      console.log(rows[rows.length - 1]);
    }
    console.log(
      '\ntargets: cold ≥ 3× faster than repomix --compress; warm ≤ 0.5 s (medium); large cold < 10 s',
    );
  } finally {
    temp.remove();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
