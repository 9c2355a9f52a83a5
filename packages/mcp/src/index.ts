export { serveMcp, type McpEnd } from './server.js';
export type { McpOptions } from './context.js';
export { READ_ONLY_TOOLS, TOOLS } from './tools/index.js';
