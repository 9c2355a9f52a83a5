-- :ClippyDiff: a session's changes in its worktree (`clippy diff`) in a diff buffer, the patch
-- exactly as git prints it (filetype `diff` colours it; `:w x.patch` then `git apply x.patch`
-- works). <CR> on a line opens the worktree's file there.

local calls = require('clippy.calls')
local config = require('clippy.config')
local ui = require('clippy.ui')

local M = {}

--- Where each line of a diff buffer leads, by buffer: line number -> { file, line } (the
--- worktree's file and its line; nil file: deleted in the worktree).
local targets = {}

--- The patch's lines and, for each, the worktree file and line it stands for.
function M.patch_lines(r)
  local lines, where = {}, {}
  local root = r.worktree.path
  for _, f in ipairs(r.files) do
    local file = f.status ~= 'deleted' and (root .. '/' .. f.path) or nil
    local first = { file = file, line = 1, path = f.path }
    for _, h in ipairs(type(f.header) == 'table' and f.header or {}) do
      table.insert(lines, h)
      table.insert(where, first)
    end
    for _, hunk in ipairs(type(f.hunks) == 'table' and f.hunks or {}) do
      local new = hunk.new_start
      table.insert(lines, hunk.header)
      table.insert(where, { file = file, line = math.max(new, 1), path = f.path })
      for _, l in ipairs(hunk.lines) do
        table.insert(lines, l)
        -- A removed line leads to where it was: the next line of the new side.
        table.insert(where, { file = file, line = math.max(new, 1), path = f.path })
        local c = l:sub(1, 1)
        if c == ' ' or c == '+' then
          new = new + 1
        end
      end
    end
  end
  return lines, where
end

--- Opens the worktree's file at the line the cursor's line of the diff stands for.
local function open_target()
  local buf = vim.api.nvim_get_current_buf()
  local t = targets[buf] and targets[buf][vim.fn.line('.')]
  if not t then
    return
  end
  if not t.file then
    return ui.warn(t.path .. ' is deleted in the worktree')
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(t.file))
  pcall(vim.api.nvim_win_set_cursor, 0, { t.line, 0 })
end

--- `clippy/NAME: 3 files, +12 −3 against abc1234567`
local function summary(r)
  local t = r.totals
  return string.format(
    '%s: %s, +%d −%d against %s',
    r.worktree.branch,
    calls.plural(t.files, 'file'),
    t.added,
    t.removed,
    r.base:sub(1, 10)
  )
end

--- Shows the diff of `session` (only `paths` when given) in `clippy://diff/{session}`.
function M.diff(session, paths)
  if not session or session == '' then
    return calls.usage(':ClippyDiff {session} [{path} ...]')
  end
  local fields = { session = session }
  if paths and #paths > 0 then
    fields.paths = paths
  end
  calls.call('diff', fields, config.REQUEST_TIMEOUT_MS, function(r)
    if #r.files == 0 then
      return ui.info(session .. ' has no changes on ' .. r.worktree.branch .. ' against its base')
    end
    local lines, where = M.patch_lines(r)
    local buf = ui.scratch('clippy://diff/' .. session, lines, 'diff', 'diff')
    targets[buf] = where
    vim.api.nvim_buf_set_var(buf, 'clippy_session', session)
    vim.api.nvim_buf_set_var(buf, 'clippy_worktree', r.worktree.path)
    vim.api.nvim_buf_set_keymap(buf, 'n', '<CR>', '', {
      noremap = true,
      silent = true,
      callback = calls.guarded(open_target),
    })
    vim.api.nvim_buf_set_keymap(buf, 'n', 'r', '', {
      noremap = true,
      silent = true,
      callback = calls.guarded(function()
        M.diff(session, paths)
      end),
    })
    vim.api.nvim_create_autocmd('BufWipeout', {
      buffer = buf,
      once = true,
      callback = function()
        targets[buf] = nil
      end,
    })
    local note = summary(r)
    if r.truncated then
      ui.warn(note .. '; past 8 MiB the later files have counts only: :ClippyDiff ' .. session .. ' {path}')
    else
      ui.info(note)
    end
  end)
end

return M
