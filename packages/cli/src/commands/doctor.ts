import type { CommandModule } from 'yargs';
import { PROTOCOL_VERSION, type SessionInfo } from '@clippy/protocol';
import { DaemonVersionError, connectForCommand, withSocket, type CommonArgs } from '../connect.js';
import {
  checkAgentChannels,
  checkClipboard,
  checkConfig,
  checkDetachKey,
  checkHotkeys,
  checkNode,
  checkNodePty,
  checkSocketDir,
  checkStaleSocket,
  processEnv,
  type Check,
  type DaemonClipboard,
} from '../doctor/checks.js';
import { detectClipboard } from '../clipboard.js';
import { EXIT } from '../exit-codes.js';
import { cliVersion } from '../cli-version.js';
import { RESTART_ENDS_SESSIONS, upgradeNotice } from '../upgrade-notice.js';

interface DoctorArgs extends CommonArgs {
  json?: boolean;
}

/** The running daemon against this CLI: the same protocol, or what to do. Starts nothing. */
async function checkDaemon(args: CommonArgs): Promise<Check> {
  try {
    const { client } = await connectForCommand(args, { autoStart: false, upgradeNotice: false });
    try {
      const s = await client.request('daemon_status', {});
      const upgrade = upgradeNotice(s.package_version, s.pid);
      if (upgrade) {
        return {
          name: 'daemon',
          status: 'warn',
          detail: `runs clippy ${s.package_version}, this CLI is ${cliVersion()} (protocol ${s.version} both)`,
          fix: `\`clippy daemon restart\` runs ${cliVersion()}; ${RESTART_ENDS_SESSIONS} (${s.live_sessions} live)`,
        };
      }
      return {
        name: 'daemon',
        status: 'ok',
        detail: `pid ${s.pid}, clippy ${s.package_version}, protocol ${s.version} (the CLI's too)`,
      };
    } finally {
      await client.close();
    }
  } catch (err) {
    if (err instanceof DaemonVersionError) {
      return {
        name: 'daemon',
        status: 'fail',
        detail: `the running daemon${err.brokerPid ? ` (pid ${err.brokerPid})` : ''} does not speak protocol ${PROTOCOL_VERSION}, this clippy's`,
        fix: '`clippy daemon restart --force` (its sessions end: the daemon owns their terminals)',
      };
    }
    const message = (err as Error).message;
    if (/not running/.test(message)) {
      return { name: 'daemon', status: 'ok', detail: 'not running (starts on demand)' };
    }
    return {
      name: 'daemon',
      status: 'fail',
      detail: message,
      fix: 'see the socket checks above; `clippy daemon start --foreground` shows why it fails',
    };
  }
}

/**
 * The running daemon as the clipboard check needs it (its environment, its attached clients),
 * or null when none runs here. A daemon on another host (`--host`) has no environment here.
 */
async function daemonClipboard(args: CommonArgs): Promise<DaemonClipboard | null> {
  let opened;
  try {
    opened = await connectForCommand(args, { autoStart: false, upgradeNotice: false });
  } catch {
    return null;
  }
  const { client, remote } = opened;
  try {
    const [status, { clients }] = await Promise.all([
      client.request('daemon_status', {}),
      client.request('list_clients', {}),
    ]);
    return { env: remote ? null : processEnv(status.pid), attached: clients.length };
  } catch {
    return null;
  } finally {
    await client.close();
  }
}

/** The running daemon's sessions, or null when none runs here (none is started for it). */
async function daemonSessions(args: CommonArgs): Promise<SessionInfo[] | null> {
  let opened;
  try {
    opened = await connectForCommand(args, { autoStart: false, upgradeNotice: false });
  } catch {
    return null;
  }
  try {
    return (await opened.client.request('list_sessions', {})).sessions;
  } catch {
    return null;
  } finally {
    await opened.client.close();
  }
}

/** `clippy doctor`: checks what clippy needs and says how to fix each problem. */
const command: CommandModule<object, DoctorArgs> = {
  command: 'doctor',
  describe:
    'Check Node, node-pty, the socket, the daemon, clipboard, hotkeys, agent channels and config files',
  builder: (y) =>
    withSocket(y).option('json', {
      type: 'boolean',
      describe: 'print {"ok": bool, "checks": [{name, status, detail, fix}]}',
    }) as never,
  handler: async (argv) => {
    const env = process.env;
    const checks: Check[] = [
      checkNode(),
      checkNodePty(),
      checkSocketDir(env, argv.socket),
      await checkStaleSocket(env, argv.socket),
      await checkDaemon(argv),
      checkClipboard(env, await daemonClipboard(argv), detectClipboard()?.name ?? null),
      checkHotkeys(env),
      checkAgentChannels(await daemonSessions(argv)),
      ...checkConfig(env),
      checkDetachKey(env),
    ];
    const ok = checks.every((c) => c.status !== 'fail');
    if (argv.json) {
      process.stdout.write(`${JSON.stringify({ ok, checks }, null, 2)}\n`);
    } else {
      for (const c of checks) {
        const mark = c.status === 'ok' ? 'ok  ' : c.status === 'warn' ? 'warn' : 'FAIL';
        process.stdout.write(`${mark}  ${c.name.padEnd(10)} ${c.detail}\n`);
        if (c.fix) process.stdout.write(`      ${''.padEnd(10)} fix: ${c.fix}\n`);
      }
      const failed = checks.filter((c) => c.status === 'fail').length;
      process.stdout.write(
        ok ? 'all is well\n' : `${failed} problem${failed === 1 ? '' : 's'} found\n`,
      );
    }
    process.exitCode = ok ? EXIT.ok : EXIT.failure;
  },
};

export default command;
