import { spawn } from 'node:child_process';
import { AUTOSTART_TIMEOUT_MS, STDERR_TAIL_BYTES } from './limits.js';
import { DaemonError } from './errors.js';

/**
 * Starts the daemon the way every `clippy` command does, by running `clippy daemon start`
 * (with `--socket` when the user gave one). The CLI, not the extension, runs clippyd: it is a
 * Node program with a native module, and VS Code's own process is Electron, not Node. The CLI
 * honours CLIPPYD_PATH as always. Resolves once it exited 0 (the daemon answers then).
 */
export function startDaemon(
  command: string[],
  socketArgs: string[],
  socketPath: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const [program, ...first] = command;
  const args = [...first, 'daemon', 'start', ...socketArgs];
  const shown = [program, ...args].join(' ');
  const cannot = (why: string) =>
    new DaemonError(
      `no clippy daemon is running (socket ${socketPath}) and it cannot be started: ${why}`,
    );
  return new Promise((resolve, reject) => {
    let output = '';
    let settled = false;
    const child = spawn(program!, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const collect = (d: Buffer) => (output = (output + d.toString()).slice(-STDERR_TAIL_BYTES));
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      child.kill('SIGKILL');
      reject(new DaemonError(`\`${shown}\` did not finish within ${AUTOSTART_TIMEOUT_MS} ms`));
    }, AUTOSTART_TIMEOUT_MS);
    child.once('error', (err: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(
        err.code === 'ENOENT'
          ? cannot(
              `\`${program}\` was not found: install clippy (npm) or set the clippy.command ` +
                'setting (e.g. ["node", "/path/to/clippy/packages/cli/bin/clippy.js"])',
            )
          : cannot(`\`${shown}\` could not run: ${err.message}`),
      );
    });
    child.once('close', (code, signal) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (code === 0) resolve();
      else {
        const why = output.trim().split('\n').slice(-3).join(' ');
        reject(
          cannot(
            `\`${shown}\` exited with ${signal ? `signal ${signal}` : `code ${code}`}` +
              (why ? `: ${why}` : ''),
          ),
        );
      }
    });
  });
}
