-- One connection to clippyd's Unix socket: the hello handshake, then requests matched to
-- their responses by id, and pushes (id 0) handed to listeners. libuv does the I/O; every
-- result reaches its callback on Neovim's main loop (vim.schedule), never in a fast event.

local codec = require('clippy.codec')
local config = require('clippy.config')

-- vim.uv since Neovim 0.10; vim.loop before (Debian's 0.7).
local uv = vim.uv or vim.loop

local M = {}

--- Largest request id: ids are u32 on the wire, and 0 is the handshake's and the pushes'.
local MAX_REQUEST_ID = 4294967295

local Connection = {}
Connection.__index = Connection

--- An error as a value: `code` is the broker's stable error code or one of ours
--- (not_running, timeout, disconnected, connect_failed, version_mismatch, protocol).
local function err(code, message)
  return { code = code, message = message }
end
M.err = err

--- Whether a libuv connect error means "no daemon listens there".
function M.is_not_running(e)
  return e ~= nil and e.code == 'not_running'
end

local function new_timer(ms, fn)
  local t = uv.new_timer()
  t:start(ms, 0, function()
    t:stop()
    t:close()
    vim.schedule(fn)
  end)
  return t
end

local function stop_timer(t)
  -- A timer that fired has closed itself already.
  if t and not t:is_closing() then
    t:stop()
    t:close()
  end
end

--- Connects to `path` and says hello; cb(err, conn) on the main loop.
function M.open(path, cb)
  local self = setmetatable({
    path = path,
    pipe = uv.new_pipe(false),
    decoder = codec.decoder(),
    pending = {},
    next_id = 1,
    closed = false,
    listeners = {},
    broker_pid = nil,
  }, Connection)
  local done = false
  local timer
  local function finish(e)
    if done then
      return
    end
    done = true
    stop_timer(timer)
    if e then
      self:close()
      cb(e)
    else
      cb(nil, self)
    end
  end
  self.on_hello = finish
  timer = new_timer(config.HANDSHAKE_TIMEOUT_MS, function()
    finish(
      err(
        'timeout',
        string.format(
          'the clippy daemon at %s did not answer hello within %d ms',
          path,
          config.HANDSHAKE_TIMEOUT_MS
        )
      )
    )
  end)
  local ok, connect_err = pcall(self.pipe.connect, self.pipe, path, function(cerr)
    vim.schedule(function()
      -- Given up on already (the handshake timed out): the late connection is not used.
      if done then
        return
      end
      if cerr then
        local name = tostring(cerr):match('^(%u+)')
        if name == 'ENOENT' or name == 'ECONNREFUSED' then
          finish(err('not_running', 'no clippy daemon is running (socket ' .. path .. ')'))
        else
          finish(
            err('connect_failed', 'cannot talk to the clippy daemon at ' .. path .. ': ' .. cerr)
          )
        end
        return
      end
      self:start_reading()
      self:write({ type = 'hello', id = 0, version = config.PROTOCOL_VERSION, role = 'client' })
    end)
  end)
  if not ok then
    vim.schedule(function()
      finish(err('connect_failed', 'cannot connect to ' .. path .. ': ' .. tostring(connect_err)))
    end)
  end
end

function Connection:start_reading()
  self.pipe:read_start(function(rerr, chunk)
    -- Handled on the main loop, in arrival order (vim.schedule keeps it).
    vim.schedule(function()
      if self.closed then
        return
      end
      if rerr then
        self:lost('the connection to the clippy daemon failed: ' .. tostring(rerr))
      elseif chunk == nil then
        self:lost('the clippy daemon closed the connection')
      else
        local messages, why = self.decoder:push(chunk)
        if not messages then
          self:lost('the clippy daemon sent a frame this plugin cannot read: ' .. why)
          return
        end
        for _, m in ipairs(messages) do
          self:dispatch(m)
        end
      end
    end)
  end)
end

--- Writes one message; false when it cannot be framed or the connection is gone.
function Connection:write(message)
  if self.closed then
    return false, 'the connection to the clippy daemon is closed'
  end
  local frame, why = codec.encode_frame(message)
  if not frame then
    return false, why
  end
  self.pipe:write(frame)
  return true
end

local function version_message(m, path)
  local pid = m.broker_pid and m.broker_pid ~= vim.NIL and (' (pid ' .. m.broker_pid .. ')') or ''
  local theirs = (m.version and m.version ~= vim.NIL) and tostring(m.version) or '?'
  return string.format(
    'the running clippy daemon%s at %s speaks protocol version %s, this plugin speaks %d: '
      .. 'it was started by another version of clippy. Run `clippy daemon restart --force` '
      .. 'to replace it (its sessions end then), or use a plugin of its version.',
    pid,
    path,
    theirs,
    config.PROTOCOL_VERSION
  )
end

function Connection:dispatch(m)
  if m.type == 'hello_ack' then
    local on_hello = self.on_hello
    self.on_hello = nil
    if not on_hello then
      return
    end
    if m.status == 'ok' then
      self.broker_pid = m.broker_pid
      on_hello(nil)
    elseif m.error == 'version_mismatch' then
      on_hello(err('version_mismatch', version_message(m, self.path)))
    else
      on_hello(
        err(
          tostring(m.error),
          'the clippy daemon refused the handshake: ' .. tostring(m.message or m.error)
        )
      )
    end
    return
  end
  local id = m.id
  if id == 0 or id == nil then
    for _, fn in ipairs(self.listeners) do
      pcall(fn, m)
    end
    return
  end
  local p = self.pending[id]
  if not p then
    return
  end
  self.pending[id] = nil
  stop_timer(p.timer)
  if m.status == 'error' then
    local code = m.error ~= vim.NIL and m.error or 'error'
    local message = (m.message and m.message ~= vim.NIL) and m.message or code
    p.cb(err(code, message))
  else
    p.cb(nil, m)
  end
end

--- Sends request `kind` with `fields`; cb(err, response) once, on the main loop.
--- timeout_ms: how long to wait for the answer (0: as long as the connection lives).
function Connection:request(kind, fields, timeout_ms, cb)
  if self.closed then
    vim.schedule(function()
      cb(err('disconnected', 'the connection to the clippy daemon is closed'))
    end)
    return
  end
  local id = self.next_id
  self.next_id = id >= MAX_REQUEST_ID and 1 or id + 1
  local message = vim.deepcopy(fields or {})
  message.type = kind
  message.id = id
  local p = { cb = cb }
  self.pending[id] = p
  local ok, why = self:write(message)
  if not ok then
    self.pending[id] = nil
    vim.schedule(function()
      cb(err('invalid_message', why))
    end)
    return
  end
  if timeout_ms and timeout_ms > 0 then
    p.timer = new_timer(timeout_ms, function()
      if self.pending[id] == p then
        self.pending[id] = nil
        cb(
          err(
            'timeout',
            string.format('the clippy daemon did not answer %s within %d ms', kind, timeout_ms)
          )
        )
      end
    end)
  end
end

--- Calls fn(push) for every message the broker pushes (id 0).
function Connection:on_push(fn)
  table.insert(self.listeners, fn)
end

--- Calls fn(why) once if the connection breaks (not when it is closed on purpose).
function Connection:on_lost(fn)
  self.lost_listeners = self.lost_listeners or {}
  table.insert(self.lost_listeners, fn)
end

--- The connection broke: every waiting request fails with `why`.
function Connection:lost(why)
  if self.closed then
    return
  end
  local pending = self.pending
  local on_hello = self.on_hello
  self.pending = {}
  self.on_hello = nil
  self:close()
  if on_hello then
    on_hello(err('disconnected', why))
  end
  for _, p in pairs(pending) do
    stop_timer(p.timer)
    p.cb(err('disconnected', why))
  end
  for _, fn in ipairs(self.lost_listeners or {}) do
    pcall(fn, why)
  end
end

function Connection:is_open()
  return not self.closed
end

--- Closes the socket; requests still waiting get no answer (use lost() to fail them).
function Connection:close()
  if self.closed then
    return
  end
  self.closed = true
  for _, p in pairs(self.pending) do
    stop_timer(p.timer)
  end
  if not self.pipe:is_closing() then
    -- read_stop fails on a pipe that never connected: nothing to stop then.
    pcall(self.pipe.read_stop, self.pipe)
    self.pipe:close()
  end
end
Connection.dispose = Connection.close

return M
