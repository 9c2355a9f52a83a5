import type { RequestInput, RouteInfo } from '@clippy/protocol';
import { connectToHost } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { routeCall } from '../routes/route-output.js';
import { commandHost, hostLabel, sameHost, splitHostRef } from './host-ref.js';
import { openForward } from './ssh-forward.js';

type RouteFields = Omit<RequestInput<'add_route'>, 'from' | 'to' | 'remote' | 'type'>;

/**
 * `clippy route add build:codex claude`: names that carry their machine. A route lives in the
 * daemon of its target (it injects there); a source on another machine is followed by that
 * daemon through an SSH forwarding of the source machine's broker socket, which this command
 * opens (it stays while the route uses it). Null when no name carries a host.
 */
export async function addRouteWithHosts(
  hostFlag: string | undefined,
  fromTexts: string[],
  toText: string,
  fields: RouteFields,
): Promise<RouteInfo | null> {
  const env = process.env;
  const from = fromTexts.map((t) => splitHostRef(t, env));
  const to = splitHostRef(toText, env);
  if (!to.host && from.every((f) => !f.host)) return null;
  const here = commandHost(hostFlag, env);
  const target = to.host ?? here;
  const sources = from.map((f) => ({ host: f.host ?? here, ref: f.ref }));
  const elsewhere = sources.filter((s) => !sameHost(s.host, target));
  const { client } = await connectToHost(target);
  try {
    if (elsewhere.length === 0) {
      const { route } = await routeCall(() =>
        client.request('add_route', { from: sources.map((s) => s.ref), to: to.ref, ...fields }),
      );
      return route;
    }
    if (sources.length > 1) {
      throw new CliError('a fan-in takes sources of one machine, the target’s', EXIT.usage);
    }
    const source = sources[0]!;
    if (source.host.kind !== 'ssh') {
      throw new CliError(
        `a route from this machine into ${hostLabel(target)}: add it there, naming this machine as a host in its config (clippy --host ${hostLabel(target)} route add HOST:${source.ref} ${to.ref})`,
        EXIT.usage,
      );
    }
    if (target.kind !== 'local') {
      throw new CliError(
        'a route between two other machines: run it from the target machine (clippy --host TARGET route add SOURCE_HOST:S T)',
        EXIT.usage,
      );
    }
    const forward = await openForward(source.host.destination, env);
    const { route } = await routeCall(() =>
      client.request('add_route', {
        from: [source.ref],
        to: to.ref,
        remote: { socket: forward.socket, host: hostLabel(source.host) },
        ...fields,
      }),
    );
    return route;
  } finally {
    await client.close();
  }
}
