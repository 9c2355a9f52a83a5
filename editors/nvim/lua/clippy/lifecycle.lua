-- :ClippyNew, :ClippyKill, :ClippyRemove: sessions started, ended and forgotten from the editor.

local calls = require('clippy.calls')
local client = require('clippy.client')
local config = require('clippy.config')
local daemon = require('clippy.daemon')
local ui = require('clippy.ui')

local M = {}

--- `clippy new`'s options that take a value (the next word is theirs, not the command's).
local VALUE_OPTIONS = {
  ['--name'] = true,
  ['--cwd'] = true,
  ['--preset'] = true,
  ['--pattern'] = true,
  ['--term'] = true,
  ['--detach-key'] = true,
  ['--socket'] = true,
}

--- `clippy new`'s words: the options as given, then `--` before the command, so that the
--- command's own options (`claude --model opus`) stay the command's.
function M.new_args(words)
  local out = {}
  local i = 1
  while i <= #words do
    local w = words[i]
    if w == '--' then
      vim.list_extend(out, vim.list_slice(words, i))
      return out
    end
    if w:sub(1, 1) ~= '-' then
      table.insert(out, '--')
      vim.list_extend(out, vim.list_slice(words, i))
      return out
    end
    table.insert(out, w)
    if VALUE_OPTIONS[w] and words[i + 1] then
      table.insert(out, words[i + 1])
      i = i + 1
    end
    i = i + 1
  end
  return out
end

local function has_cwd(words)
  for _, w in ipairs(words) do
    if w == '--' then
      return false
    end
    if w == '--cwd' or vim.startswith(w, '--cwd=') then
      return true
    end
  end
  return false
end

--- Starts `words` (clippy new's options and command; none: your shell) in a new session in
--- Neovim's current directory, by `clippy new -d` (the CLI gives it the editor's environment
--- and the session's TERM, as from a shell), then opens it in the terminal window, unless
--- `detached`.
function M.new(words, detached)
  local cmd, why = daemon.clippy_runnable()
  if not cmd then
    return ui.error('cannot start a session: ' .. why)
  end
  -- The daemon this plugin talks to (started if allowed), so `clippy new` finds the same one.
  client.connect(nil, calls.guarded(function(e)
    if e then
      return ui.error(e)
    end
    vim.list_extend(cmd, { 'new', '-d', '--json' })
    vim.list_extend(cmd, daemon.socket_args())
    if not has_cwd(words) then
      vim.list_extend(cmd, { '--cwd', vim.fn.getcwd() })
    end
    vim.list_extend(cmd, M.new_args(words))
    local out, err = {}, {}
    local job = vim.fn.jobstart(cmd, {
      stdout_buffered = true,
      stderr_buffered = true,
      on_stdout = function(_, data)
        out = data or {}
      end,
      on_stderr = function(_, data)
        err = data or {}
      end,
      on_exit = function(_, code)
        vim.schedule(calls.guarded(function()
          if code ~= 0 then
            local why_not = vim.trim(table.concat(err, ' '):gsub('clippy: ', ''))
            return ui.error(
              'could not start the session: ' .. (why_not ~= '' and why_not or ('exit ' .. code))
            )
          end
          local created = vim.fn.json_decode(table.concat(out, '\n'))
          ui.info(string.format('started %s (%s)', created.name, created.session))
          if not detached then
            require('clippy.attach').attach(created.session)
          end
        end))
      end,
    })
    if job <= 0 then
      ui.error('could not run `' .. table.concat(cmd, ' ') .. '`')
    end
  end))
end

--- The session `ref` names, from a fresh list (live first); cb(session) or a message.
local function find(ref, cb)
  calls.call('list_sessions', {}, config.REQUEST_TIMEOUT_MS, function(r)
    local found
    for _, s in ipairs(r.sessions) do
      if (s.name == ref or s.session == ref) and (not found or s.state ~= 'exited') then
        found = s
      end
    end
    if not found then
      return ui.error("no session has the ID or name '" .. ref .. "'")
    end
    cb(found)
  end)
end

--- Ends a running session (SIGHUP, then SIGKILL after the daemon's grace period). It stays in
--- the list, exited, with its turns to read and relay: :ClippyRemove forgets it.
function M.kill(ref)
  if not ref or ref == '' then
    return calls.usage(':ClippyKill {session}')
  end
  find(ref, function(s)
    if s.state == 'exited' then
      return ui.error(
        string.format(
          "session '%s' has already exited: :ClippyRemove %s forgets it",
          s.name,
          s.name
        )
      )
    end
    local fields = { session = s.session, remove = false }
    calls.call('kill', fields, config.REQUEST_TIMEOUT_MS, function()
      local keep = ''
      if s.turn_count > 0 then
        keep = string.format(
          '; its %s stay readable until :ClippyRemove %s',
          calls.plural(s.turn_count, 'turn'),
          s.name
        )
      end
      ui.info('killed ' .. s.name .. keep)
    end)
  end)
end

--- Forgets an exited session and its stored turns; a running one is refused by the daemon.
function M.remove(ref)
  if not ref or ref == '' then
    return calls.usage(':ClippyRemove {session}')
  end
  calls.call('remove', { session = ref }, config.REQUEST_TIMEOUT_MS, function()
    ui.info('removed ' .. ref)
  end)
end

--- Completion for :ClippyNew: option names, preset names after --preset (the daemon's list),
--- program names for the command.
function M.complete_new(lead, line)
  local words = vim.split(line, '%s+')
  local before = words[#words - 1]
  if before == '--preset' then
    local r = client.request_sync('list_presets', {}, config.COMPLETION_TIMEOUT_MS)
    local names = {}
    for _, p in ipairs(r and r.presets or {}) do
      if vim.startswith(p.name, lead) then
        table.insert(names, p.name)
      end
    end
    return names
  end
  if vim.startswith(lead, '-') then
    local opts = {
      '--name',
      '--preset',
      '--pattern',
      '--cwd',
      '--persist',
      '--no-persist',
      '--term',
      '--',
    }
    return vim.tbl_filter(function(o)
      return vim.startswith(o, lead)
    end, opts)
  end
  return vim.fn.getcompletion(lead, 'shellcmd')
end

return M
