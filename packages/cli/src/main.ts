import { runCli } from './run.js';

// The `clippy` executable: parse argv, run one command, exit with its code.
process.exitCode = await runCli(process.argv.slice(2));
