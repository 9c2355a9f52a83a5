import type { ClippyClient } from '@clippy/client';
import { connectToHost } from '../connect.js';
import { LOCAL, configuredHosts, hostLabel, resolveHost, type Host } from './host-ref.js';

/** This machine and every host of the config file (those that are not this machine). */
export function allHosts(env: NodeJS.ProcessEnv): Host[] {
  const hosts: Host[] = [LOCAL];
  for (const name of Object.keys(configuredHosts(env))) {
    const h = resolveHost(name, env);
    if (h.kind === 'ssh') hosts.push(h);
  }
  return hosts;
}

export type HostOutcome<R> =
  | { host: Host; label: string; ok: true; value: R }
  | { host: Host; label: string; ok: false; error: string };

/**
 * Runs `fn` against each host's daemon at once; a host that cannot be reached gives its error
 * instead of stopping the others. The local daemon is not started for this.
 */
export async function onEachHost<R>(
  hosts: Host[],
  fn: (client: ClippyClient, host: Host) => Promise<R>,
): Promise<HostOutcome<R>[]> {
  return Promise.all(
    hosts.map(async (host): Promise<HostOutcome<R>> => {
      const label = hostLabel(host);
      try {
        const { client } = await connectToHost(
          host,
          host.kind === 'local' ? { autoStart: false } : {},
        );
        try {
          return { host, label, ok: true, value: await fn(client, host) };
        } finally {
          await client.close();
        }
      } catch (err) {
        return { host, label, ok: false, error: (err as Error).message };
      }
    }),
  );
}
