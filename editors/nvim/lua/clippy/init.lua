-- clippy for Neovim: send text to the agents clippyd runs, ask them, relay their answers,
-- read their turns and open their terminals. Talks to the daemon's socket itself.

local M = {}

--- Options (see docs/editors.md): socket, clippy_cmd, autostart, ask_timeout_ms, open.
function M.setup(opts)
  require('clippy.config').setup(opts)
  -- A new socket or command takes effect on the next request.
  require('clippy.client').disconnect()
end

local commands = require('clippy.commands')
M.sessions = commands.sessions
M.send = commands.send
M.ask = commands.ask
M.relay = commands.relay
M.turns = commands.turns
M.attach = commands.attach
M.complete_sessions = commands.complete_sessions

return M
