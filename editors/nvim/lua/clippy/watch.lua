-- Keeps the :ClippySessions buffer current: the daemon pushes session events on the plugin's
-- connection (`subscribe`), and each burst of them re-reads the list. No polling.

local client = require('clippy.client')
local config = require('clippy.config')

local M = {}

--- The events that change what the session list shows.
local EVENTS = {
  'session_created',
  'state_changed',
  'turn_completed',
  'session_exited',
  'session_removed',
  'unread_changed',
}

--- Events often come in bursts (a turn completes and the state changes): one re-read per
--- burst, this long after its first event, keeps the buffer current without a request each.
M.REFRESH_DEBOUNCE_MS = 50

-- The connection the subscription lives on (a new connection needs a new subscription).
local subscribed = nil
local scheduled = false
-- Connections whose pushes are already listened to (one listener each, however often
-- :ClippySessions runs).
local hooked = setmetatable({}, { __mode = 'k' })

--- Starts watching (once per connection); `refresh()` re-reads and redraws the list, and
--- returns false once there is nothing left to keep current (then the watch stops).
function M.sessions(refresh, on_lost)
  client.connect(nil, function(e, conn)
    if e or conn == subscribed then
      return
    end
    subscribed = conn
    -- Read once more when subscribed: what changed since the list was read is not missed.
    local function subscribe()
      conn:request('subscribe', { events = EVENTS }, config.REQUEST_TIMEOUT_MS, function(se)
        if se then
          if subscribed == conn then
            subscribed = nil
          end
        elseif subscribed == conn then
          pcall(refresh)
        end
      end)
    end
    if hooked[conn] then
      subscribe()
      return
    end
    hooked[conn] = true
    conn:on_push(function(push)
      if subscribed ~= conn or scheduled or not vim.tbl_contains(EVENTS, push.type) then
        return
      end
      scheduled = true
      vim.defer_fn(function()
        scheduled = false
        local ok, wanted = pcall(refresh)
        if subscribed == conn and ok and not wanted then
          subscribed = nil
          conn:request('unsubscribe', {}, config.REQUEST_TIMEOUT_MS, function() end)
        end
      end, M.REFRESH_DEBOUNCE_MS)
    end)
    conn:on_lost(function(why)
      if subscribed == conn then
        subscribed = nil
        on_lost(why)
      end
    end)
    subscribe()
  end)
end

return M
