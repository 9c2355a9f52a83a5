export { runAttach } from './attach-session.js';
export { exitStatus } from './ending.js';
export { resolveDetachKey, configFilePath } from './config.js';
export { TerminalGuard } from './terminal.js';
