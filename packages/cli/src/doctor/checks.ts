import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import {
  DEFAULT_DETACH_KEY,
  NoRuntimeDirError,
  parseDetachKey,
  resolveSocketPaths,
  type DetachKey,
  type SessionInfo,
} from '@clippy/protocol';
import { presetNames, resolvePreset } from '@clippy/turns';
import { detachKeyProblem, resolveDetachKey } from '../attach/config.js';
import { clipboardTools } from '../clipboard.js';
import { configFilePath, readConfigFile, readPresetsFile } from '../config-files.js';

/** One finding of `clippy doctor`. `warn` is an optional feature that will not work. */
export interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  /** What to do about it (set unless ok). */
  fix?: string;
}

/** The oldest Node clippy runs on (the root package.json's `engines`). */
export const MIN_NODE = [20, 19] as const;
/** How long loading node-pty in a child may take before it counts as hanging. */
const PTY_LOAD_TIMEOUT_MS = 10_000;
/** How long a connect to the socket may take before it counts as not answering. */
const SOCKET_PROBE_TIMEOUT_MS = 2_000;

export function checkNode(version = process.versions.node): Check {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return ok
    ? { name: 'node', status: 'ok', detail: `Node ${version}` }
    : {
        name: 'node',
        status: 'fail',
        detail: `Node ${version} is older than ${MIN_NODE.join('.')}`,
        fix: `install Node ${MIN_NODE.join('.')} or newer`,
      };
}

/**
 * Loads node-pty the way the daemon does (from @clippy/system, whose PTY wrapper its sessions
 * run on), in a child (a broken addon can crash a process).
 */
export function checkNodePty(): Check {
  let systemPkg: string;
  try {
    systemPkg = createRequire(import.meta.url).resolve('@clippy/system/package.json');
  } catch {
    return {
      name: 'node-pty',
      status: 'fail',
      detail: 'the system package is not installed next to the CLI',
      fix: 'run `npm ci` in the clippy checkout',
    };
  }
  const r = spawnSync(
    process.execPath,
    ['-e', "require('node:module').createRequire(process.argv[1])('node-pty')", systemPkg],
    { encoding: 'utf8', timeout: PTY_LOAD_TIMEOUT_MS },
  );
  if (r.status === 0) return { name: 'node-pty', status: 'ok', detail: 'loads' };
  const why = (r.stderr || r.error?.message || 'failed').split('\n').find((l) => /Error/.test(l));
  return {
    name: 'node-pty',
    status: 'fail',
    detail: `does not load: ${why ?? 'unknown error'}`,
    fix: 'rebuild it: `npm rebuild node-pty` in the clippy checkout (needs python3, make and g++)',
  };
}

/** The socket's directory: present (or creatable), ours, and private (0700). */
export function checkSocketDir(env: NodeJS.ProcessEnv, socketFlag?: string): Check {
  let dir: string;
  try {
    dir = resolveSocketPaths(env, socketFlag).dir;
  } catch (err) {
    if (!(err instanceof NoRuntimeDirError)) throw err;
    return {
      name: 'socket dir',
      status: 'fail',
      detail: 'XDG_RUNTIME_DIR is not set: clippy does not know where its socket goes',
      fix: 'log in through a session manager that sets it, or set CLIPPY_SOCKET=/path/to/broker.sock',
    };
  }
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    return { name: 'socket dir', status: 'ok', detail: `${dir} (created when the daemon starts)` };
  }
  const mode = st.mode & 0o777;
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    return {
      name: 'socket dir',
      status: 'fail',
      detail: `${dir} belongs to uid ${st.uid}, not to you`,
      fix: `remove it (as its owner) so that clippy can create its own: rm -r ${dir}`,
    };
  }
  if (mode !== 0o700) {
    return {
      name: 'socket dir',
      status: 'fail',
      detail: `${dir} has mode ${mode.toString(8)}: others could reach the daemon`,
      fix: `chmod 700 ${dir}`,
    };
  }
  return { name: 'socket dir', status: 'ok', detail: `${dir} (0700)` };
}

/** Resolves to the connect error code, or 'ok' when something listens. */
function probe(socket: string): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(socket);
    const timer = setTimeout(() => {
      s.destroy();
      resolve('ETIMEDOUT');
    }, SOCKET_PROBE_TIMEOUT_MS);
    s.once('connect', () => {
      clearTimeout(timer);
      s.destroy();
      resolve('ok');
    });
    s.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(err.code ?? 'error');
    });
  });
}

/** A socket file nobody listens on (left by a killed daemon). */
export async function checkStaleSocket(
  env: NodeJS.ProcessEnv,
  socketFlag?: string,
): Promise<Check> {
  let socket: string;
  try {
    socket = resolveSocketPaths(env, socketFlag).socket;
  } catch {
    return { name: 'socket', status: 'warn', detail: 'no socket path (see socket dir)' };
  }
  if (!fs.existsSync(socket)) return { name: 'socket', status: 'ok', detail: 'no daemon running' };
  const answer = await probe(socket);
  if (answer === 'ok') return { name: 'socket', status: 'ok', detail: `${socket} answers` };
  return {
    name: 'socket',
    status: 'fail',
    detail: `${socket} is left over: nothing listens on it (${answer})`,
    fix: '`clippy daemon start` replaces it (a daemon that was killed left it behind)',
  };
}

function onPath(cmd: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '')
    .split(path.delimiter)
    .some((d) => d !== '' && fs.existsSync(path.join(d, cmd)));
}

/** The running daemon as `deliver --sink clipboard` meets it. */
export interface DaemonClipboard {
  /** Its environment (from /proc on Linux), or null when it cannot be read. */
  env: NodeJS.ProcessEnv | null;
  /** Attached clients: the ones OSC 52 can go through. */
  attached: number;
}

/**
 * What `deliver --sink clipboard` will use: the daemon copies, with the daemon's environment
 * (a daemon started without $DISPLAY cannot use xsel, whatever this shell has), the first
 * program that fits it, else OSC 52 through an attached terminal. `daemon` null: none runs, and
 * the one started on demand gets this environment. `here`: what reports and `map --copy` use.
 */
export function checkClipboard(
  env: NodeJS.ProcessEnv,
  daemon: DaemonClipboard | null,
  here: string | null,
): Check {
  const daemonEnv = daemon ? daemon.env : env;
  const hereText = `; reports and \`map --copy\` here: ${here === 'osc52' ? 'OSC 52 to this terminal' : (here ?? 'none')}`;
  if (!daemonEnv) {
    return {
      name: 'clipboard',
      status: 'warn',
      detail: `deliver --sink clipboard: the daemon's environment cannot be read here, so what it uses is unknown${hereText}`,
      fix: '`clippy deliver --sink clipboard` after a capture shows it',
    };
  }
  const tools = clipboardTools(daemonEnv);
  const used = tools.find((t) => t.fits && t.path);
  const whose = daemon
    ? "the daemon's environment"
    : 'this environment (the daemon starts with it)';
  if (used) {
    return {
      name: 'clipboard',
      status: 'ok',
      detail: `deliver --sink clipboard: ${used.tool.name}${hereText}`,
    };
  }
  const unfit = tools
    .filter((t) => t.path)
    .map((t) =>
      'env' in t.tool.needs
        ? `${t.tool.name} is installed but needs ${t.needs}, unset in ${whose}`
        : `${t.tool.name} is installed but works on ${t.needs} only`,
    );
  const why = unfit.length > 0 ? unfit.join('; ') : 'no clipboard program is installed';
  const attached = daemon?.attached ?? 0;
  const osc52 =
    attached > 0
      ? `OSC 52 through the ${attached} attached terminal${attached === 1 ? '' : 's'} (if the terminal supports it)`
      : 'OSC 52 through an attached terminal, and none is attached now: it fails';
  return {
    name: 'clipboard',
    status: 'warn',
    detail: `deliver --sink clipboard: ${osc52} (${why})${hereText}`,
    fix: tools.some((t) => t.path && 'env' in t.tool.needs)
      ? 'run the daemon where the display is set (`clippy daemon restart` from your desktop session; it ends the sessions), or keep a `clippy attach` open in a terminal with OSC 52'
      : 'install one: `apt-get install xclip` (X11) or `apt-get install wl-clipboard` (Wayland)',
  };
}

/** A process's environment (Linux: /proc/PID/environ, the user's own processes), or null. */
export function processEnv(pid: number): NodeJS.ProcessEnv | null {
  try {
    const env: NodeJS.ProcessEnv = {};
    for (const entry of fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
      const eq = entry.indexOf('=');
      if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
    return env;
  } catch {
    return null;
  }
}

/** What the hotkeys need: tmux (key bindings) or an X display (global keys). */
export function checkHotkeys(env: NodeJS.ProcessEnv): Check {
  const tmux = onPath('tmux', env);
  const x11 = Boolean(env.DISPLAY);
  if (tmux || x11) {
    return {
      name: 'hotkeys',
      status: 'ok',
      detail: [tmux && 'tmux', x11 && `X11 (DISPLAY=${env.DISPLAY})`].filter(Boolean).join(', '),
    };
  }
  return {
    name: 'hotkeys',
    status: 'warn',
    detail: 'neither tmux nor an X display: `clippy hotkeys` has nothing to bind keys in',
    fix: 'install tmux (`apt-get install tmux`) or run under X11 (DISPLAY set)',
  };
}

/** The detach key in force is one `new` and `attach` take (the check they make). */
export function checkDetachKey(env: NodeJS.ProcessEnv): Check {
  const problem = detachKeyProblem(env);
  if (!problem) {
    const { label } = resolveDetachKeyOrDefault(env);
    return { name: 'detach key', status: 'ok', detail: label };
  }
  return {
    name: 'detach key',
    status: 'fail',
    detail: `${problem.from}: ${problem.message}`,
    fix:
      problem.from === 'CLIPPY_DETACH_KEY'
        ? 'set CLIPPY_DETACH_KEY to a key such as ctrl-] or ctrl-q, or unset it'
        : 'set detachKey in config.json to a key such as ctrl-] or ctrl-q, or remove it',
  };
}

/** The key in force, or the default when the config file cannot be read (reported apart). */
function resolveDetachKeyOrDefault(env: NodeJS.ProcessEnv): DetachKey {
  try {
    return resolveDetachKey(undefined, env);
  } catch {
    return parseDetachKey(DEFAULT_DETACH_KEY);
  }
}

/** config.json and presets.json parse, match their schemas, and every preset compiles. */
export function checkConfig(env: NodeJS.ProcessEnv): Check[] {
  const file = configFilePath(env);
  const presetsFile = path.join(path.dirname(file), 'presets.json');
  let config: Check;
  try {
    readConfigFile(env);
    config = {
      name: 'config',
      status: 'ok',
      detail: fs.existsSync(file) ? file : `${file} (absent: defaults)`,
    };
  } catch (err) {
    config = {
      name: 'config',
      status: 'fail',
      detail: (err as Error).message,
      fix: `correct ${file} at the line named`,
    };
  }
  let presets: Check;
  try {
    const user = readPresetsFile(env);
    const broken: string[] = [];
    for (const name of presetNames(user)) {
      try {
        resolvePreset(name, { userPresets: user });
      } catch (err) {
        broken.push((err as Error).message);
      }
    }
    presets =
      broken.length === 0
        ? { name: 'presets', status: 'ok', detail: `${presetNames(user).length} presets compile` }
        : {
            name: 'presets',
            status: 'fail',
            detail: broken.join('; '),
            fix: `correct ${presetsFile}`,
          };
  } catch (err) {
    presets = {
      name: 'presets',
      status: 'fail',
      detail: (err as Error).message,
      fix: `correct ${presetsFile} at the line named`,
    };
  }
  return [config, presets];
}

/**
 * Live agent sessions whose channel could not be wired (their command line is not the agent
 * itself nor a wrapper clippy sees through): their turns come from the screen, Markdown lost.
 * `sessions` null: no daemon runs (nothing to say).
 */
export function checkAgentChannels(sessions: SessionInfo[] | null): Check {
  const agents = (sessions ?? []).filter((s) => s.agent && s.state !== 'exited');
  const off = agents.filter((s) => s.agent_channel === 'off');
  if (off.length === 0)
    return {
      name: 'channels',
      status: 'ok',
      detail:
        agents.length === 0
          ? 'no agent session runs'
          : `every agent session's channel is wired (${agents.length})`,
    };
  return {
    name: 'channels',
    status: 'warn',
    detail: off
      .map((s) => `${s.name} (${s.agent}) reads its turns from the screen: ${s.channel_note}`)
      .join('; '),
    fix: 'start the agent itself, or through env, nice, sh -c, npx or bunx (e.g. `clippy new --preset claude -- bash -lc claude`); `ls --json` shows `agent_channel` and `channel_note`',
  };
}
