-- The daemon's notifications in Neovim (docs/notify.md): when a session finishes a turn or
-- waits for you, the daemon picks one editor or page to tell (once per event) and none when you
-- look at that session. This tells it what Neovim shows (the session of the current attach
-- terminal, and whether Neovim has focus: `notify_client`) and shows what it sends with
-- vim.notify.

local client = require('clippy.client')
local config = require('clippy.config')

local M = {}

-- Connections whose pushes are listened to (one listener each).
local hooked = setmetatable({}, { __mode = 'k' })
-- FocusLost/FocusGained: a terminal that reports focus tells Neovim; without, assume it has it.
local focused = true

--- The session the current buffer shows (an attach terminal), or nil.
local function viewing()
  local ok, name = pcall(vim.api.nvim_buf_get_var, 0, 'clippy_session')
  if ok and type(name) == 'string' then
    return name
  end
  return nil
end

local function show(push)
  local level = push.event == 'blocked' and vim.log.levels.WARN or vim.log.levels.INFO
  vim.notify(string.format('clippy: %s: %s', push.title, push.body), level)
end

--- Tells the daemon what Neovim shows now; never starts a daemon for it.
function M.report()
  if config.options.notify == false then
    return
  end
  client.connect({ autostart = false }, function(e, conn)
    if e then
      return
    end
    if not hooked[conn] then
      hooked[conn] = true
      conn:on_push(function(push)
        if push.type == 'notification' and config.options.notify ~= false then
          vim.schedule(function()
            show(push)
          end)
        end
      end)
    end
    -- No session shown: `viewing` is left out (a nil in a table is no field).
    local fields = { kind = 'editor', viewing = viewing(), visible = focused }
    conn:request('notify_client', fields, config.REQUEST_TIMEOUT_MS, function() end)
  end)
end

--- Follows what Neovim shows (buffers, focus) and reports it.
function M.start()
  local group = vim.api.nvim_create_augroup('clippy_notify', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'TermOpen' }, {
    group = group,
    callback = function()
      M.report()
    end,
  })
  vim.api.nvim_create_autocmd('FocusGained', {
    group = group,
    callback = function()
      focused = true
      M.report()
    end,
  })
  vim.api.nvim_create_autocmd('FocusLost', {
    group = group,
    callback = function()
      focused = false
      M.report()
    end,
  })
  M.report()
end

return M
