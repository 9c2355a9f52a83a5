// Writes dist/completion-spec.json: every command, subcommand, positional and option, read from
// the commands' builders (dist/, built by tsc just before), for `clippy __complete`. Reading this
// file at TAB time costs a millisecond; loading every command module costs a few hundred.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { presetNames } from '@clippy/turns';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const { loadCommands } = await import(join(dist, 'commands', 'index.js'));
const { buildSpec } = await import(join(dist, 'completion', 'spec.js'));
const spec = buildSpec(await loadCommands(), presetNames());
writeFileSync(join(dist, 'completion-spec.json'), `${JSON.stringify(spec)}\n`);
