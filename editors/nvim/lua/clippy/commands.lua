-- The :Clippy* commands: each one request (or a few) to the daemon, its result shown in a
-- scratch buffer or a message. Nothing blocks the editor while the daemon works.

local calls = require('clippy.calls')
local client = require('clippy.client')
local config = require('clippy.config')
local ui = require('clippy.ui')

local M = {}

local guarded, call, usage, present = calls.guarded, calls.call, calls.usage, calls.present
M.guarded = guarded

-- :ClippySessions ----------------------------------------------------------------------------

local function count(v)
  return type(v) == 'number' and v >= 0 and v or nil
end

--- The optional columns: only some daemons say how many turns are unread (notifications) and
--- what the agent reported spending (its own channel); a column shows when one session has it.
local EXTRA_COLUMNS = {
  {
    title = 'UNREAD',
    cell = function(s)
      -- Every session has a count: the column shows when one has an answer waiting.
      local n = count(s.unread)
      return n and n > 0 and n or nil
    end,
  },
  {
    title = 'COST',
    cell = function(s)
      local c = count(s.cost_usd)
      return c and string.format('$%.2f', c)
    end,
  },
}

--- The session list as lines: a header, then one row per session.
function M.session_lines(sessions)
  local extras = {}
  for _, col in ipairs(EXTRA_COLUMNS) do
    for _, s in ipairs(sessions) do
      if col.cell(s) then
        table.insert(extras, col)
        break
      end
    end
  end
  local header = { 'NAME', 'STATE', 'TURNS' }
  for _, col in ipairs(extras) do
    table.insert(header, col.title)
  end
  vim.list_extend(header, { 'CLIENTS', 'COMMAND' })
  local rows = { header }
  for _, s in ipairs(sessions) do
    local cmd = s.command
    if type(s.args) == 'table' and #s.args > 0 then
      cmd = cmd .. ' ' .. table.concat(s.args, ' ')
    end
    local row = { s.name, s.state, s.turn_count }
    for _, col in ipairs(extras) do
      table.insert(row, col.cell(s) or '-')
    end
    vim.list_extend(row, { s.clients, cmd })
    table.insert(rows, row)
  end
  return ui.table(rows)
end

--- The name or ID in the first column of the cursor's line (not the header, not a note).
local function name_on_line()
  if vim.fn.line('.') == 1 then
    return nil
  end
  return vim.fn.getline('.'):match('^([^%s(]%S*)')
end

local SESSIONS_BUFFER = 'clippy://sessions'

local function sessions_lines(r)
  local lines = M.session_lines(r.sessions)
  if #r.sessions == 0 then
    table.insert(lines, '(no sessions: start one with `clippy new -- <command>`)')
  end
  return lines
end

--- Re-reads the list into the sessions buffer if it still exists; false when it does not.
local function refresh_sessions()
  if not ui.find_buffer(SESSIONS_BUFFER) then
    return false
  end
  client.request(
    'list_sessions',
    {},
    config.REQUEST_TIMEOUT_MS,
    guarded(function(e, r)
      if not e and ui.find_buffer(SESSIONS_BUFFER) then
        ui.fill(SESSIONS_BUFFER, sessions_lines(r), 'clippy')
      end
    end),
    { autostart = false }
  )
  return true
end

local function sessions_lost(why)
  local buf = ui.find_buffer(SESSIONS_BUFFER)
  if buf then
    local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    table.insert(lines, '(not updated any more: ' .. why .. '; press r to reconnect)')
    ui.fill(SESSIONS_BUFFER, lines, 'clippy')
  end
end

function M.sessions()
  call('list_sessions', {}, config.REQUEST_TIMEOUT_MS, function(r)
    local buf = ui.scratch(SESSIONS_BUFFER, sessions_lines(r), 'clippy', 'sessions')
    -- Kept current by the daemon's pushes while it exists.
    require('clippy.watch').sessions(refresh_sessions, guarded(sessions_lost))
    local function map(key, fn)
      vim.api.nvim_buf_set_keymap(buf, 'n', key, '', {
        noremap = true,
        silent = true,
        callback = guarded(function()
          local name = name_on_line()
          if name then
            fn(name)
          end
        end),
      })
    end
    map('<CR>', M.turns)
    map('a', M.attach)
    map('c', M.capture)
    map('p', M.paste)
    map('w', M.wait)
    vim.api.nvim_buf_set_keymap(buf, 'n', 'r', '', {
      noremap = true,
      silent = true,
      callback = guarded(M.sessions),
    })
  end)
end

-- :ClippySend / :ClippyAsk --------------------------------------------------------------------

--- The text a command works on: lines line1..line2 when a range was given, else the buffer.
local function range_text(range, line1, line2)
  local lines
  if range and range > 0 then
    lines = vim.api.nvim_buf_get_lines(0, line1 - 1, line2, false)
  else
    lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  end
  return table.concat(lines, '\n'), #lines
end

local function what(range)
  return (range and range > 0) and 'selection' or 'buffer'
end

function M.send(session, range, line1, line2)
  if not session or session == '' then
    return usage(':[range]ClippySend {session}')
  end
  local text, n = range_text(range, line1, line2)
  if vim.trim(text) == '' then
    return ui.error('nothing to send: the ' .. what(range) .. ' is empty')
  end
  call(
    'send',
    { session = session, text = text, enter = true },
    config.INJECT_TIMEOUT_MS,
    function(r)
      if r.submitted then
        ui.info(string.format('sent %d line%s to %s', n, n == 1 and '' or 's', session))
      else
        ui.warn('the text was typed into ' .. session .. ' but it did not react to Enter')
      end
    end
  )
end

-- The turn shown last (an answer, a turn opened from a list): what :ClippyPut puts by default.
local last_turn_id = nil

function M.last_turn_id()
  return last_turn_id
end

--- A turn's scratch buffer, exactly its text, in the window of `kind`: 'answer' (what
--- :ClippyAsk and :ClippyWait waited for) or 'turn' (one opened from a list). It is wiped once
--- no window shows it: the daemon keeps the turn. Markdown when the text is the agent's own
--- answer (its channel gave it: text_source 'agent').
function M.show_turn(turn, kind)
  local buf = ui.scratch(
    'clippy://turn/' .. turn.turn_id,
    ui.lines(turn.text),
    turn.text_source == 'agent' and 'markdown' or 'clippy-turn',
    kind or 'turn',
    'wipe'
  )
  vim.api.nvim_buf_set_var(buf, 'clippy_turn_id', turn.turn_id)
  last_turn_id = turn.turn_id
  return buf
end

function M.ask(session, range, line1, line2)
  if not session or session == '' then
    return usage(':[range]ClippyAsk {session}')
  end
  local text = range_text(range, line1, line2)
  if vim.trim(text) == '' then
    return ui.error('nothing to ask: the ' .. what(range) .. ' is empty')
  end
  -- The answer is the first turn after the latest one stored now (as `clippy ask` does), so
  -- a turn completing between the send and the wait is not missed.
  call('list_turns', { session = session, limit = 1 }, config.REQUEST_TIMEOUT_MS, function(lt)
    local after = lt.turns[1] and lt.turns[1].turn_id or (session .. ':0')
    call(
      'send',
      { session = session, text = text, enter = true, complete = true },
      config.INJECT_TIMEOUT_MS,
      function(sent)
        if not sent.submitted then
          return ui.error('the text was typed into ' .. session .. ' but it did not react to Enter')
        end
        ui.info('asked ' .. session .. ', waiting for its answer')
        local fields = { session = session, after = after }
        local limit = config.options.ask_timeout_ms
        if limit and limit > 0 then
          fields.timeout_ms = limit
        end
        -- The daemon enforces the limit (answering `timeout`); no second clock here.
        call('wait_turn', fields, 0, function(w)
          M.show_turn(w.turn, 'answer')
          ui.info(string.format('%s answered (turn %s)', session, w.turn.turn_id))
        end)
      end
    )
  end)
end

-- :ClippyWait ---------------------------------------------------------------------------------

--- Waits (without blocking the editor) for the session's next turn and shows it, as `clippy
--- wait` prints it; ask_timeout_ms limits the wait.
function M.wait(session)
  if not session or session == '' then
    return usage(':ClippyWait {session}')
  end
  local fields = { session = session }
  local limit = config.options.ask_timeout_ms
  if limit and limit > 0 then
    fields.timeout_ms = limit
  end
  ui.info('waiting for the next turn of ' .. session)
  call('wait_turn', fields, 0, function(w)
    M.show_turn(w.turn, 'answer')
    ui.info(string.format('%s finished a turn (%s)', session, w.turn.turn_id))
  end)
end

-- :ClippyRelay --------------------------------------------------------------------------------

function M.relay(from, to)
  if not from or not to or from == '' or to == '' then
    return usage(':ClippyRelay {from} {to}')
  end
  call('relay', { from = from, to = to }, config.INJECT_TIMEOUT_MS, function(r)
    if r.submitted then
      ui.info(string.format('relayed %s (%d bytes) from %s to %s', r.turn_id, r.size, from, to))
    else
      ui.warn(
        string.format('relayed %s into %s, but %s did not react to Enter', r.turn_id, to, to)
      )
    end
  end)
end

-- :ClippyCapture / :ClippyPaste -------------------------------------------------------------

--- Takes a turn into the relay buffer: a turn ID, a session's latest, or (none given) the turn
--- the current buffer shows; as `clippy capture`.
function M.capture(ref)
  if not ref or ref == '' then
    ref = vim.b.clippy_turn_id
    if not ref then
      return usage(':ClippyCapture {session|turn ID} (or run it in a turn\'s buffer)')
    end
  end
  local kind, fields = 'capture', { session = ref }
  if calls.is_turn_id(ref) then
    kind, fields = 'capture_by_id', { turn_id = ref }
  end
  call(kind, fields, config.REQUEST_TIMEOUT_MS, function(r)
    -- The text's bytes (what :ClippyPaste sends) and the raw ones (ANSI included).
    local size = r.text_size and string.format('%d bytes of text, %d raw', r.text_size, r.size)
      or string.format('%d raw bytes', r.size)
    ui.info(
      string.format('captured %s (%s); :ClippyPaste {session} puts it into a session', r.turn_id, size)
    )
  end)
end

--- Types the relay buffer (what :ClippyCapture took) into a session and submits it.
function M.paste(session)
  if not session or session == '' then
    return usage(':ClippyPaste {session}')
  end
  call('paste', { session = session }, config.INJECT_TIMEOUT_MS, function(r)
    if r.submitted then
      ui.info(string.format('pasted %s (%d bytes) into %s', r.turn_id, r.size, session))
    else
      ui.warn(
        string.format('pasted %s into %s, but it did not react to Enter', r.turn_id, session)
      )
    end
  end)
end

-- :ClippyTurns --------------------------------------------------------------------------------

--- A turn's prompt on one line, cut to `width` characters.
local function one_line(s, width)
  s = (s or ''):gsub('[\r\n]+', ' ')
  if vim.fn.strchars(s) > width then
    s = vim.fn.strcharpart(s, 0, width - 1) .. '…'
  end
  return s
end

--- How long a turn took, for a person.
local function seconds(ms)
  if not present(ms) then
    return '-'
  end
  return string.format('%.1fs', ms / 1000)
end

--- The turn list as lines: newest first, as the daemon gives it.
function M.turn_lines(turns)
  local rows = { { 'TURN', 'TIME', 'TOOK', 'BYTES', 'PROMPT' } }
  for _, t in ipairs(turns) do
    local flags = t.interrupted and ' (interrupted)' or ''
    table.insert(rows, {
      t.turn_id,
      os.date('%H:%M:%S', math.floor(t.timestamp / 1000)),
      seconds(t.duration_ms),
      t.byte_length,
      one_line(t.prompt, 60) .. flags,
    })
  end
  return ui.table(rows)
end

--- Opens a stored turn's text (by ID) in its scratch buffer.
function M.open_turn(turn_id)
  call('get_turn', { turn_id = turn_id }, config.REQUEST_TIMEOUT_MS, function(r)
    M.show_turn(r.turn, 'turn')
  end)
end

function M.turns(session)
  if not session or session == '' then
    return usage(':ClippyTurns {session}')
  end
  call('list_turns', { session = session }, config.REQUEST_TIMEOUT_MS, function(r)
    local lines = M.turn_lines(r.turns)
    if #r.turns == 0 then
      table.insert(lines, '(no completed turns yet)')
    end
    local buf = ui.scratch('clippy://turns/' .. session, lines, 'clippy', 'turns')
    vim.api.nvim_buf_set_keymap(buf, 'n', '<CR>', '', {
      noremap = true,
      silent = true,
      callback = guarded(function()
        local id = name_on_line()
        if id then
          M.open_turn(id)
        end
      end),
    })
  end)
end

--- :ClippyAttach (lua/clippy/attach.lua), for the sessions list's `a`.
function M.attach(session)
  require('clippy.attach').attach(session)
end

-- Completion ----------------------------------------------------------------------------------

--- Session names from the live daemon that start with `lead` (live sessions first). An
--- absent or slow daemon gives none: completion never starts a daemon or reports errors.
function M.complete_sessions(lead)
  local r = client.request_sync('list_sessions', {}, config.COMPLETION_TIMEOUT_MS)
  if not r then
    return {}
  end
  local live, exited, seen = {}, {}, {}
  for _, s in ipairs(r.sessions) do
    if not seen[s.name] and vim.startswith(s.name, lead or '') then
      seen[s.name] = true
      table.insert(s.state == 'exited' and exited or live, s.name)
    end
  end
  table.sort(live)
  table.sort(exited)
  return vim.list_extend(live, exited)
end

return M
