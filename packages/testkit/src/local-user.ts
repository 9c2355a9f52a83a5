import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { installed } from './installed.js';
import { unavailable } from './requirements.js';

// A second local user for the tests of what another user on the same machine can do to the
// daemon (read `ps`, serve a page on another loopback port, flood a port): created for one test
// file with useradd, its processes run with setpriv, removed with userdel.

/** How long one command run as the user may take before it is killed. */
const RUN_TIMEOUT_MS = 30_000;

/** Why no throwaway user can be made here, or null when one can (in CI: throws). */
export function localUserUnavailable(): string | null {
  return unavailable(localUserMissing());
}

function localUserMissing(): string | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    return 'a second local user needs root (useradd, setpriv): run the tests as root to include them';
  }
  for (const tool of ['useradd', 'userdel', 'setpriv']) {
    if (!installed(tool)) return `${tool} is not installed (apt-get install passwd util-linux)`;
  }
  return null;
}

export interface UserRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A throwaway local user; dispose() stops its processes (by PID) and deletes it. */
export class LocalUser {
  private readonly children = new Set<ChildProcess>();

  private constructor(
    readonly name: string,
    readonly uid: number,
    readonly gid: number,
  ) {}

  /** Creates a user with its own group, no home directory and no password (no login). */
  static create(): LocalUser {
    const name = `clippy-t-${randomBytes(4).toString('hex')}`;
    execFileSync('useradd', ['--no-create-home', '--user-group', '--shell', '/bin/sh', name], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }));
    return new LocalUser(name, id('-u'), id('-g'));
  }

  /** The environment the user's processes get: nothing of the test's (no XDG dirs, no tokens). */
  private env(): NodeJS.ProcessEnv {
    return { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/', LANG: 'C.UTF-8' };
  }

  /** Starts `command` as this user (in `/`); dispose() kills it by PID if it is still running. */
  spawn(command: string, args: readonly string[]): ChildProcess {
    const child = spawn(
      'setpriv',
      [`--reuid=${this.uid}`, `--regid=${this.gid}`, '--clear-groups', '--', command, ...args],
      { cwd: '/', env: this.env(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
    return child;
  }

  /** Runs `command` as this user to its end: its exit code and output. */
  run(command: string, args: readonly string[]): Promise<UserRun> {
    return new Promise((resolve, reject) => {
      const child = this.spawn(command, args);
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
      child.once('error', reject);
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  }

  dispose(): void {
    for (const child of this.children) {
      if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
    }
    this.children.clear();
    try {
      execFileSync('userdel', [this.name], { stdio: 'ignore' });
    } catch {
      // A process of the user's that outlived the test keeps it: userdel --force then.
      execFileSync('userdel', ['--force', this.name], { stdio: 'ignore' });
    }
  }
}
