-- What a session has cost, from the server's usage updates: its tokens,
-- the part the model's context cache served, and how full the model's
-- context window was at the last request; shown in the chat's status line.
local M = {}

-- sessionId -> {total, cached, used, size}; the last session that
-- answered, for a first prompt whose session is named only by its result.
M.sessions = {}
M.last = nil

--- Keeps a usage update of the main agent (a subagent's is its own
--- context, not the session's).
function M.update(params)
  if params.parentCallId or not params.sessionId then
    return
  end
  local s = params.sessionUsage or {}
  M.sessions[params.sessionId] = {
    total = s.totalTokens or 0,
    cached = s.cachedTokens or 0,
    used = params.contextUsed or 0,
    size = params.contextSize or 0,
  }
  M.last = params.sessionId
end

--- A token count as people read it: 950, 12.3k, 1.05M.
function M.short(n)
  if n < 1000 then
    return tostring(n)
  elseif n < 1000000 then
    return (string.format("%.1fk", n / 1000):gsub("%.0k$", "k"))
  end
  return (string.format("%.2fM", n / 1000000):gsub("%.?0+M$", "M"))
end

--- The session's figures for a status line, short as lualine's are:
--- "52k tok · 40k cached · 5% ctx"; "" before it has any.
function M.status(session_id)
  local u = M.sessions[session_id or M.last]
  if not u then
    return ""
  end
  local text = string.format("%s tok · %s cached", M.short(u.total), M.short(u.cached))
  if u.size > 0 then
    text = text .. string.format(" · %d%% ctx", math.floor(u.used * 100 / u.size + 0.5))
  end
  return text
end

return M
