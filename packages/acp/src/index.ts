export { serveAcp, stdioStream, type AcpEnd } from './agent.js';
export type { AcpOptions, AgentCommand } from './context.js';
export { AnswerStream, type Chunk } from './answer-stream.js';
export { optionKind, permissionOptions } from './permission.js';
export { promptText } from './prompt-text.js';
