import { PROTOCOL_VERSION } from '@clippy/protocol';
import { logHealth } from '../log.js';
import type { Handler } from './context.js';

export const daemonStatus: Handler<'daemon_status'> = (
  _request,
  { sessions, daemon, history, historyUnavailable },
) => {
  const now = Date.now();
  const log = logHealth(daemon.log);
  return {
    pid: process.pid,
    version: PROTOCOL_VERSION,
    package_version: daemon.packageVersion,
    started_at: daemon.startedAt,
    uptime_ms: now - daemon.startedAt,
    sessions: sessions.size,
    live_sessions: sessions.live().length,
    clients: daemon.clientCount,
    socket: daemon.socketPath,
    ws_socket: daemon.wsSocketPath,
    log_file: daemon.logFile,
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
    store: history ? history.status() : null,
    history_unavailable: historyUnavailable,
  };
};
