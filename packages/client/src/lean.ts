// The client without result validation (see ResultCheck): what the CLI's fast path loads.
export { ClippyClient, DEFAULT_REQUEST_TIMEOUT_MS, HANDSHAKE_TIMEOUT_MS } from './client.js';
export type { CloseInfo, RequestFields, RequestOptions, ResultCheck } from './client.js';
export { connect, connectDetailed } from './connect.js';
export type { ConnectOptions, ConnectResult } from './connect.js';
export {
  DAEMON_EXIT_ALREADY_RUNNING,
  DAEMON_POLL_INITIAL_MS,
  DAEMON_POLL_MAX_MS,
  DAEMON_START_TIMEOUT_MS,
  startDaemonProcess,
} from './autostart.js';
export {
  ConnectionClosedError,
  DaemonNotRunningError,
  DaemonStartError,
  ProtocolViolationError,
  RequestTimeoutError,
  VersionMismatchError,
} from './errors.js';
export { openUnixTransport, openWebSocketTransport } from './transport.js';
export { RpcCore, type RpcCallOptions, type RpcMessage } from './rpc/rpc-core.js';
export type { Transport } from './transport.js';
export { BrokerError, NoRuntimeDirError, resolveSocketPaths } from '@clippy/protocol';
export { removeRedirectPage, writeRedirectPage } from './redirect-page.js';
