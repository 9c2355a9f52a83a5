import { execFileSync } from 'node:child_process';

/** Whether a program is on the PATH (tests that need zsh, fish or less skip, saying so, without it). */
export function installed(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
