import type { CommandModule } from 'yargs';
import { connectToHost, withClient, withSocket, type CommonArgs } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { loadModule } from '../load-module.js';
import { mayCarryHost } from '../remote/host-peek.js';
import { onFocused, withFocusedOptions, type FocusedArgs } from '../focus/focused-options.js';
import {
  injectedLine,
  requestInjection,
  withInjectOptions,
  type InjectArgs,
} from '../inject-options.js';

interface RelayArgs extends CommonArgs, InjectArgs, FocusedArgs {
  from?: string;
  to?: string;
  'focused-to'?: string;
}

/** `clippy relay FROM TO`: capture a turn and paste it into another session in one step. */
const command: CommandModule<object, RelayArgs> = {
  command: 'relay [from] [to]',
  describe: "Send a turn (FROM's latest, or a turn ID) into session TO and submit it",
  builder: (y) =>
    withFocusedOptions(withInjectOptions(withSocket(y)))
      .positional('from', {
        type: 'string',
        describe: 'session (its latest turn) or turn ID; HOST:NAME for another machine',
      })
      .positional('to', {
        type: 'string',
        describe: 'target session name or ID; HOST:NAME for another machine',
      })
      .option('focused-to', {
        type: 'string',
        requiresArg: true,
        describe: 'send the latest turn of the session you are looking at into this session',
      }) as never,
  handler: async (argv) => {
    const focusedTo = argv['focused-to'];
    if (focusedTo !== undefined && argv.from !== undefined) {
      throw new CliError('give FROM TO or --focused-to TO, not both', EXIT.usage);
    }
    if (focusedTo === undefined && (argv.from === undefined || argv.to === undefined)) {
      throw new CliError('give FROM and TO, or --focused-to TO', EXIT.usage);
    }
    if (focusedTo === undefined) {
      const acrossHosts = await relayWithHosts(argv, argv.from!, argv.to!);
      if (acrossHosts !== null) {
        if (!argv.quiet) process.stdout.write(`${acrossHosts}\n`);
        return;
      }
    }
    const line = await withClient(argv, async (c) => {
      if (focusedTo !== undefined) {
        return onFocused(c, argv, async (f) =>
          injectedLine(
            'relayed',
            await requestInjection(c, argv, 'relay', { from: f.session, to: focusedTo }),
            focusedTo,
          ),
        );
      }
      return injectedLine(
        'relayed',
        await requestInjection(c, argv, 'relay', { from: argv.from!, to: argv.to! }),
        argv.to!,
      );
    });
    if (!argv.quiet) process.stdout.write(`${line}\n`);
  },
};

/**
 * `build:claude local:aider`: names that carry their machine (see docs/remote.md). Null when
 * neither does (the command's own daemon relays, as always).
 */
async function relayWithHosts(argv: RelayArgs, fromText: string, toText: string) {
  // A turn ID (`claude:3`) names no host: the config file's schemas stay unloaded.
  if (!mayCarryHost(fromText, process.env) && !mayCarryHost(toText, process.env)) return null;
  const { commandHost, sameHost, splitHostRef } =
    await loadModule<typeof import('../remote/host-ref.js')>('remote/host-ref.js');
  const from = splitHostRef(fromText, process.env);
  const to = splitHostRef(toText, process.env);
  if (!from.host && !to.host) return null;
  const here = commandHost(argv.host, process.env);
  const src = { host: from.host ?? here, ref: from.ref };
  const dst = { host: to.host ?? here, ref: to.ref };
  if (!sameHost(src.host, dst.host)) {
    const { relayAcrossHosts } = await loadModule<typeof import('../remote/cross-host-relay.js')>(
      'remote/cross-host-relay.js',
    );
    return injectedLine('relayed', await relayAcrossHosts(src, dst, argv), toText);
  }
  // One daemon holds both: its own relay, as without hosts.
  const { client } = await connectToHost(src.host);
  try {
    const result = await requestInjection(client, argv, 'relay', { from: src.ref, to: dst.ref });
    return injectedLine('relayed', result, toText);
  } finally {
    await client.close();
  }
}

export default command;
