// The client core without the Node client: request ids, answers matched to requests, pushes by
// type, over a transport the caller brings. It loads no Node module, so the web page bundles it
// for the browser (`@clippy/client/core`); the Node client and the daemon's remote route source
// build on the same class.
export { RpcCore, type RpcCallOptions, type RpcMessage } from './rpc/rpc-core.js';
export type { Transport } from './rpc/transport.js';
