-- :ClippyAttach: a session in a terminal buffer running `clippy attach`, in the window kept for
-- terminals. Detaching (Ctrl-], or the session ending well) takes the buffer away with it: no
-- dead `[Process exited 0]` buffer is left behind.

local calls = require('clippy.calls')
local config = require('clippy.config')
local daemon = require('clippy.daemon')
local ui = require('clippy.ui')

local M = {}

--- The terminal buffer already attached to `name` (its `clippy attach` still runs), if any.
local function attached_buffer(name)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local ok, shows = pcall(vim.api.nvim_buf_get_var, b, 'clippy_session')
    if
      ok
      and shows == name
      and vim.bo[b].buftype == 'terminal'
      and vim.fn.jobwait({ vim.bo[b].channel }, 0)[1] == -1
    then
      return b
    end
  end
  return nil
end

--- When `clippy attach` ends: exit 0 (detached, or the session ended well) wipes the buffer and
--- closes its window; another code keeps it, so its last screen and message can be read.
local function on_exit(buf, name)
  return function(_, code)
    vim.schedule(calls.guarded(function()
      if code ~= 0 then
        ui.warn(string.format('`clippy attach %s` ended with exit code %d', name, code))
        return
      end
      if vim.api.nvim_buf_is_valid(buf) then
        -- The only window keeps its place, with another buffer: Neovim does not close it.
        vim.api.nvim_buf_delete(buf, { force = true })
      end
      ui.info('detached from ' .. name .. ' (it keeps running: :ClippyAttach ' .. name .. ')')
    end))
  end
end

function M.attach(session)
  if not session or session == '' then
    return calls.usage(':ClippyAttach {session}')
  end
  local cmd, why = daemon.clippy_runnable()
  if not cmd then
    return ui.error('cannot attach: ' .. why)
  end
  -- Asked first, so that a wrong name is a message here, not an error in a terminal.
  calls.call('list_sessions', {}, config.REQUEST_TIMEOUT_MS, function(r)
    local found
    for _, s in ipairs(r.sessions) do
      if s.name == session or s.session == session then
        if not found or s.state ~= 'exited' then
          found = s
        end
      end
    end
    if not found then
      return ui.error("no session has the ID or name '" .. session .. "'")
    end
    if found.state == 'exited' then
      return ui.error("session '" .. found.name .. "' has exited: there is nothing to attach to")
    end
    local open = attached_buffer(found.name)
    if open then
      ui.show(open, 'terminal')
      vim.cmd('startinsert')
      return
    end
    vim.list_extend(cmd, { 'attach', found.session })
    vim.list_extend(cmd, daemon.socket_args())
    local buf = vim.api.nvim_create_buf(true, false)
    ui.show(buf, 'terminal')
    local opts = { on_exit = on_exit(buf, found.name) }
    -- termopen() became jobstart({ term = true }) in Neovim 0.11.
    local job
    if vim.fn.has('nvim-0.11') == 1 then
      opts.term = true
      job = vim.fn.jobstart(cmd, opts)
    else
      job = vim.fn.termopen(cmd, opts)
    end
    if job <= 0 then
      return ui.error('could not run `' .. table.concat(cmd, ' ') .. '`')
    end
    vim.api.nvim_buf_set_var(buf, 'clippy_session', found.name)
    vim.cmd('startinsert')
  end)
end

return M
