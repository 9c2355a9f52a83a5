import { readConfigFile } from '../config-files.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';

// Which machine a command or a name means. `--host H` / `$CLIPPY_HOST` pick the daemon of a
// whole command; `H:session` (and `H:session:3`, a turn) picks it for one name, in commands
// that can span machines (relay). H is a host of the config file's `hosts`, `local` (this
// machine), or `user@host` given on the spot. Any other `a:b` stays what it always was: a
// session's turn (`claude:3`) or a name with a colon.

/** The local machine's host name in references (`local:claude`). */
export const LOCAL_HOST = 'local';

/** A machine: this one, or an SSH destination (`[user@]host` or an ssh config alias). */
export type Host = { kind: 'local' } | { kind: 'ssh'; name: string; destination: string };

export const LOCAL: Host = { kind: 'local' };

/** The configured hosts: name → ssh destination (or "local"). */
export function configuredHosts(env: NodeJS.ProcessEnv): Record<string, string> {
  return readConfigFile(env).hosts ?? {};
}

/** The host a `--host` value (or `$CLIPPY_HOST`) names: a configured name, or an ssh destination. */
export function resolveHost(value: string, env: NodeJS.ProcessEnv): Host {
  const v = value.trim();
  if (v === '') throw new CliError('--host needs a host name', EXIT.usage);
  if (v === LOCAL_HOST) return LOCAL;
  const destination = configuredHosts(env)[v] ?? v;
  if (destination === LOCAL_HOST) return LOCAL;
  if (destination.startsWith('-') || /\s/u.test(destination)) {
    throw new CliError(`host '${v}' is not an ssh destination ([user@]host)`, EXIT.usage);
  }
  return { kind: 'ssh', name: v, destination };
}

/** The host of the whole command: `--host`, else `$CLIPPY_HOST`, else this machine. */
export function commandHost(flag: string | undefined, env: NodeJS.ProcessEnv): Host {
  const value = flag ?? env.CLIPPY_HOST;
  return value ? resolveHost(value, env) : LOCAL;
}

export interface HostRef {
  /** Null when the name carries no host (the command's host applies). */
  host: Host | null;
  /** The session name, ID or turn ID on that host. */
  ref: string;
}

/** Splits `H:rest` when H is a host (configured, `local`, or `user@host`); else no host. */
export function splitHostRef(text: string, env: NodeJS.ProcessEnv): HostRef {
  const colon = text.indexOf(':');
  if (colon <= 0 || colon === text.length - 1) return { host: null, ref: text };
  const prefix = text.slice(0, colon);
  const rest = text.slice(colon + 1);
  if (prefix === LOCAL_HOST) return { host: LOCAL, ref: rest };
  if (Object.hasOwn(configuredHosts(env), prefix) || prefix.includes('@')) {
    return { host: resolveHost(prefix, env), ref: rest };
  }
  return { host: null, ref: text };
}

/** Two hosts are the same machine's daemon. */
export function sameHost(a: Host, b: Host): boolean {
  if (a.kind === 'local' || b.kind === 'local') return a.kind === b.kind;
  return a.destination === b.destination;
}

/** How a host is named in messages and tables. */
export function hostLabel(h: Host): string {
  return h.kind === 'local' ? LOCAL_HOST : h.name;
}
