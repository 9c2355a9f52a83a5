import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cliVersion } from './cli-version.js';

/**
 * A daemon started by another clippy release than this one (the CLI was upgraded, the daemon
 * still runs the old code): how to say so. Same protocol version: everything works, but the
 * fixes of the new release reach the sessions only once the daemon is restarted, and a restart
 * ends them. Another protocol version is DaemonVersionError (connect.ts), not this.
 */

/** Says what a restart costs, in the same words everywhere. */
export const RESTART_ENDS_SESSIONS =
  'its sessions end then: the daemon owns their terminals and a new daemon cannot take them over';

/** The notice, or null when the daemon runs this release (or does not say which it runs). */
export function upgradeNotice(
  daemonVersion: string | undefined,
  pid: number | undefined,
): string | null {
  const mine = cliVersion();
  if (daemonVersion === undefined || daemonVersion === mine) return null;
  const who =
    pid === undefined ? 'the running clippy daemon' : `the running clippy daemon (pid ${pid})`;
  return (
    `${who} is clippy ${daemonVersion}, this is clippy ${mine}. ` +
    `Run \`clippy daemon restart\` to run ${mine} (${RESTART_ENDS_SESSIONS}).`
  );
}

/** Where the last notice given is remembered: beside the socket, so one per daemon and login. */
function stampFile(socket: string): string {
  return join(dirname(socket), 'upgrade-notice');
}

/**
 * Prints the notice on stderr once per daemon and pair of releases (the next command is quiet);
 * `clippy daemon status` and `clippy doctor` say it every time.
 */
export function noticeUpgradeOnce(
  socket: string,
  daemonVersion: string | undefined,
  pid: number | undefined,
): void {
  const notice = upgradeNotice(daemonVersion, pid);
  if (notice === null) return;
  const stamp = `${pid ?? '?'} ${daemonVersion} ${cliVersion()}\n`;
  const file = stampFile(socket);
  try {
    if (readFileSync(file, 'utf8') === stamp) return;
  } catch {
    // Not said yet.
  }
  process.stderr.write(`clippy: note: ${notice} \`clippy daemon status\` says it again.\n`);
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, stamp, { mode: 0o600 });
  } catch {
    // Cannot remember: it is said again next time, which is better than never.
  }
}
