import type { CommandModule } from 'yargs';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { allHosts, onEachHost } from '../remote/each-host.js';
import { resolveHost } from '../remote/host-ref.js';
import { closeForward } from '../remote/ssh-forward.js';
import { renderTable } from '../table.js';

interface HostsArgs {
  json?: boolean;
  close?: string;
}

/** `clippy hosts`: the machines clippy knows and whether each daemon answers. */
const command: CommandModule<object, HostsArgs> = {
  command: 'hosts',
  describe: "List this machine and the config file's hosts, and whether each daemon answers",
  builder: (y) =>
    y
      .option('json', { type: 'boolean', describe: 'print {"hosts": [...]} as JSON' })
      .option('close', {
        type: 'string',
        requiresArg: true,
        describe: 'end the SSH connection (and forwarding) kept open for HOST',
      })
      .example('clippy hosts', 'HOST  DESTINATION  STATUS  SESSIONS  VERSION') as never,
  handler: async (argv) => {
    if (argv.close !== undefined) {
      const host = resolveHost(argv.close, process.env);
      if (host.kind !== 'ssh') throw new CliError(`'${argv.close}' is this machine`, EXIT.usage);
      const closed = await closeForward(host.destination, process.env);
      process.stdout.write(
        closed
          ? `closed the connection to ${argv.close}\n`
          : `no connection to ${argv.close} was open\n`,
      );
      return;
    }
    const outcomes = await onEachHost(allHosts(process.env), async (c) => {
      const s = await c.request('daemon_status', {});
      return { sessions: s.live_sessions, version: s.package_version, protocol: s.version };
    });
    if (outcomes.some((o) => !o.ok)) process.exitCode = EXIT.noBroker;
    const rows = outcomes.map((o) => ({
      host: o.label,
      destination: o.host.kind === 'ssh' ? o.host.destination : '-',
      reachable: o.ok,
      ...(o.ok ? o.value : { error: o.error }),
    }));
    if (argv.json) {
      process.stdout.write(`${JSON.stringify({ hosts: rows }, null, 2)}\n`);
      return;
    }
    process.stdout.write(
      renderTable(
        [
          { header: 'HOST' },
          { header: 'DESTINATION' },
          { header: 'STATUS', max: 60 },
          { header: 'SESSIONS', right: true },
          { header: 'VERSION' },
        ],
        rows.map((r) => [
          r.host,
          r.destination,
          r.reachable ? 'ok' : `unreachable: ${'error' in r ? r.error : ''}`,
          'sessions' in r ? String(r.sessions) : '-',
          'version' in r ? `${r.version} (protocol ${r.protocol})` : '-',
        ]),
      ),
    );
  },
};

export default command;
