// Pure byte handling of a user's terminal around an attach, shared by the attach client (relay
// mode) and the daemon (direct mode, where it reads and writes the terminal itself), and the
// bytes each named key sends (`send --keys`, for every client).
export * from './detach-key.js';
export * from './detach-scanner.js';
export * from './focus-reports.js';
export * from './input-filter.js';
export * from './keys.js';
export * from './modes.js';
export * from './notice-line.js';
export * from './terminal-bytes.js';
