import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './paths.js';
import { unavailable } from './requirements.js';

// A real OpenSSH server on 127.0.0.1 for the remote-host tests: a throwaway host key and user
// key in a temp dir, logins only with that key, and the "remote" side's environment (its own
// XDG_RUNTIME_DIR, clippy on its PATH) set by sshd itself for every session.

/** Where Debian's sshd lives (not on a normal user's PATH). */
const SSHD = '/usr/sbin/sshd';
/** How long sshd may take to listen. */
const SSHD_READY_TIMEOUT_MS = 10_000;
/** How long sshd gets to end after SIGTERM before SIGKILL. */
const SSHD_STOP_TIMEOUT_MS = 3_000;

/** Why a real sshd cannot run here, or null when it can (in CI: throws). */
export function sshdUnavailable(): string | null {
  return unavailable(sshdMissing());
}

function sshdMissing(): string | null {
  if (!fs.existsSync(SSHD)) return `${SSHD} is not installed (apt-get install openssh-server)`;
  for (const tool of ['ssh', 'ssh-keygen']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `${tool} is not installed (apt-get install openssh-client)`;
    }
  }
  return null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export class TestSshd {
  /** The ssh config host name that reaches this server as this user. */
  readonly alias = 'clippy-test-remote';
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly child: ChildProcess,
    /** `ssh -F <config>`: what $CLIPPY_SSH_COMMAND is set to. */
    readonly sshCommand: string,
  ) {}

  get pid(): number {
    return this.child.pid!;
  }

  /**
   * Starts sshd; `remoteEnv` is set in every session it runs (the remote side's
   * XDG_RUNTIME_DIR and the like). clippy's bin directory and node's are put first on its PATH.
   */
  static async start(remoteEnv: Record<string, string>): Promise<TestSshd> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-sshd-'));
    const key = (name: string) => path.join(dir, name);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key('host_key')]);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key('user_key')]);
    fs.copyFileSync(key('user_key.pub'), key('authorized_keys'));
    // Privilege separation needs this directory when sshd runs as root (Debian's unit makes it).
    if (process.getuid?.() === 0) fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    const port = await freePort();
    const pathDirs = [
      path.join(repoRoot, 'packages', 'cli', 'bin'),
      path.dirname(process.execPath),
      '/usr/local/bin',
      '/usr/bin',
      '/bin',
    ];
    const setEnv = { ...remoteEnv, PATH: pathDirs.join(':') };
    const config = [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${key('host_key')}`,
      `AuthorizedKeysFile ${key('authorized_keys')}`,
      `PidFile ${key('sshd.pid')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      'PermitRootLogin prohibit-password',
      'AllowStreamLocalForwarding yes',
      'LogLevel ERROR',
      `SetEnv ${Object.entries(setEnv)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    ];
    fs.writeFileSync(key('sshd_config'), `${config.join('\n')}\n`);
    const user = os.userInfo().username;
    fs.writeFileSync(
      key('ssh_config'),
      [
        `Host ${'clippy-test-remote'}`,
        '  HostName 127.0.0.1',
        `  Port ${port}`,
        `  User ${user}`,
        `  IdentityFile ${key('user_key')}`,
        '  IdentitiesOnly yes',
        '  StrictHostKeyChecking no',
        '  UserKnownHostsFile /dev/null',
        '  BatchMode yes',
        '  LogLevel ERROR',
        '',
      ].join('\n'),
    );
    const child = spawn(SSHD, ['-D', '-e', '-f', key('sshd_config')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4_000)));
    const deadline = Date.now() + SSHD_READY_TIMEOUT_MS;
    for (;;) {
      const up = await new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1');
        s.once('connect', () => (s.destroy(), resolve(true)));
        s.once('error', () => resolve(false));
      });
      if (up) break;
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        fs.rmSync(dir, { recursive: true, force: true });
        throw new Error(`sshd did not start: ${stderr.trim() || `exit ${child.exitCode}`}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return new TestSshd(dir, port, child, `ssh -F ${key('ssh_config')}`);
  }

  /**
   * The PIDs of the SSH masters the CLI left running under `runtimeDir` for this server (each
   * holds a forwarding; they outlive the command by `ControlPersist`).
   */
  masterPids(runtimeDir: string): number[] {
    const dir = path.join(runtimeDir, 'clippy', 'ssh');
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.ctl'))
      .flatMap((f) => {
        const r = spawnSync(
          'ssh',
          [
            '-F',
            path.join(this.dir, 'ssh_config'),
            '-S',
            path.join(dir, f),
            '-O',
            'check',
            this.alias,
          ],
          { encoding: 'utf8' },
        );
        const m = /pid=(\d+)/u.exec(r.stderr);
        return m ? [Number(m[1])] : [];
      });
  }

  /** Stops the SSH masters the CLI left under `runtimeDir` for this server, by PID. */
  async stopMasters(runtimeDir: string): Promise<void> {
    for (const pid of this.masterPids(runtimeDir)) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        continue; // already gone
      }
      const deadline = Date.now() + SSHD_STOP_TIMEOUT_MS;
      while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Stops sshd (by its PID) and removes its keys. */
  async stop(): Promise<void> {
    const pid = this.child.pid!;
    if (alive(pid)) {
      this.child.kill('SIGTERM');
      const deadline = Date.now() + SSHD_STOP_TIMEOUT_MS;
      while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      if (alive(pid)) this.child.kill('SIGKILL');
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
