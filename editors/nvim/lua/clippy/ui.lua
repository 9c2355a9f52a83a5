-- Messages and the read-only scratch buffers the commands show their results in.

local config = require('clippy.config')

local M = {}

function M.info(msg)
  vim.notify('clippy: ' .. msg, vim.log.levels.INFO)
end

function M.warn(msg)
  vim.notify('clippy: ' .. msg, vim.log.levels.WARN)
end

--- An error value (connection.err or a broker error) or a string, as one line.
function M.error(e)
  local msg = type(e) == 'table' and (e.message or e.code) or tostring(e)
  vim.notify('clippy: ' .. msg, vim.log.levels.ERROR)
end

-- One window per kind of result (sessions, turns, turn, answer, terminal): a second result of
-- a kind replaces the first in its window instead of opening another split.
local windows = {}
--- The kinds whose buffers are tables, one row per line.
local LIST_KINDS = { sessions = true, turns = true }

--- The window that shows results of `kind`, if it is still open.
function M.window_of(kind)
  local win = windows[kind]
  if win and vim.api.nvim_win_is_valid(win) then
    return win
  end
  windows[kind] = nil
  return nil
end

--- Shows `buf` in the window of its `kind` (the one that shows it already, the kind's window,
--- or a new one opened as the `open` option says) and makes it the current window.
function M.show(buf, kind)
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    win = kind and M.window_of(kind) or nil
  end
  if win and win ~= -1 then
    vim.api.nvim_set_current_win(win)
    if vim.api.nvim_win_get_buf(win) ~= buf then
      vim.api.nvim_win_set_buf(win, buf)
    end
  else
    local how = config.options.open
    if how == 'vsplit' then
      vim.cmd('vsplit')
    elseif how == 'tab' then
      vim.cmd('tab split')
    elseif how ~= 'current' then
      vim.cmd('split')
    end
    vim.api.nvim_win_set_buf(0, buf)
    win = vim.api.nvim_get_current_win()
  end
  if kind then
    windows[kind] = win
  end
  -- A list reads row by row: a long command cuts off at the edge instead of wrapping.
  if LIST_KINDS[kind] then
    vim.wo[win].wrap = false
  end
  -- An agent's screen is its own: no line numbers beside it.
  if kind == 'terminal' then
    vim.wo[win].number = false
    vim.wo[win].relativenumber = false
  end
  return win
end

local function find_buffer(name)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_get_name(b) == name then
      return b
    end
  end
  return nil
end

M.find_buffer = find_buffer

--- Fills the read-only scratch buffer named `name` with `lines` (made when it does not
--- exist; `q` closes its window), without showing it. `bufhidden` is what happens to it once
--- no window shows it: 'hide' (kept: lists that follow the daemon) or 'wipe' (gone: a turn's
--- text, read again when asked for).
function M.fill(name, lines, filetype, bufhidden)
  local buf = find_buffer(name)
  if not buf then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].bufhidden = bufhidden or 'hide'
    vim.bo[buf].swapfile = false
    vim.api.nvim_buf_set_keymap(buf, 'n', 'q', '<cmd>close<cr>', { noremap = true, silent = true })
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  if filetype then
    vim.bo[buf].filetype = filetype
  end
  return buf
end

--- The same, shown in the window of `kind` (see M.show).
function M.scratch(name, lines, filetype, kind, bufhidden)
  local buf = M.fill(name, lines, filetype, bufhidden)
  M.show(buf, kind)
  return buf
end

--- Text as buffer lines: joined with '\n' they give the text back exactly.
function M.lines(text)
  return vim.split(text, '\n', { plain = true })
end

--- Pads `s` to `width` display cells.
function M.pad(s, width)
  s = tostring(s)
  local w = vim.fn.strdisplaywidth(s)
  if w >= width then
    return s
  end
  return s .. string.rep(' ', width - w)
end

--- Rows (lists of cells) as aligned columns, two spaces apart.
function M.table(rows)
  local widths = {}
  for _, row in ipairs(rows) do
    for i, cell in ipairs(row) do
      widths[i] = math.max(widths[i] or 0, vim.fn.strdisplaywidth(tostring(cell)))
    end
  end
  local out = {}
  for r, row in ipairs(rows) do
    local cells = {}
    for i, cell in ipairs(row) do
      cells[i] = i == #row and tostring(cell) or M.pad(cell, widths[i])
    end
    out[r] = table.concat(cells, '  ')
  end
  return out
end

return M
