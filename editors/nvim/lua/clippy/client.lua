-- The plugin's one connection to clippyd, opened on first use (starting the daemon when none
-- runs and autostart is on) and opened again after the daemon went away.

local config = require('clippy.config')
local connection = require('clippy.connection')
local daemon = require('clippy.daemon')

local M = {}

local current = nil
-- Callbacks waiting while a connection is being opened: one connect serves them all.
local waiting = nil

local function settle(e, conn)
  local cbs = waiting or {}
  waiting = nil
  if conn then
    current = conn
  end
  for _, cb in ipairs(cbs) do
    cb(e, conn)
  end
end

--- cb(err, conn) with an open, handshaken connection. opts.autostart overrides the option.
function M.connect(opts, cb)
  if current and current:is_open() then
    cb(nil, current)
    return
  end
  if waiting then
    table.insert(waiting, cb)
    return
  end
  local path, why = daemon.socket_path()
  if not path then
    cb(connection.err('no_runtime_dir', why))
    return
  end
  waiting = { cb }
  local autostart = config.options.autostart
  if opts and opts.autostart ~= nil then
    autostart = opts.autostart
  end
  connection.open(path, function(e, conn)
    if not (e and connection.is_not_running(e) and autostart) then
      settle(e, conn)
      return
    end
    daemon.start(path, function(se)
      if se then
        settle(se)
      else
        connection.open(path, settle)
      end
    end)
  end)
end

--- Sends one request on the shared connection; cb(err, response) on the main loop.
function M.request(kind, fields, timeout_ms, cb, opts)
  M.connect(opts, function(e, conn)
    if e then
      cb(e)
      return
    end
    conn:request(kind, fields, timeout_ms, cb)
  end)
end

--- The same, waiting for the answer (for completion, which must return a value): result, or
--- nil and the error. Never starts a daemon.
function M.request_sync(kind, fields, timeout_ms)
  local done, result, failure = false, nil, nil
  M.request(kind, fields, timeout_ms, function(e, r)
    done, result, failure = true, r, e
  end, { autostart = false })
  vim.wait(timeout_ms + config.HANDSHAKE_TIMEOUT_MS, function()
    return done
  end, config.WAIT_POLL_MS)
  if not done then
    return nil, connection.err('timeout', 'the clippy daemon did not answer ' .. kind)
  end
  return result, failure
end

--- The daemon's PID as it said in hello_ack (nil before the first connection).
function M.broker_pid()
  return current and current.broker_pid
end

--- Closes the connection (the next request opens a new one).
function M.disconnect()
  if current then
    current:close()
    current = nil
  end
end

return M
