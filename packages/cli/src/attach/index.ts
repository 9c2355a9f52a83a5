export { runAttach } from './attach-session.js';
export { exitStatus } from './ending.js';
export { DEFAULT_DETACH_KEY, parseDetachKey, findDetachKey, type DetachKey } from './detach-key.js';
export { resolveDetachKey, configFilePath } from './config.js';
export { ModeTracker } from './modes.js';
export { TerminalGuard } from './terminal.js';
