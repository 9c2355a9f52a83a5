-- Defines the :Clippy* commands (the work is in lua/clippy/; `:help clippy` says what each
-- does). Loaded once.
if vim.g.loaded_clippy then
  return
end
vim.g.loaded_clippy = true

if vim.fn.has('nvim-0.7') ~= 1 then
  vim.notify('clippy.nvim needs Neovim 0.7 or newer', vim.log.levels.ERROR)
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
  if opts.nargs ~= 0 and not opts.complete then
    opts.complete = complete
  end
  vim.api.nvim_create_user_command(name, function(o)
    commands().guarded(fn)(o)
  end, opts)
end

--- A command that takes at most `n` arguments: more is a usage message, not a silent drop.
local function at_most(n, usage, fn)
  return function(o)
    if #o.fargs > n then
      return require('clippy.ui').error('usage: ' .. usage)
    end
    fn(o)
  end
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

define('ClippyWait', function(o)
  commands().wait(o.fargs[1])
end, { nargs = '?', desc = "clippy: wait for a session's next turn and show it" })

define(
  'ClippyRelay',
  at_most(2, ':ClippyRelay {from} {to}', function(o)
    commands().relay(o.fargs[1], o.fargs[2])
  end),
  { nargs = '*', desc = "clippy: inject a session's latest turn into another" }
)

define('ClippyCapture', function(o)
  commands().capture(o.fargs[1])
end, { nargs = '?', desc = 'clippy: take a turn into the relay buffer' })

define('ClippyPaste', function(o)
  commands().paste(o.fargs[1])
end, { nargs = '?', desc = 'clippy: type the relay buffer into a session and submit it' })

define('ClippyTurns', function(o)
  commands().turns(o.fargs[1])
end, { nargs = '?', desc = "clippy: list a session's turns" })

define('ClippyPut', function(o)
  require('clippy.put').put(o.fargs[1], o.range > 0 and o.line2 or nil, o.bang)
end, {
  nargs = '?',
  range = true,
  bang = true,
  desc = "clippy: put a turn's text below the cursor line (above with !)",
})

define('ClippyYank', function(o)
  require('clippy.put').yank(o.reg, o.fargs[1])
end, { nargs = '?', register = true, desc = "clippy: put a turn's text into a register" })

define('ClippyDiff', function(o)
  require('clippy.diff').diff(o.fargs[1], vim.list_slice(o.fargs, 2))
end, {
  nargs = '*',
  desc = "clippy: a session's changes in its worktree, in a diff buffer (<CR> opens the file)",
})

define('ClippyAttach', function(o)
  require('clippy.attach').attach(o.fargs[1])
end, { nargs = '?', desc = 'clippy: open a session in a terminal buffer (clippy attach)' })

define('ClippyNew', function(o)
  require('clippy.lifecycle').new(o.fargs, o.bang)
end, {
  nargs = '*',
  bang = true,
  complete = function(lead, line)
    local ok, found = pcall(require('clippy.lifecycle').complete_new, lead, line)
    return ok and found or {}
  end,
  desc = 'clippy: start a command in a new session and open it (! keeps it detached)',
})

define('ClippyKill', function(o)
  require('clippy.lifecycle').kill(o.fargs[1])
end, { nargs = '?', desc = 'clippy: end a running session (its turns stay)' })

define('ClippyRemove', function(o)
  require('clippy.lifecycle').remove(o.fargs[1])
end, { nargs = '?', desc = 'clippy: forget an exited session and its turns' })
