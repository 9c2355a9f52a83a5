-- The wire format of packages/protocol (docs/protocol.md, "Transport and framing"): every
-- message is a 4-byte big-endian length, then that many bytes of MessagePack holding a map.

local M = {}

--- Bytes of the big-endian length prefix in front of every frame (FRAME_HEADER_SIZE).
M.FRAME_HEADER_SIZE = 4
--- Largest payload of one frame, the protocol's 16 MiB cap (MAX_PAYLOAD_SIZE): a longer frame
--- means the stream is broken, so the connection is dropped instead of buffering it.
M.MAX_PAYLOAD_SIZE = 16 * 1024 * 1024

local mpack = vim.mpack

--- MessagePack through vim.fn.msgpackdump/msgpackparse, for a Neovim without vim.mpack.
--- msgpackdump writes plain strings as BIN, but the protocol's strings are STR; and what
--- msgpackparse cannot give as a plain value (a string holding NUL, a map with other keys)
--- comes as a special dictionary whose _TYPE is one of v:msgpack_types, which only Vim script
--- can compare by identity. So small Vim script functions do that part. Main loop only.
local fn_codec = {}

local vimscript = [[
function! ClippyMsgpackStr(v) abort
  if type(a:v) == v:t_string
    return {'_TYPE': v:msgpack_types.string, '_VAL': split(a:v, "\n", 1)}
  elseif type(a:v) == v:t_list
    return map(copy(a:v), {_, x -> ClippyMsgpackStr(x)})
  elseif type(a:v) == v:t_dict
    return map(copy(a:v), {_, x -> ClippyMsgpackStr(x)})
  endif
  return a:v
endfunction
function! ClippyMsgpackTag(v) abort
  if type(a:v) == v:t_list
    return map(copy(a:v), {_, x -> ClippyMsgpackTag(x)})
  elseif type(a:v) == v:t_dict
    if has_key(a:v, '_TYPE') && has_key(a:v, '_VAL')
      for [name, t] in items(v:msgpack_types)
        if a:v._TYPE is t
          return {'clippy_type': name, 'val': ClippyMsgpackTag(a:v._VAL)}
        endif
      endfor
    endif
    return map(copy(a:v), {_, x -> ClippyMsgpackTag(x)})
  endif
  return a:v
endfunction
function! ClippyMsgpackDump(v) abort
  return msgpackdump([ClippyMsgpackStr(a:v)])
endfunction
function! ClippyMsgpackParse(lines) abort
  return ClippyMsgpackTag(msgpackparse(a:lines)[0])
endfunction
]]

local defined = false
local function define()
  if not defined then
    vim.cmd(vimscript)
    defined = true
  end
end

--- Lines of a msgpack string ('\n' inside a line is a NUL byte) back to one string.
local function lines_to_string(lines)
  local parts = {}
  for i, l in ipairs(lines) do
    parts[i] = l:gsub('\n', '\0')
  end
  return table.concat(parts, '\n')
end

local function from_tagged(v)
  if type(v) ~= 'table' then
    return v
  end
  local kind = v.clippy_type
  if kind ~= nil and v.val ~= nil then
    if kind == 'string' or kind == 'binary' then
      return lines_to_string(v.val)
    elseif kind == 'map' then
      local out = {}
      for _, kv in ipairs(v.val) do
        out[from_tagged(kv[1])] = from_tagged(kv[2])
      end
      return out
    elseif kind == 'nil' then
      return vim.NIL
    elseif kind == 'integer' then
      local sign, hi2, hi31, lo31 = unpack(v.val)
      return sign * (((hi2 * 2 ^ 31) + hi31) * 2 ^ 31 + lo31)
    end
    return from_tagged(v.val)
  end
  local out = {}
  for k, x in pairs(v) do
    out[k] = from_tagged(x)
  end
  return out
end

function fn_codec.encode(value)
  define()
  return lines_to_string(vim.fn.ClippyMsgpackDump(value))
end

function fn_codec.decode(payload)
  define()
  -- readfile() style: lines split at '\n', a NUL inside a line written as '\n'.
  local lines = vim.split(payload, '\n', { plain = true })
  for i, l in ipairs(lines) do
    lines[i] = l:gsub('%z', '\n')
  end
  return from_tagged(vim.fn.ClippyMsgpackParse(lines))
end

local mpack_codec = {
  encode = function(value)
    return mpack.encode(value)
  end,
  decode = function(payload)
    return mpack.decode(payload)
  end,
}

--- The MessagePack implementation in use: vim.mpack where Neovim has it (0.6 and newer).
M.msgpack = mpack and mpack_codec or fn_codec
M.name = mpack and 'vim.mpack' or 'vim.fn.msgpackdump'

--- Chooses the implementation ('mpack' or 'fn'); the tests run both on the same daemon.
function M.use(name)
  if name == 'fn' then
    M.msgpack, M.name = fn_codec, 'vim.fn.msgpackdump'
  elseif name == 'mpack' and mpack then
    M.msgpack, M.name = mpack_codec, 'vim.mpack'
  else
    error('unknown MessagePack implementation: ' .. tostring(name))
  end
end

local function u32be(n)
  return string.char(
    math.floor(n / 16777216) % 256,
    math.floor(n / 65536) % 256,
    math.floor(n / 256) % 256,
    n % 256
  )
end

local function read_u32be(s, at)
  local a, b, c, d = s:byte(at, at + 3)
  return ((a * 256 + b) * 256 + c) * 256 + d
end

--- One message as `[u32 BE length][MessagePack map]`; nil and a message when it is too large.
function M.encode_frame(message)
  local body = M.msgpack.encode(message)
  if #body > M.MAX_PAYLOAD_SIZE then
    return nil,
      string.format('message of %d bytes exceeds the %d-byte frame limit', #body, M.MAX_PAYLOAD_SIZE)
  end
  return u32be(#body) .. body
end

--- Streaming frame decoder: push socket chunks in any split, get back every complete message.
--- After an error it keeps failing: the connection must be closed.
local Decoder = {}
Decoder.__index = Decoder

function M.decoder()
  return setmetatable({ chunks = {}, buffered = 0, failed = nil }, Decoder)
end

function Decoder:fail(why)
  self.failed = why
  self.chunks, self.buffered, self.need = {}, 0, nil
  return nil, why
end

--- Returns the decoded messages (tables), or nil and why the stream cannot be read.
function Decoder:push(chunk)
  if self.failed then
    return nil, self.failed
  end
  if chunk == nil or #chunk == 0 then
    return {}
  end
  table.insert(self.chunks, chunk)
  self.buffered = self.buffered + #chunk
  local out = {}
  while self.buffered >= (self.need or M.FRAME_HEADER_SIZE) do
    -- Joined only once a header or a whole frame is there: a big frame arriving in many
    -- chunks is copied once, not once per chunk.
    if #self.chunks > 1 then
      self.chunks = { table.concat(self.chunks) }
    end
    local buf = self.chunks[1]
    if not self.need then
      local length = read_u32be(buf, 1)
      if length > M.MAX_PAYLOAD_SIZE then
        return self:fail(
          string.format(
            'frame announces %d bytes, more than the %d-byte limit',
            length,
            M.MAX_PAYLOAD_SIZE
          )
        )
      end
      self.need = M.FRAME_HEADER_SIZE + length
      if self.buffered < self.need then
        break
      end
    end
    local total = self.need
    local ok, value = pcall(M.msgpack.decode, buf:sub(M.FRAME_HEADER_SIZE + 1, total))
    if not ok or type(value) ~= 'table' then
      return self:fail('frame payload is not a MessagePack map')
    end
    table.insert(out, value)
    local rest = buf:sub(total + 1)
    self.chunks = #rest > 0 and { rest } or {}
    self.buffered = #rest
    self.need = nil
  end
  return out
end

return M
