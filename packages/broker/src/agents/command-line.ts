import { realpathSync } from 'node:fs';
import { basename, isAbsolute, resolve, sep } from 'node:path';
import { shellWord } from './args.js';
import { lastCommand } from './shell-script.js';

/**
 * Finding the agent on a session's command line, so that its channel is wired into the agent's
 * own arguments and nowhere else (issue 44): the user's command line is never broken. Every
 * agent definition declares how its command is recognised (`AgentIdentity`); the command line is
 * the agent itself (its executable, or node/bun running its script), or a wrapper seen through
 * to it (`env`, `nice`, `sh -c '…'`, `npx`/`bunx` of its package), or else not the agent, and the
 * session reads its turns from the screen (saying why).
 */

/** How an agent's command is recognised on a command line. */
export interface AgentIdentity {
  /** Its executables' names, without an extension (`claude`): the command, or a script node runs. */
  bins: readonly string[];
  /** Its npm packages (`@anthropic-ai/claude-code`): `npx`/`bunx` of one, or a script inside one. */
  packages: readonly string[];
}

/** The agent found on a command line: its own arguments, and how to put changed ones back. */
export interface AgentCommandLine {
  /** The agent's own arguments (after its executable, or after the script node runs). */
  own: string[];
  /** The wrappers seen through, outermost first (`bash -c`, `env`): for the log. */
  via: string[];
  /** The environment the agent runs with: the session's, as the wrappers change it. */
  env: Record<string, string>;
  /** The folder the agent runs in (`env -C DIR` changes it). */
  cwd: string;
  /**
   * The session's arguments with `own` in place of the agent's, and the environment for the
   * session's process with `env` (variables the wiring sets) given where the agent gets them.
   */
  rebuild(
    own: string[],
    env?: Record<string, string>,
  ): { args: string[]; env: Record<string, string> };
}

/** Why a command line is not one whose agent clippy can wire. */
export interface NotTheAgent {
  notAgent: string;
}

export interface CommandLineInput {
  /** The session's command as given, and the path it resolved to (when known). */
  command: string;
  resolved?: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd: string;
}

/** Wrappers clippy sees through (said in the reason when a command is none of them). */
const WRAPPERS = 'env, nice, sh/bash/zsh -c, npx, bunx, node/bun running its script';
/** Endings of an executable or script name that do not change which program it is. */
const EXTENSIONS = /\.(exe|cmd|js|mjs|cjs)$/u;
/** Programs that run a script whose own arguments follow it. */
const INTERPRETERS = new Set(['node', 'nodejs', 'bun']);
/** node's (and bun's) options that take the next word as their value. */
const INTERPRETER_VALUE_OPTIONS = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '-C',
  '--conditions',
  '--title',
  '--env-file',
  '--preload',
  '--cwd',
]);
/** node options that mean there is no script (it evaluates text, or reads stdin). */
const INTERPRETER_NO_SCRIPT = new Set([
  '-e',
  '--eval',
  '-p',
  '--print',
  '-i',
  '--interactive',
  '-',
]);
/** Shells whose `-c` script is read. */
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh']);
/** Single-letter shell options allowed beside `-c`: login, interactive, errexit, trace. */
const SHELL_FLAGS = /^-[licex]+$/u;
/** Long shell options that change nothing clippy depends on. */
const SHELL_LONG = new Set(['--login', '--noprofile', '--norc', '--posix']);
/** An environment assignment (`NAME=value`). */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/u;

/**
 * Where the agent sits on the session's command line, or why it is not there: see the module's
 * comment. `locateAgent({command: 'bash', args: ['-lc', 'claude --model x'], …})` gives own
 * `['--model', 'x']`, and `rebuild(['--settings', S, '--model', 'x'])` gives
 * `['-lc', "claude --settings 'S' --model x"]`.
 */
export function locateAgent(
  input: CommandLineInput,
  id: AgentIdentity,
): AgentCommandLine | NotTheAgent {
  const found = locate([input.command, ...input.args], id, {
    env: input.env,
    cwd: input.cwd,
    resolved: input.resolved,
    depth: 0,
  });
  if ('notAgent' in found) return found;
  return {
    own: found.own,
    via: found.via,
    env: found.env,
    cwd: found.cwd,
    rebuild: (own, add = {}) => {
      const words = found.rebuild(own, add);
      return { args: words.slice(1), env: { ...input.env, ...add } };
    },
  };
}

interface Layer {
  env: Record<string, string>;
  cwd: string;
  /** The resolved path of the outermost command (only the session's own command has one). */
  resolved: string | undefined;
  depth: number;
}

interface Found {
  own: string[];
  via: string[];
  env: Record<string, string>;
  cwd: string;
  /** The layer's words (its program first) with the agent's arguments replaced. */
  rebuild(own: string[], env: Record<string, string>): string[];
}

/** Wrappers inside wrappers: deeper is not a command line a person writes. */
const MAX_DEPTH = 6;

function locate(words: string[], id: AgentIdentity, layer: Layer): Found | NotTheAgent {
  const [program, ...rest] = words;
  if (program === undefined || program === '') return { notAgent: 'the command is empty' };
  if (layer.depth > MAX_DEPTH) return { notAgent: 'it wraps the agent too deeply' };
  if (isAgentProgram(program, id, layer)) {
    return {
      own: rest,
      via: [],
      env: layer.env,
      cwd: layer.cwd,
      rebuild: (own, add) => withEnv([program, ...own], add, layer),
    };
  }
  const name = basename(program).replace(EXTENSIONS, '');
  const inner = (words2: string[], env = layer.env, cwd = layer.cwd) =>
    locate(words2, id, { env, cwd, resolved: undefined, depth: layer.depth + 1 });
  if (INTERPRETERS.has(name)) return throughInterpreter(program, rest, id, layer);
  if (name === 'env') return throughEnv(program, rest, layer, inner);
  if (name === 'nice') return throughNice(program, rest, inner);
  if (name === 'npx' || name === 'bunx') return throughPackageRunner(program, rest, id, layer);
  if (SHELLS.has(name)) return throughShell(program, rest, layer, inner);
  return {
    notAgent: `${program} is not ${id.bins.join('/')}, nor a wrapper clippy sees through (${WRAPPERS})`,
  };
}

/**
 * The agent's own program as `layer` runs it: the variables the wiring sets go on the command
 * line only where a wrapper would otherwise drop them (`env -i`, inside `sh -c`); the session's
 * environment carries them anyway.
 */
function withEnv(words: string[], add: Record<string, string>, layer: Layer): string[] {
  if (layer.depth === 0 || Object.keys(add).length === 0) return words;
  const assignments = Object.entries(add).map(([k, v]) => `${k}=${v}`);
  return ['env', ...assignments, ...words];
}

/** Whether `program` (a word of the command line) is the agent's own executable. */
function isAgentProgram(program: string, id: AgentIdentity, layer: Layer): boolean {
  const path = layer.resolved ?? (program.includes('/') ? resolve(layer.cwd, program) : undefined);
  return isAgentFile(program, id) || (path !== undefined && isAgentFile(realPath(path), id));
}

/** Whether the file is the agent's: named as its executable, or inside its package. */
function isAgentFile(path: string, id: AgentIdentity): boolean {
  if (id.bins.includes(basename(path).replace(EXTENSIONS, ''))) return true;
  const parts = path.split(sep);
  return id.packages.some((pkg) => {
    const p = pkg.split('/');
    for (let i = parts.indexOf('node_modules'); i >= 0; i = parts.indexOf('node_modules', i + 1))
      if (p.every((q, k) => parts[i + 1 + k] === q)) return true;
    return false;
  });
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** `node [node options] SCRIPT args`: the agent's arguments follow its script. */
function throughInterpreter(
  program: string,
  rest: string[],
  id: AgentIdentity,
  layer: Layer,
): Found | NotTheAgent {
  let i = 0;
  // `bun run SCRIPT` runs it as `bun SCRIPT` does.
  if (basename(program) === 'bun' && rest[0] === 'run') i = 1;
  for (; i < rest.length; i++) {
    const a = rest[i]!;
    if (INTERPRETER_NO_SCRIPT.has(a)) return { notAgent: `${program} ${a} runs no script` };
    if (!a.startsWith('-')) break;
    if (INTERPRETER_VALUE_OPTIONS.has(a)) i++;
  }
  const script = rest[i];
  if (script === undefined) return { notAgent: `${program} runs no script` };
  const path = isAbsolute(script) ? script : resolve(layer.cwd, script);
  if (!isAgentFile(script, id) && !isAgentFile(realPath(path), id))
    return { notAgent: `${program} runs ${script}, which is not ${id.bins.join('/')}` };
  const lead = [program, ...rest.slice(0, i + 1)];
  return {
    own: rest.slice(i + 1),
    via: [],
    env: layer.env,
    cwd: layer.cwd,
    rebuild: (own, add) => withEnv([...lead, ...own], add, layer),
  };
}

type Inner = (words: string[], env?: Record<string, string>, cwd?: string) => Found | NotTheAgent;

/** `env [-i] [-u NAME] [-C DIR] [NAME=VALUE]… COMMAND…`: the command, with that environment. */
function throughEnv(
  program: string,
  rest: string[],
  layer: Layer,
  inner: Inner,
): Found | NotTheAgent {
  let env = { ...layer.env };
  let cwd = layer.cwd;
  let i = 0;
  for (; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if (a === '-i' || a === '-' || a === '--ignore-environment') env = {};
    else if (a === '-u' || a === '--unset') delete env[rest[++i] ?? ''];
    else if (a.startsWith('--unset=')) delete env[a.slice('--unset='.length)];
    else if (a === '-C' || a === '--chdir') cwd = resolve(cwd, rest[++i] ?? '.');
    else if (a.startsWith('--chdir=')) cwd = resolve(cwd, a.slice('--chdir='.length));
    else if (a === '-0' || a === '--null' || a === '-v' || a === '--debug') continue;
    else if (a.startsWith('-'))
      return { notAgent: `env ${a} is not an option clippy sees through` };
    else break;
  }
  for (; i < rest.length && ASSIGNMENT.test(rest[i]!); i++) {
    const a = rest[i]!;
    const eq = a.indexOf('=');
    env[a.slice(0, eq)] = a.slice(eq + 1);
  }
  const found = inner(rest.slice(i), env, cwd);
  if ('notAgent' in found) return found;
  const lead = [program, ...rest.slice(0, i)];
  return {
    ...found,
    via: ['env', ...found.via],
    rebuild: (own, add) => [...lead, ...found.rebuild(own, add)],
  };
}

/** `nice [-n N | -N | --adjustment=N] COMMAND…`. */
function throughNice(program: string, rest: string[], inner: Inner): Found | NotTheAgent {
  let i = 0;
  for (; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if (a === '-n' || a === '--adjustment') i++;
    else if (/^(-n|--adjustment=)?-?\d+$/u.test(a) || /^-n-?\d+$/u.test(a)) continue;
    else if (a.startsWith('-'))
      return { notAgent: `nice ${a} is not an option clippy sees through` };
    else break;
  }
  const found = inner(rest.slice(i));
  if ('notAgent' in found) return found;
  const lead = [program, ...rest.slice(0, i)];
  return {
    ...found,
    via: ['nice', ...found.via],
    rebuild: (own, add) => [...lead, ...found.rebuild(own, add)],
  };
}

/** npx's and bunx's options that take the next word as their value. */
const RUNNER_VALUE_OPTIONS = new Set(['-p', '--package', '--registry', '--cache', '--userconfig']);

/** `npx [options] PACKAGE[@VERSION] args` (or `-p PACKAGE BIN args`), `bunx` likewise. */
function throughPackageRunner(
  program: string,
  rest: string[],
  id: AgentIdentity,
  layer: Layer,
): Found | NotTheAgent {
  const runner = basename(program).replace(EXTENSIONS, '');
  const packages: string[] = [];
  let i = 0;
  for (; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if (a === '-c' || a === '--call') return { notAgent: `${runner} ${a} runs a command line` };
    if (!a.startsWith('-')) break;
    const eq = a.indexOf('=');
    const name = eq < 0 ? a : a.slice(0, eq);
    const value = eq < 0 && RUNNER_VALUE_OPTIONS.has(a) ? rest[++i] : a.slice(eq + 1);
    if (name === '-p' || name === '--package') packages.push(packageName(value ?? ''));
  }
  const spec = rest[i];
  if (spec === undefined) return { notAgent: `${runner} runs no package` };
  const ours =
    packages.length > 0
      ? packages.some((p) => id.packages.includes(p)) && id.bins.includes(spec)
      : id.packages.includes(packageName(spec));
  if (!ours)
    return { notAgent: `${runner} runs ${spec}, which is not ${id.packages.join(' or ')}` };
  const lead = [program, ...rest.slice(0, i + 1)];
  return {
    own: rest.slice(i + 1),
    via: [runner],
    env: layer.env,
    cwd: layer.cwd,
    rebuild: (own, add) => withEnv([...lead, ...own], add, layer),
  };
}

/** A package spec's name: `@scope/name@1.2` → `@scope/name`. */
function packageName(spec: string): string {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at < 0 ? spec : spec.slice(0, at);
}

/**
 * `bash [-l] [-i] -c SCRIPT [NAME [ARGS…]]`: the script's last command is the agent (the
 * commands before it stay as written), taken through `exec` and `NAME=VALUE` prefixes.
 */
function throughShell(
  program: string,
  rest: string[],
  layer: Layer,
  inner: Inner,
): Found | NotTheAgent {
  const shell = basename(program);
  let i = 0;
  let hasC = false;
  for (; i < rest.length; i++) {
    const a = rest[i]!;
    if (SHELL_LONG.has(a)) continue;
    if (!SHELL_FLAGS.test(a)) break;
    if (a.includes('c')) hasC = true;
  }
  if (!hasC) return { notAgent: `${shell} runs no -c command` };
  const script = rest[i];
  if (script === undefined) return { notAgent: `${shell} -c has no command` };
  const last = lastCommand(script);
  if ('why' in last) return { notAgent: `${shell} -c: ${last.why}` };
  let env = layer.env;
  let k = 0;
  for (; k < last.words.length; k++) {
    const w = last.words[k]!;
    if (w === 'exec' || w === 'command') continue;
    if (!ASSIGNMENT.test(w)) break;
    const eq = w.indexOf('=');
    env = { ...env, [w.slice(0, eq)]: w.slice(eq + 1) };
  }
  const found = inner(last.words.slice(k), env);
  if ('notAgent' in found) return { notAgent: `${shell} -c: ${found.notAgent}` };
  const lead = [program, ...rest.slice(0, i)];
  const after = rest.slice(i + 1);
  const kept = last.words.slice(0, k);
  return {
    ...found,
    via: [`${shell} -c`, ...found.via],
    rebuild: (own, add) => {
      const words = [...kept, ...found.rebuild(own, add)];
      const command = words.map(shellWord).join(' ');
      const text = script.slice(0, last.start) + command + script.slice(last.end);
      return [...lead, text, ...after];
    },
  };
}
