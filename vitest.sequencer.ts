import fs from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** A file's imports of a shared scenario suite (`test-support/…`): its tests live there. */
const SUITE_IMPORT = /from '(\.{1,2}\/(?:[^']*\/)?test-support\/[^']+)'/gu;

/** A file's bytes and those of the scenario suites it imports. */
function codeSize(file: string): number {
  let size = 0;
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
    size = text.length;
  } catch {
    return 0;
  }
  for (const [, spec] of text.matchAll(SUITE_IMPORT)) {
    const suite = path.resolve(path.dirname(file), spec!.replace(/\.js$/u, '.ts'));
    try {
      size += fs.statSync(suite).size;
    } catch {
      // Not a file of ours (resolved elsewhere): its own size stands.
    }
  }
  return size;
}

/**
 * vitest's order (groups, then projects, then the slowest first from the last run's durations),
 * except where no duration is known (a clean checkout: CI): vitest then takes the larger file
 * first, and every real-agent file is 15 lines that run a shared suite of several minutes, so
 * they ran last and OpenCode's five minutes were the run's tail. Here such a file weighs what
 * it runs: its own bytes and those of the suites it imports.
 */
export default class SuiteSizeSequencer extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const sizes = new Map<string, number>();
    const size = (s: TestSpecification) => {
      let n = sizes.get(s.moduleId);
      if (n === undefined) sizes.set(s.moduleId, (n = codeSize(s.moduleId)));
      return n;
    };
    const key = (s: TestSpecification) =>
      `${s.project.name}:${path.relative(this.ctx.config.root, s.moduleId)}`;
    return Promise.resolve(
      [...files].sort((a, b) => {
        const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
        if (group !== 0) return group;
        // One project's files together: a worker goes on with the next without a new start.
        if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
        if (a.project.config.isolate !== b.project.config.isolate)
          return a.project.config.isolate ? -1 : 1;
        const ra = cache.getFileTestResults(key(a));
        const rb = cache.getFileTestResults(key(b));
        if (ra && rb) {
          if (ra.failed !== rb.failed) return ra.failed ? -1 : 1;
          return rb.duration - ra.duration;
        }
        return size(b) - size(a);
      }),
    );
  }
}
