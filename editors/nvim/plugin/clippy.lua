-- Defines the :Clippy* commands (the work is in lua/clippy/). Loaded once.
if vim.g.loaded_clippy then
  return
end
vim.g.loaded_clippy = true

if vim.fn.has('nvim-0.7') ~= 1 then
  vim.api.nvim_err_writeln('clippy.nvim needs Neovim 0.7 or newer')
  return
end

local function commands()
  return require('clippy.commands')
end

local function complete(lead)
  local ok, names = pcall(commands().complete_sessions, lead)
  return ok and names or {}
end

local function define(name, fn, opts)
  if opts.nargs ~= 0 then
    opts.complete = complete
  end
  vim.api.nvim_create_user_command(name, function(o)
    commands().guarded(fn)(o)
  end, opts)
end

define('ClippySessions', function()
  commands().sessions()
end, { nargs = 0, desc = 'clippy: list the sessions and their states' })

define('ClippySend', function(o)
  commands().send(o.fargs[1], o.range, o.line1, o.line2)
end, { nargs = '?', range = true, desc = 'clippy: send the selection (or buffer) to a session' })

define('ClippyAsk', function(o)
  commands().ask(o.fargs[1], o.range, o.line1, o.line2)
end, {
  nargs = '?',
  range = true,
  desc = 'clippy: send the selection (or buffer), show the answer in a scratch buffer',
})

define('ClippyRelay', function(o)
  if #o.fargs > 2 then
    return require('clippy.ui').error('usage: :ClippyRelay {from} {to}')
  end
  commands().relay(o.fargs[1], o.fargs[2])
end, { nargs = '*', desc = "clippy: inject a session's latest turn into another" })

define('ClippyTurns', function(o)
  commands().turns(o.fargs[1])
end, { nargs = '?', desc = "clippy: list a session's turns" })

define('ClippyAttach', function(o)
  commands().attach(o.fargs[1])
end, { nargs = '?', desc = 'clippy: open a session in a terminal buffer (clippy attach)' })
