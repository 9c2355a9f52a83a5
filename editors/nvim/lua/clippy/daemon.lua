-- Finding clippyd: its socket path (as packages/protocol's resolveSocketPaths computes it),
-- and starting it the way the CLI does when none runs (`clippy daemon start`).

local config = require('clippy.config')
local connection = require('clippy.connection')

local M = {}

--- The broker socket: the `socket` option, else $CLIPPY_SOCKET, else
--- $XDG_RUNTIME_DIR/clippy/broker.sock. nil and why when none can be chosen.
function M.socket_path()
  local explicit = config.options.socket
  if explicit and explicit ~= '' then
    return explicit
  end
  local env = vim.env.CLIPPY_SOCKET
  if env and env ~= '' then
    return env
  end
  local runtime = vim.env.XDG_RUNTIME_DIR
  if not runtime or runtime == '' then
    return nil,
      'XDG_RUNTIME_DIR is not set, so clippy has no private place for its socket. '
        .. 'Set XDG_RUNTIME_DIR (e.g. to /run/user/$(id -u)), or give a socket path with '
        .. "require('clippy').setup({ socket = ... }) or CLIPPY_SOCKET."
  end
  return runtime:gsub('/+$', '') .. '/clippy/broker.sock'
end

--- The CLI's arguments that name the socket (only when the plugin was given one itself).
function M.socket_args()
  local explicit = config.options.socket
  if explicit and explicit ~= '' then
    return { '--socket', explicit }
  end
  return {}
end

--- Whether the configured clippy command can be run; nil and why when not.
function M.clippy_runnable()
  local cmd = config.clippy_cmd()
  if vim.fn.executable(cmd[1]) ~= 1 then
    return nil,
      string.format(
        '`%s` was not found: install clippy (npm) or set clippy_cmd in '
          .. "require('clippy').setup({ clippy_cmd = ... })",
        cmd[1]
      )
  end
  return cmd
end

--- Runs `clippy daemon start`; cb(err) on the main loop once it answered or failed.
function M.start(socket, cb)
  local cmd, why = M.clippy_runnable()
  if not cmd then
    cb(
      connection.err(
        'not_running',
        'no clippy daemon is running (socket ' .. socket .. ') and it cannot be started: ' .. why
      )
    )
    return
  end
  vim.list_extend(cmd, { 'daemon', 'start' })
  vim.list_extend(cmd, M.socket_args())
  local output = {}
  local done = false
  local timer
  local function collect(_, data)
    for _, l in ipairs(data or {}) do
      if l ~= '' then
        table.insert(output, l)
      end
    end
  end
  local job = vim.fn.jobstart(cmd, {
    on_stdout = collect,
    on_stderr = collect,
    on_exit = function(_, code)
      if done then
        return
      end
      done = true
      if timer then
        vim.fn.timer_stop(timer)
      end
      if code == 0 then
        cb(nil)
      else
        cb(
          connection.err(
            'not_running',
            string.format(
              'could not start the clippy daemon (`%s` exited with %d): %s',
              table.concat(cmd, ' '),
              code,
              table.concat(output, ' ')
            )
          )
        )
      end
    end,
  })
  if job <= 0 then
    cb(connection.err('not_running', 'could not run `' .. table.concat(cmd, ' ') .. '`'))
    return
  end
  timer = vim.fn.timer_start(config.AUTOSTART_TIMEOUT_MS, function()
    if done then
      return
    end
    done = true
    vim.fn.jobstop(job)
    cb(
      connection.err(
        'timeout',
        string.format(
          '`%s` did not finish within %d ms',
          table.concat(cmd, ' '),
          config.AUTOSTART_TIMEOUT_MS
        )
      )
    )
  end)
end

return M
