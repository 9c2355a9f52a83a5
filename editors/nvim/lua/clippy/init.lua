-- clippy for Neovim: start agents in sessions clippyd runs, send them text, ask them, wait for
-- and relay their answers, put a turn at the cursor, open their terminals, end them. Talks to
-- the daemon's socket itself. `:help clippy`.

local M = {}

--- Options (`:help clippy-options`): socket, clippy_cmd, autostart, ask_timeout_ms, open.
function M.setup(opts)
  require('clippy.config').setup(opts)
  -- A new socket or command takes effect on the next request.
  require('clippy.client').disconnect()
  require('clippy.notify').start()
end

local commands = require('clippy.commands')
M.sessions = commands.sessions
M.send = commands.send
M.ask = commands.ask
M.wait = commands.wait
M.relay = commands.relay
M.capture = commands.capture
M.paste = commands.paste
M.turns = commands.turns
M.complete_sessions = commands.complete_sessions
M.attach = function(session)
  require('clippy.attach').attach(session)
end
M.put = function(ref, line, above)
  require('clippy.put').put(ref, line, above)
end
M.yank = function(reg, ref)
  require('clippy.put').yank(reg, ref)
end
M.new = function(words, detached)
  require('clippy.lifecycle').new(words or {}, detached)
end
M.kill = function(session)
  require('clippy.lifecycle').kill(session)
end
M.remove = function(session)
  require('clippy.lifecycle').remove(session)
end

return M
