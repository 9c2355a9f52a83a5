import { PROTOCOL_VERSION } from '@clippy/protocol';
import { logHealth } from '../log.js';
import type { Handler } from './context.js';

export const daemonStatus: Handler<'daemon_status'> = (_request, { broker }) => {
  const now = Date.now();
  const log = logHealth(broker.log);
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
    log: log
      ? {
          destination: log.destination,
          dropped_lines: log.droppedLines,
          last_error: log.lastError,
          last_error_at: log.lastErrorAt,
          max_bytes: log.maxBytes,
        }
      : {
          destination: 'custom',
          dropped_lines: 0,
          last_error: null,
          last_error_at: null,
          max_bytes: null,
        },
    rss_bytes: process.memoryUsage.rss(),
  };
};
