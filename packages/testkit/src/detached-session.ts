import type { TestDaemon } from './daemon.js';

/**
 * What `clippy new -d --name NAME -- COMMAND ARGS…` makes (a detached session, no preset given,
 * the caller's environment), through a client of the test's daemon: for tests whose subject is
 * not `new` (a CLI process costs about a second of CPU on a loaded 2-core machine, a request
 * nothing). `env` is the caller's (PS1, TERM). Returns the session's ID.
 */
export async function spawnDetached(
  daemon: TestDaemon,
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const c = await daemon.connect();
  try {
    const created = await c.request('spawn', {
      command,
      args,
      name,
      cwd: process.cwd(),
      env: Object.fromEntries(
        Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined),
      ),
    });
    return created.session;
  } finally {
    await c.close();
  }
}

/** A detached `bash --norc --noprofile` (see spawnDetached). */
export function newBashSession(
  daemon: TestDaemon,
  name: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  return spawnDetached(daemon, name, 'bash', ['--norc', '--noprofile'], env);
}
