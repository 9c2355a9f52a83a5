export { runCli } from './run.js';
export { CliError } from './errors.js';
export { EXIT } from './exit-codes.js';
