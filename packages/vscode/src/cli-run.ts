import { spawn } from 'node:child_process';
import { cliEnv } from './cli-env.js';
import { UserError } from './errors.js';
import { STDERR_TAIL_BYTES } from './limits.js';
import type { Processes } from './processes.js';

/** What a CLI run printed and how it ended. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the clippy CLI (`command` is the clippy.command setting: a program and its first
 * arguments) to its end, in the editor's environment less VS Code's own variables. The child
 * is tracked so that it is stopped with the extension. A CLI that cannot run is a UserError
 * saying what to set.
 */
export function runCli(
  command: string[],
  args: string[],
  opts: { cwd?: string; processes: Processes },
): Promise<CliRun> {
  const [program, ...first] = command;
  return new Promise((resolve, reject) => {
    const child = spawn(program!, [...first, ...args], {
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    opts.processes.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-STDERR_TAIL_BYTES);
    });
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new UserError(
          err.code === 'ENOENT'
            ? `\`${program}\` was not found: install clippy (npm) or set the clippy.command setting`
            : `\`${program}\` could not run: ${err.message}`,
        ),
      ),
    );
    child.once('close', (code, signal) =>
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }),
    );
  });
}

/** A failed run's reason for a message: the CLI's last lines, without its `clippy: ` prefix. */
export function cliFailure(run: CliRun): string {
  return run.stderr
    .trim()
    .split('\n')
    .slice(-3)
    .map((l) => l.replace(/^clippy: /, ''))
    .join(' ');
}
