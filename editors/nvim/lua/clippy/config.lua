-- The plugin's options (require('clippy').setup{...}) and its fixed limits.

local M = {}

--- The protocol version this plugin speaks: `hello` must carry exactly the broker's
--- PROTOCOL_VERSION (packages/protocol/src/constants.ts; a test checks they agree).
M.PROTOCOL_VERSION = 2

--- How long connecting plus the hello handshake may take: a socket that accepts but never
--- answers (a hung or foreign process) must give an error, not a frozen editor.
M.HANDSHAKE_TIMEOUT_MS = 5000
--- How long a plain request (list, relay, turns) may wait for its response.
M.REQUEST_TIMEOUT_MS = 10000
--- How long a request that types into a session may wait: the broker waits up to 15 s for the
--- target to become idle and then confirms Enter (the CLI's INJECT_REQUEST_TIMEOUT_MS).
M.INJECT_TIMEOUT_MS = 60000
--- Completion runs while the user types: it must never stall the command line for long.
M.COMPLETION_TIMEOUT_MS = 1500
--- How long `clippy daemon start` may take: it waits 5 s itself for the daemon to answer,
--- plus node's start-up on a loaded machine.
M.AUTOSTART_TIMEOUT_MS = 20000
--- How often a blocking wait (completion) looks at its result.
M.WAIT_POLL_MS = 10

--- Defaults of the options setup() takes (docs/editors.md lists them).
M.defaults = {
  -- The broker socket; nil: $CLIPPY_SOCKET, else $XDG_RUNTIME_DIR/clippy/broker.sock.
  socket = nil,
  -- The clippy CLI, a string or a list (e.g. { 'node', '/path/to/clippy.js' }): it starts
  -- the daemon when none runs, and runs `clippy attach` in :ClippyAttach.
  clippy_cmd = 'clippy',
  -- Start the daemon (`clippy daemon start`) when none answers on the socket.
  autostart = true,
  -- How long :ClippyAsk waits for the answer, in ms (the CLI's default is 10 minutes); 0: no limit.
  ask_timeout_ms = 600000,
  -- Where result buffers and the attach terminal open: 'split', 'vsplit', 'tab' or 'current'.
  open = 'split',
  -- Show the daemon's notifications (a turn finished, a session waits for you) with vim.notify.
  notify = true,
}

M.options = vim.deepcopy(M.defaults)

function M.setup(opts)
  M.options = vim.tbl_extend('force', vim.deepcopy(M.defaults), opts or {})
end

--- The clippy command as a list, for jobstart/termopen.
function M.clippy_cmd()
  local cmd = M.options.clippy_cmd
  if type(cmd) == 'string' then
    return { cmd }
  end
  return vim.deepcopy(cmd)
end

return M
