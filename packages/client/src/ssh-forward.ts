import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { resolveSocketPaths } from '@clippy/protocol';

// `clippy --host HOST` and the web view's hosts: clippy rides on OpenSSH instead of opening a
// port of its own. One SSH master connection per host (a control socket) carries a forwarding
// of the remote broker's Unix socket to a private local one; every command, attach included,
// and the daemon's bridge for the web view talk to that local socket as to a local daemon. The
// master lingers while idle so the next use reuses it (the CLI's and the daemon's alike: same
// control socket), then ends by itself, closing the forwarding.

/**
 * Reaching a host failed, said in the user's terms (the host first). `usage`: the destination
 * itself is wrong (a command-line mistake), not the host or the link.
 */
export class RemoteHostError extends Error {
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message);
    this.name = 'RemoteHostError';
  }
}

/** How long the SSH master (and its forwarding) stays after its last use: commands in a row reuse it. */
export const SSH_IDLE_PERSIST_S = 300;
/** How long SSH may take to reach the host: an unreachable host fails instead of hanging. */
export const SSH_CONNECT_TIMEOUT_S = 10;
/** Exit status of a remote shell that did not find the command. */
const COMMAND_NOT_FOUND = 127;
/** Exit status ssh itself uses for its own failures (connection, authentication). */
const SSH_FAILED = 255;

/** Where this user's forwardings live: beside the local broker socket, private to the user. */
export function forwardDir(env: NodeJS.ProcessEnv): string {
  return `${resolveSocketPaths(env).dir}/ssh`;
}

/** The ssh program and its arguments: `$CLIPPY_SSH_COMMAND` (as git's GIT_SSH_COMMAND), else ssh. */
export function sshCommand(env: NodeJS.ProcessEnv): string[] {
  const words = (env.CLIPPY_SSH_COMMAND ?? '').trim().split(/\s+/u).filter(Boolean);
  return words.length > 0 ? words : ['ssh'];
}

/** The command that runs clippy on the remote host: `$CLIPPY_REMOTE_CLIPPY`, else `clippy` on its PATH. */
function remoteClippy(env: NodeJS.ProcessEnv): string {
  return env.CLIPPY_REMOTE_CLIPPY?.trim() || 'clippy';
}

/** Short, stable, path-safe key of a destination (Unix socket paths are limited to 108 bytes). */
function keyOf(destination: string, ssh: string[]): string {
  return createHash('sha256')
    .update(`${ssh.join(' ')}\0${destination}`)
    .digest('hex')
    .slice(0, 16);
}

export interface Forward {
  /** The local socket that reaches the remote broker. */
  socket: string;
  /** The SSH control socket of the master connection. */
  control: string;
}

function paths(destination: string, env: NodeJS.ProcessEnv): Forward {
  const dir = forwardDir(env);
  const key = keyOf(destination, sshCommand(env));
  return { socket: `${dir}/${key}.sock`, control: `${dir}/${key}.ctl` };
}

function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.statSync(dir);
  if (st.uid !== process.getuid?.() || (st.mode & 0o077) !== 0) {
    throw new RemoteHostError(
      `${dir} must be a directory only you can use (mode 0700): fix it with 'chmod 700 ${dir}'`,
    );
  }
}

/** Options for every ssh call of one host: the shared master, its lifetime, no hang on a dead host. */
function masterOptions(f: Forward): string[] {
  return [
    '-o',
    'ControlMaster=auto',
    '-o',
    `ControlPath=${f.control}`,
    '-o',
    `ControlPersist=${SSH_IDLE_PERSIST_S}`,
    '-o',
    `ConnectTimeout=${SSH_CONNECT_TIMEOUT_S}`,
    '-o',
    'StreamLocalBindUnlink=yes',
    '-o',
    'ExitOnForwardFailure=yes',
  ];
}

interface SshResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one ssh call; stdin stays the user's (a passphrase or host-key question can be answered). */
function runSsh(args: string[], env: NodeJS.ProcessEnv): Promise<SshResult> {
  const [program, ...pre] = sshCommand(env);
  return new Promise((resolve, reject) => {
    // stdout is read to its end, not to ssh's exit: a master left behind keeps it open.
    const child = spawn(program!, [...pre, ...args], {
      stdio: ['inherit', 'pipe', 'pipe'],
      env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', (err) =>
      reject(new RemoteHostError(`cannot run ${program}: ${err.message}`)),
    );
    child.once('exit', (code, signal) => {
      // The master (ControlPersist) forks away holding our pipes: don't wait for their end.
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });
}

/** The last meaningful line ssh or the remote side printed. */
function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^Warning: Permanently added/u.test(l));
  return lines.at(-1) ?? '';
}

/** ssh's own failure, said in the user's terms. */
function sshFailure(destination: string, r: SshResult): RemoteHostError {
  const why = lastLine(r.stderr) || `ssh exited with ${r.code}`;
  const kind = /Permission denied|Authentication failed|publickey/u.test(why)
    ? 'SSH authentication failed'
    : /Could not resolve|Name or service not known|Connection refused|timed out|No route/u.test(why)
      ? 'cannot reach the host'
      : 'ssh failed';
  return new RemoteHostError(`${destination}: ${kind}: ${why}`);
}

/** Starts the remote daemon when needed and returns its socket path. */
async function remoteSocket(
  destination: string,
  f: Forward,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const clippy = remoteClippy(env);
  const script = `${clippy} daemon start >/dev/null && ${clippy} daemon status --json`;
  const r = await runSsh([...masterOptions(f), destination, script], env);
  if (r.code === SSH_FAILED) throw sshFailure(destination, r);
  if (r.code === COMMAND_NOT_FOUND || /command not found|not found/u.test(lastLine(r.stderr))) {
    throw new RemoteHostError(
      `${destination}: no '${clippy}' on the remote PATH (install clippy there, or set CLIPPY_REMOTE_CLIPPY to its path)`,
    );
  }
  if (r.code !== 0) {
    throw new RemoteHostError(
      `${destination}: the remote clippy could not start its daemon: ${lastLine(r.stderr) || `exit ${r.code}`}`,
    );
  }
  let status: { socket?: unknown };
  try {
    status = JSON.parse(r.stdout) as { socket?: unknown };
  } catch {
    throw new RemoteHostError(
      `${destination}: the remote clippy printed no daemon status (is it clippy? got: ${lastLine(r.stdout) || 'nothing'})`,
    );
  }
  if (typeof status.socket !== 'string' || status.socket === '') {
    throw new RemoteHostError(`${destination}: the remote daemon did not say where its socket is`);
  }
  return status.socket;
}

/**
 * Returns a local socket reaching the broker on `destination` (`[user@]host` or an ssh config
 * alias), opening the SSH master and the forwarding first when they are not there, and
 * starting the remote daemon if it is not running. An existing forwarding is reused as it is;
 * `fresh` (after it failed to reach a daemon) starts the remote daemon again if needed and
 * points the forwarding at its socket.
 */
export async function openForward(
  destination: string,
  env: NodeJS.ProcessEnv,
  fresh = false,
): Promise<Forward> {
  if (destination.startsWith('-')) {
    throw new RemoteHostError(`host '${destination}' cannot start with '-'`, true);
  }
  const f = paths(destination, env);
  ensurePrivateDir(forwardDir(env));
  if (!fresh && fs.existsSync(f.socket) && fs.existsSync(f.control)) return f;
  const remote = await remoteSocket(destination, f, env);
  // A forwarding left from an earlier daemon points nowhere: replace it.
  await runSsh(
    ['-o', `ControlPath=${f.control}`, '-O', 'cancel', '-L', `${f.socket}:${remote}`, destination],
    env,
  );
  const r = await runSsh(
    [...masterOptions(f), '-O', 'forward', '-L', `${f.socket}:${remote}`, destination],
    env,
  );
  if (r.code !== 0) throw sshFailure(destination, r);
  return f;
}

/** Ends the SSH master of `destination` and with it the forwarding (`clippy hosts --close`). */
export async function closeForward(destination: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const f = paths(destination, env);
  if (!fs.existsSync(f.control)) return false;
  const r = await runSsh(['-o', `ControlPath=${f.control}`, '-O', 'exit', destination], env);
  fs.rmSync(f.socket, { force: true });
  return r.code === 0;
}
