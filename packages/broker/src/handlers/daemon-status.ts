import { PROTOCOL_VERSION } from '@clippy/protocol';
import type { Handler } from './context.js';

export const daemonStatus: Handler<'daemon_status'> = (_request, { broker }) => {
  const now = Date.now();
  return {
    pid: process.pid,
    version: PROTOCOL_VERSION,
    package_version: broker.packageVersion,
    started_at: broker.startedAt,
    uptime_ms: now - broker.startedAt,
    sessions: broker.table.size,
    live_sessions: broker.table.live().length,
    clients: broker.connections.size,
    socket: broker.socketPath,
    ws_socket: broker.wsSocketPath,
    log_file: broker.config.logFile,
    rss_bytes: process.memoryUsage.rss(),
  };
};
