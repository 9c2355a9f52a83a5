import {
  RemoteHostError,
  closeForward as closeHostForward,
  openForward as openHostForward,
  type Forward,
} from '@clippy/client/ssh';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';

// The CLI's side of `--host` (the SSH forwarding itself is in @clippy/client/ssh, shared with
// the daemon's bridge for the web view): failures become the CLI's errors, 64 for a
// destination that cannot be one, 69 for a host that cannot be reached.

export {
  SSH_CONNECT_TIMEOUT_S,
  SSH_IDLE_PERSIST_S,
  forwardDir,
  sshCommand,
  type Forward,
} from '@clippy/client/ssh';

function asCliError(err: unknown): unknown {
  return err instanceof RemoteHostError
    ? new CliError(err.message, err.usage ? EXIT.usage : EXIT.noBroker)
    : err;
}

/** See @clippy/client/ssh's openForward; its failures as CliErrors. */
export async function openForward(
  destination: string,
  env: NodeJS.ProcessEnv,
  fresh = false,
): Promise<Forward> {
  try {
    return await openHostForward(destination, env, fresh);
  } catch (err) {
    throw asCliError(err);
  }
}

/** Ends the SSH master of `destination` and with it the forwarding (`clippy hosts --close`). */
export async function closeForward(destination: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  try {
    return await closeHostForward(destination, env);
  } catch (err) {
    throw asCliError(err);
  }
}
