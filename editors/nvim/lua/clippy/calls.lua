-- How every command talks to the daemon: one request, its failure one message, never a stack
-- trace; and the small checks every command makes on its arguments.

local client = require('clippy.client')
local ui = require('clippy.ui')

local M = {}

--- Runs fn, turning a Lua error into a one-line message instead of a stack trace.
function M.guarded(fn)
  return function(...)
    local ok, e = pcall(fn, ...)
    if not ok then
      ui.error('internal error: ' .. tostring(e))
    end
  end
end

--- A request whose failure is reported; on_ok(response) runs only on success.
function M.call(kind, fields, timeout_ms, on_ok)
  client.request(
    kind,
    fields,
    timeout_ms,
    M.guarded(function(e, r)
      if e then
        ui.error(e)
      else
        on_ok(r)
      end
    end)
  )
end

function M.usage(text)
  ui.error('usage: ' .. text)
end

--- Whether a decoded field holds a value (msgpack nil decodes as vim.NIL).
function M.present(v)
  return v ~= nil and v ~= vim.NIL
end

--- Whether `ref` is a turn ID (`alpha:3`) rather than a session: session names hold no ':'.
function M.is_turn_id(ref)
  local seq = type(ref) == 'string' and ref:match('^[^:]+:(%d+)$')
  return seq ~= nil and tonumber(seq) >= 1
end

--- `1 line`, `2 lines`.
function M.plural(n, word)
  return string.format('%d %s%s', n, word, n == 1 and '' or 's')
end

return M
