import fs from 'node:fs';
import path from 'node:path';
import { makeRepo } from './git.js';

/**
 * makeRepo's repository, made once and then copied: a test file that needs a fresh one per
 * test pays git's five processes (init, two adds, two commits) once. A copy is the same
 * repository (same commits, same branch `main`); git finds its index's file times stale and
 * reads the files again, which changes nothing it reports.
 */
export class RepoTemplate {
  private template: string | undefined;

  /** `root`: where the template is made (on first use), beside the copies; its owner removes it. */
  constructor(private readonly root: string) {}

  /** A fresh copy at `dir` (which must not exist yet); returns `dir`. */
  copy(dir: string): string {
    this.template ??= makeRepo(path.join(this.root, '.repo-template'));
    fs.cpSync(this.template, dir, { recursive: true, errorOnExist: true, force: false });
    return dir;
  }
}
