-- :ClippyPut and :ClippyYank: a turn's text into the buffer at the cursor, or into a register,
-- without opening it first.

local calls = require('clippy.calls')
local config = require('clippy.config')
local ui = require('clippy.ui')

local M = {}

local NO_TURN = 'no turn given or shown yet: give a turn ID (alpha:3) or a session (its latest '
  .. 'turn), or show one first (:ClippyAsk, :ClippyWait, :ClippyTurns)'

--- cb(turn) with the turn `ref` names: a turn ID, a session (its latest turn) or, none given,
--- the turn the current buffer shows, else the one shown last.
function M.turn_of(ref, cb)
  if not ref or ref == '' then
    ref = vim.b.clippy_turn_id or require('clippy.commands').last_turn_id()
    if not ref then
      return ui.error(NO_TURN)
    end
  end
  local fields = calls.is_turn_id(ref) and { turn_id = ref } or { session = ref }
  calls.call('get_turn', fields, config.REQUEST_TIMEOUT_MS, function(r)
    cb(r.turn)
  end)
end

local function not_modifiable(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  return string.format(
    'cannot put into %s: it is not modifiable',
    name ~= '' and vim.fn.fnamemodify(name, ':~:.') or 'this buffer'
  )
end

--- Puts the turn's text as whole lines below `line` (above it with `above`), in the buffer that
--- was current when asked, as `:put` puts a register; the cursor goes to its last line.
function M.put(ref, line, above)
  local buf = vim.api.nvim_get_current_buf()
  if not vim.bo[buf].modifiable then
    return ui.error(not_modifiable(buf))
  end
  line = line or vim.api.nvim_win_get_cursor(0)[1]
  M.turn_of(ref, function(turn)
    if not vim.api.nvim_buf_is_valid(buf) then
      return ui.error('the buffer to put ' .. turn.turn_id .. ' into is gone')
    end
    if not vim.bo[buf].modifiable then
      return ui.error(not_modifiable(buf))
    end
    local lines = ui.lines(turn.text)
    local at = math.min(above and line - 1 or line, vim.api.nvim_buf_line_count(buf))
    vim.api.nvim_buf_set_lines(buf, at, at, false, lines)
    if vim.api.nvim_get_current_buf() == buf then
      vim.api.nvim_win_set_cursor(0, { at + #lines, 0 })
    end
    ui.info(string.format('put %s (%s)', turn.turn_id, calls.plural(#lines, 'line')))
  end)
end

--- Puts the turn's text into register `reg` (default: the unnamed one), linewise.
function M.yank(reg, ref)
  if not reg or reg == '' then
    reg = '"'
  end
  M.turn_of(ref, function(turn)
    local lines = ui.lines(turn.text)
    local ok, e = pcall(vim.fn.setreg, reg, lines, 'l')
    if not ok then
      return ui.error(string.format('cannot set register %s: %s', reg, tostring(e)))
    end
    ui.info(
      string.format('%s (%s) is in register %s', turn.turn_id, calls.plural(#lines, 'line'), reg)
    )
  end)
end

return M
