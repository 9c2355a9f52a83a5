import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { daemonPath } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import {
  LAUNCHD_LABEL,
  UNIT_NAME,
  launchdPlist,
  launchdPlistPath,
  systemdUnit,
  systemdUnitPath,
} from './service-files.js';

/** Longest a systemctl/launchctl call may take. */
const SERVICE_MANAGER_TIMEOUT_MS = 30_000;

export interface InstallArgs {
  now?: boolean;
  enable?: boolean;
}

/** Runs a service manager command; its error text, or null when it worked. */
function run(cmd: string, args: string[]): string | null {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: SERVICE_MANAGER_TIMEOUT_MS });
  if (r.error) return `${cmd}: ${r.error.message}`;
  if (r.status !== 0) return `${cmd} ${args.join(' ')}: ${(r.stderr || r.stdout).trim()}`;
  return null;
}

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** `clippy daemon install [--now] [--no-enable]`. */
export function install(args: InstallArgs): void {
  const target = { node: process.execPath, clippyd: daemonPath() };
  const enable = args.enable !== false;
  const out: string[] = [];
  if (process.platform === 'darwin') {
    const file = launchdPlistPath();
    write(file, launchdPlist(target, process.env));
    out.push(`wrote ${file}`);
    if (enable) {
      const uid = process.getuid?.() ?? 0;
      const err = run('launchctl', ['bootstrap', `gui/${uid}`, file]);
      if (err) throw new CliError(`wrote ${file} but could not load it: ${err}`, EXIT.failure);
      out.push('loaded: launchd starts clippyd now and at every login');
    }
    out.push('logs: ~/Library/Logs/clippy/clippyd.log', 'undo: clippy daemon uninstall');
  } else {
    const file = systemdUnitPath(process.env);
    write(file, systemdUnit(target));
    out.push(`wrote ${file}`);
    if (enable) {
      const err =
        run('systemctl', ['--user', 'daemon-reload']) ??
        run('systemctl', ['--user', 'enable', ...(args.now ? ['--now'] : []), UNIT_NAME]);
      if (err) {
        throw new CliError(
          `wrote ${file} but could not enable it: ${err}\n` +
            `enable it where a user systemd runs: systemctl --user enable --now ${UNIT_NAME}`,
          EXIT.failure,
        );
      }
      out.push(
        args.now
          ? 'enabled and started: systemd starts clippyd at every login'
          : 'enabled: systemd starts clippyd at the next login (--now: also now)',
      );
    } else {
      out.push(
        `enable it with: systemctl --user daemon-reload && systemctl --user enable --now ${UNIT_NAME}`,
      );
    }
    out.push(`logs: journalctl --user -u ${UNIT_NAME}`, 'undo: clippy daemon uninstall');
  }
  out.push(
    'a daemon already started on demand keeps serving (same socket); the service one starts with the next login',
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

/** `clippy daemon uninstall`: disables and removes the service file (the running daemon stays). */
export function uninstall(args: InstallArgs): void {
  const enable = args.enable !== false;
  const out: string[] = [];
  if (process.platform === 'darwin') {
    const file = launchdPlistPath();
    if (enable) run('launchctl', ['bootout', `gui/${process.getuid?.() ?? 0}/${LAUNCHD_LABEL}`]);
    if (!fs.existsSync(file)) throw new CliError(`nothing to uninstall: no ${file}`, EXIT.failure);
    fs.rmSync(file);
    out.push(`removed ${file}`);
  } else {
    const file = systemdUnitPath(process.env);
    if (!fs.existsSync(file)) throw new CliError(`nothing to uninstall: no ${file}`, EXIT.failure);
    // Disabling first (systemd needs the file for it); a user manager that is absent is fine.
    if (enable) run('systemctl', ['--user', 'disable', UNIT_NAME]);
    fs.rmSync(file);
    if (enable) run('systemctl', ['--user', 'daemon-reload']);
    out.push(`removed ${file}`);
  }
  out.push('the running daemon, if any, keeps serving: `clippy daemon stop` ends it');
  process.stdout.write(`${out.join('\n')}\n`);
}
