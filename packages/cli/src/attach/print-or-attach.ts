import type { ClippyClient } from '@clippy/client';
import { directAttachAllowed } from './config.js';
import { runAttach, type AttachOptions } from './attach-session.js';

/** What `new` and `revive` made: the session to print or attach to. */
interface Started {
  name: string;
  session: string;
}

/**
 * The end of `new` and `revive`: with --detach (or no detach key) the session is printed
 * (`NAME\tID`, or the whole answer with --json); otherwise the terminal attaches to it. Returns
 * true when it attached: the attachment then owns the connection and closes it.
 */
export async function printOrAttach(
  client: ClippyClient,
  started: Started,
  opts: {
    detach: boolean;
    json: boolean;
    detachKey: AttachOptions['detachKey'] | undefined;
    remote: boolean;
  },
): Promise<boolean> {
  if (opts.detach || !opts.detachKey) {
    process.stdout.write(
      opts.json ? `${JSON.stringify(started)}\n` : `${started.name}\t${started.session}\n`,
    );
    return false;
  }
  process.exitCode = await runAttach(client, {
    session: started.session,
    detachKey: opts.detachKey,
    direct: directAttachAllowed(opts.remote),
  });
  return true;
}
