/**
 * `npm run bench [name…]`: runs every benchmark in scripts/bench/ (or the named ones) one after
 * another, each printing its own figures and ratios against the baseline it measures in the
 * same run. Benchmarks never assert a time; a failing one is reported and the rest still run.
 * BENCH_BUSY=N runs them all beside N busy loops in a session of their own (a loaded machine).
 */
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { busyCount, startCpuHogs, type CpuHogs } from './_busy.js';
// Armed before any benchmark loads: an interrupted run exits through process.exit, so the
// 'exit' handler below stops the busy loops then too.
import './_interrupt.js';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .filter((f) => wanted.length === 0 || wanted.includes(basename(f, '.ts')))
  .sort();

if (files.length === 0) {
  process.stderr.write(`no benchmark matches ${wanted.join(', ')}\n`);
  process.exit(64);
}

let busy: number;
let hogs: CpuHogs | null;
try {
  busy = busyCount();
  hogs = busy > 0 ? startCpuHogs(busy) : null;
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(64);
}
if (hogs) {
  process.stdout.write(
    `busy: ${busy} CPU hogs in a session of their own (process group ${hogs.pid})\n`,
  );
  // Stopped however the run ends; an interrupted run must not leave the cores busy.
  process.once('exit', () => hogs?.stop());
}

let failed = 0;
for (const file of files) {
  process.stdout.write(`\n=== ${basename(file, '.ts')} ===\n`);
  const started = performance.now();
  try {
    const mod = (await import(pathToFileURL(join(here, file)).href)) as {
      run?: () => Promise<void>;
    };
    if (typeof mod.run !== 'function') throw new Error(`${file} exports no run()`);
    await mod.run();
  } catch (err) {
    failed++;
    process.stdout.write(`FAILED: ${(err as Error).stack ?? String(err)}\n`);
  }
  process.stdout.write(`(${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
}
hogs?.stop();
process.exitCode = failed ? 1 : 0;
