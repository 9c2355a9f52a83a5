// A program on a pseudo-terminal: the daemon's sessions and the test kit's terminal both run
// through this one wrapper of node-pty, so its workarounds are written once. The daemon's are
// started by the spawner (pty-spawner.ts), so that the daemon never forks itself.
export { spawnPty } from './node-pty-process.js';
export { PtySpawner } from './pty-spawner.js';
export type { PtyExit, PtyProcess, PtySpawnOptions } from './pty-process.js';
export { parseSignal, signalName } from './signals.js';
