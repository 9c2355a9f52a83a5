import type { ExecFileOptions } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * execFile, promisified, text output. node:child_process is loaded at the first call rather
 * than imported: loading it takes some 8 ms, which every command of the fast path (ls, show…)
 * would pay while only `--focused` and `--notify` run a program.
 */
export function runProgram(
  file: string,
  args: readonly string[],
  options: ExecFileOptions = {},
): Promise<{ stdout: string; stderr: string }> {
  const { execFile } = process.getBuiltinModule('node:child_process');
  return promisify(execFile)(file, args, { ...options, encoding: 'utf8' });
}
