import { execFile } from 'node:child_process';

/** How long reading a terminal's settings may take (stty answers at once). */
const STTY_TIMEOUT_MS = 2_000;

/**
 * Whether the terminal at `ptsName` is in canonical mode (the kernel assembles lines and cuts
 * them at 4095 bytes on Linux), read with `stty -a`. Null when it cannot be told.
 */
export function readCanonicalMode(ptsName: string | undefined): Promise<boolean | null> {
  if (!ptsName) return Promise.resolve(null);
  const flag = process.platform === 'linux' ? '-F' : '-f';
  return new Promise((resolve) => {
    execFile('stty', [flag, ptsName, '-a'], { timeout: STTY_TIMEOUT_MS }, (err, stdout) => {
      if (err) return resolve(null);
      if (/(^|\s)-icanon(\s|$)/.test(stdout)) return resolve(false);
      if (/(^|\s)icanon(\s|$)/.test(stdout)) return resolve(true);
      resolve(null);
    });
  });
}
