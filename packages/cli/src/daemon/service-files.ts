import os from 'node:os';
import path from 'node:path';
import { DAEMON_EXIT_ALREADY_RUNNING } from '@clippy/client/lean';
import { DAEMON_EXIT_INVALID_CONFIG, DAEMON_NODE_FLAGS } from '@clippy/protocol';

// The files that make the service manager start clippyd at login: a systemd user unit (Linux)
// or a launchd agent (macOS). Both run `clippyd --foreground` on the default socket, the one the
// CLI starts on demand: whichever comes first serves, the other finds it live and leaves it.

/** The systemd unit's name. */
export const UNIT_NAME = 'clippyd.service';
/** The launchd agent's label (and file name). */
export const LAUNCHD_LABEL = 'dev.clippy.clippyd';

export interface ServiceTarget {
  /** The node binary that runs clippyd (the one running this CLI). */
  node: string;
  /** clippyd's entry point. */
  clippyd: string;
}

/** `$XDG_CONFIG_HOME/systemd/user/clippyd.service` (default `~/.config`). */
export function systemdUnitPath(env: NodeJS.ProcessEnv, home = os.homedir()): string {
  const config = env.XDG_CONFIG_HOME || path.join(home, '.config');
  return path.join(config, 'systemd', 'user', UNIT_NAME);
}

/** `~/Library/LaunchAgents/dev.clippy.clippyd.plist`. */
export function launchdPlistPath(home = os.homedir()): string {
  return path.join(home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
}

/** systemd quotes: a word with spaces or quotes is written in double quotes, escaped. */
function systemdWord(w: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `"${w.replace(/(["\\])/g, '\\$1')}"`;
}

/**
 * The user unit. systemd's user manager sets XDG_RUNTIME_DIR, so the socket is the CLI's own;
 * stderr goes to the journal. An already running daemon (started on demand) makes this one exit
 * with DAEMON_EXIT_ALREADY_RUNNING, which is neither a failure to restart on nor an error. A
 * broken config file (DAEMON_EXIT_INVALID_CONFIG) is a failure, but restarting cannot mend it.
 */
export function systemdUnit(t: ServiceTarget): string {
  return [
    '[Unit]',
    'Description=clippy broker daemon (clippyd): agent sessions and their turns',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${[t.node, ...DAEMON_NODE_FLAGS, t.clippyd, '--foreground'].map(systemdWord).join(' ')}`,
    'Restart=on-failure',
    `SuccessExitStatus=${DAEMON_EXIT_ALREADY_RUNNING}`,
    `RestartPreventExitStatus=${DAEMON_EXIT_ALREADY_RUNNING} ${DAEMON_EXIT_INVALID_CONFIG}`,
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

const xml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The launchd agent. launchd sets no XDG_RUNTIME_DIR: the installing shell's (and
 * CLIPPY_SOCKET) are written in, so that the agent's socket is the one the CLI looks for.
 */
export function launchdPlist(
  t: ServiceTarget,
  env: NodeJS.ProcessEnv,
  home = os.homedir(),
): string {
  const vars = (['XDG_RUNTIME_DIR', 'CLIPPY_SOCKET', 'XDG_STATE_HOME', 'XDG_CONFIG_HOME'] as const)
    .filter((k) => env[k])
    .map((k) => `      <key>${k}</key><string>${xml(env[k]!)}</string>`);
  const log = path.join(home, 'Library', 'Logs', 'clippy', 'clippyd.log');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '  <dict>',
    `    <key>Label</key><string>${LAUNCHD_LABEL}</string>`,
    '    <key>ProgramArguments</key>',
    '    <array>',
    ...[t.node, ...DAEMON_NODE_FLAGS, t.clippyd, '--foreground'].map(
      (a) => `      <string>${xml(a)}</string>`,
    ),
    '    </array>',
    '    <key>RunAtLoad</key><true/>',
    '    <key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>',
    ...(vars.length > 0
      ? ['    <key>EnvironmentVariables</key>', '    <dict>', ...vars, '    </dict>']
      : []),
    `    <key>StandardErrorPath</key><string>${xml(log)}</string>`,
    `    <key>StandardOutPath</key><string>${xml(log)}</string>`,
    '  </dict>',
    '</plist>',
    '',
  ].join('\n');
}
