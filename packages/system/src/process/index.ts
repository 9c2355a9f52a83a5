// What the machine says of a process: whether it still runs (the CLI waiting for a daemon to
// stop, the spawner watching the sessions of a spawner that died).
export { processRunning } from './process-running.js';
