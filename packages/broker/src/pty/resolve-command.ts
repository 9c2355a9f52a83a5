import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

export type CommandResolution = { ok: true; path: string } | { ok: false; message: string };

function executableFile(path: string): 'ok' | 'missing' | 'not_executable' | 'directory' {
  let isFile: boolean;
  try {
    const st = statSync(path);
    if (st.isDirectory()) return 'directory';
    isFile = st.isFile();
  } catch {
    return 'missing';
  }
  if (!isFile) return 'not_executable';
  try {
    accessSync(path, constants.X_OK);
    return 'ok';
  } catch {
    return 'not_executable';
  }
}

/**
 * Finds the program `spawn` will run, as execvp would, before forking: node-pty reports a
 * missing command only as a cryptic exit of the child, so the broker checks first and says
 * what is wrong. Names with a slash are taken relative to `cwd`; others are searched in the
 * PATH of the child's environment.
 */
export function resolveCommand(
  command: string,
  cwd: string,
  pathVar: string | undefined,
): CommandResolution {
  if (command.includes('/')) {
    const full = isAbsolute(command) ? command : resolve(cwd, command);
    const status = executableFile(full);
    if (status === 'ok') return { ok: true, path: full };
    if (status === 'missing')
      return { ok: false, message: `command '${command}' not found (no file at ${full})` };
    if (status === 'directory')
      return { ok: false, message: `command '${command}' is a directory` };
    return { ok: false, message: `command '${command}' is not executable (permission denied)` };
  }
  const dirs = (pathVar ?? '').split(delimiter);
  let sawNonExecutable = false;
  for (const dir of dirs) {
    // An empty PATH entry means the current directory, as in POSIX shells.
    const base = dir === '' ? cwd : isAbsolute(dir) ? dir : resolve(cwd, dir);
    const candidate = join(base, command);
    const status = executableFile(candidate);
    if (status === 'ok') return { ok: true, path: candidate };
    if (status === 'not_executable') sawNonExecutable = true;
  }
  if (sawNonExecutable) {
    return {
      ok: false,
      message: `command '${command}' was found in PATH but is not executable (permission denied)`,
    };
  }
  if (pathVar === undefined || pathVar === '') {
    return { ok: false, message: `command '${command}' not found: the environment has no PATH` };
  }
  return { ok: false, message: `command '${command}' not found in PATH` };
}
