-- The sessions: a new one, an earlier one to continue (or delete), live or
-- saved by an earlier gemini-ls, and rewinding the current one to before
-- one of its prompts.
local chat = require("gemini.chat")
local client_of = require("gemini.client")

local M = {}

-- The plugin's module, required when called: it requires this one.
local function gemini()
  return require("gemini")
end

--- Starts a new conversation in an empty chat, as codecompanion.nvim's
--- new chat does; :GeminiSessions brings the earlier one back.
function M.new_session()
  gemini().state.session_id = nil
  chat.clear()
end

-- JSON-RPC's MethodNotFound: a server older than the method asked.
local method_not_found = -32601

-- Seconds since the epoch of an RFC 3339 time ("2026-11-22T12:53:39.5Z",
-- or with an offset), nil when it is not one.
local function epoch(stamp)
  local y, mo, d, h, mi, sec, zone = tostring(stamp or ""):match("^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)[%.%d]*(.*)$")
  if not y then
    return nil
  end
  -- os.time reads the table as local time; undo the local offset.
  local now = os.time()
  local local_offset = os.time(os.date("*t", now)) - os.time(os.date("!*t", now))
  local t = os.time({ year = y, month = mo, day = d, hour = h, min = mi, sec = sec, isdst = false }) + local_offset
  local sign, zh, zm = zone:match("^([+-])(%d+):(%d+)$")
  if sign then
    t = t - (sign == "+" and 1 or -1) * (tonumber(zh) * 3600 + tonumber(zm) * 60)
  end
  return t
end
M.epoch = epoch

--- When a session was last used, for people: "just now", "5 min ago",
--- "3 h ago", "yesterday", "4 days ago", else the date.
function M.ago(stamp, now)
  local t = epoch(stamp)
  if not t then
    return stamp or ""
  end
  local s = (now or os.time()) - t
  if s < 60 then
    return "just now"
  elseif s < 3600 then
    return string.format("%d min ago", math.floor(s / 60))
  elseif s < 86400 then
    return string.format("%d h ago", math.floor(s / 3600))
  elseif s < 2 * 86400 then
    return "yesterday"
  elseif s < 7 * 86400 then
    return string.format("%d days ago", math.floor(s / 86400))
  end
  return os.date("%Y-%m-%d", t)
end

-- A session's title, or what stands for one it lacks.
local function session_title(s)
  return (s.title and s.title ~= "") and s.title or "(untitled session)"
end

--- One row of the session list: title, prompts, when last used, and
--- "saved" for a session on disk that is not live in the server.
function M.session_label(s, now)
  local when = M.ago(s.updatedAt or s.createdAt, now)
  local title = session_title(s)
  local n = s.prompts or 0
  return string.format("%s (%d %s, %s%s)", title, n, n == 1 and "prompt" or "prompts", when, s.live == false and ", saved" or "")
end

-- The chat's lines for a session's exchanges, after lines.
local function exchange_lines(lines, exchanges)
  for _, e in ipairs(exchanges or {}) do
    vim.list_extend(lines, { "", "## Prompt", "" })
    vim.list_extend(lines, vim.split(e.prompt or "", "\n", { plain = true }))
    vim.list_extend(lines, { "", "## Gemini", "" })
    vim.list_extend(lines, vim.split(e.answer or "", "\n", { plain = true }))
    local note = chat.stop_note(e.stopReason)
    if note then
      vim.list_extend(lines, { "", note })
    end
  end
  return lines
end

--- Continues session id: asks the server to resume it (so a session saved
--- by an earlier server comes back) and shows its earlier conversation in
--- the chat; the next prompt goes to it.
function M.resume(id, title, on_done)
  local client = gemini().client()
  if not client then
    return
  end
  client_of.when_ready(client, function()
  client_of.client_call(client, "request", "gemini/resumeSession", { sessionId = id }, function(err, result)
    gemini().resumed(id, title, err, result)
    if on_done then
      on_done(err, result)
    end
  end)
  end)
end

-- Takes the session's approval mode from a resumeSession result, where
-- the server says it (older servers do not).
local function adopt_mode(session_id, result)
  if type(result.mode) == "string" and result.mode ~= "" then
    gemini().state.modes[session_id] = result.mode
    pcall(vim.cmd, "redrawstatus!")
  end
end

-- Shows the session's usage from a resumeSession result as a live usage
-- update would, where the server says it (older servers, and sessions
-- that never answered, have none): its figures do not wait for the next
-- answer.
local function adopt_usage(result)
  if type(result.usage) == "table" then
    require("gemini.handlers").take_usage(result.usage)
  end
end

--- Shows what gemini/resumeSession of session id (titled title) answered:
--- the earlier conversation in the chat, the session's approval mode and
--- usage in the statusline; the next prompt goes to the session.
function M.resumed(id, title, err, result)
  chat.show()
  if err and err.code == method_not_found then
    -- An older server: its sessions are live ones, continued by id.
    gemini().state.session_id = id
    chat.lines({ "", "---", "_(continuing: " .. (title or id) .. ")_" })
  elseif err then
    local msg = "could not continue the session: " .. (err.message or vim.inspect(err))
    chat.lines({ "", "Error: " .. msg })
    require("gemini.say").tell("Gemini: " .. msg, vim.log.levels.ERROR)
  else
    local session = result.session or {}
    gemini().state.session_id = session.sessionId or id
    adopt_mode(gemini().state.session_id, result)
    adopt_usage(result)
    chat.lines(exchange_lines({ "", "---", "_(continuing: " .. (session.title or title or id) .. ")_" }, result.exchanges))
  end
end

-- Lists the sessions of this workspace, live and saved, the most recently
-- used first, with vim.ui.select (titled prompt), and calls on_choice(client,
-- session) with the one the user picks.
local function pick_session(prompt, on_choice)
  local client = gemini().client()
  if not client then
    return
  end
  local root = gemini().config.root_dir or vim.loop.cwd()
  local function pick(err, result)
    if err then
      gemini().notify_once(err.message)
      return
    end
    local items = result and result.sessions or {}
    if #items == 0 then
      require("gemini.say").tell("Gemini: no sessions yet")
      return
    end
    table.sort(items, function(a, b)
      return (epoch(a.updatedAt) or 0) > (epoch(b.updatedAt) or 0)
    end)
    local now = os.time()
    vim.ui.select(items, {
      prompt = prompt,
      format_item = function(s)
        return M.session_label(s, now)
      end,
    }, function(choice)
      if choice then
        on_choice(client, choice)
      end
    end)
  end
  client_of.when_ready(client, function()
  client_of.client_call(client, "request", "gemini/listSessions", { root = vim.uri_from_fname(root) }, function(err, result)
    if err and err.code == method_not_found then
      client_of.client_call(client, "request", "gemini/sessions", {}, pick)
    else
      pick(err, result)
    end
  end)
  end)
end

--- Lists the sessions of this workspace, live and saved, the most recently
--- used first, and continues the one the user picks.
function M.sessions()
  pick_session("Continue a Gemini session", function(_, choice)
    gemini().resume(choice.sessionId, choice.title)
  end)
end

--- Deletes session s (a gemini/listSessions row) once the user confirms,
--- as gemini --delete-session does: its conversation and its saved file
--- go. The chat showing it starts a new session, the server having
--- forgotten it. What happened is told with vim.notify.
function M.delete_picked_session(client, s)
  local title = session_title(s)
  local answer = vim.fn.confirm(
    string.format("Delete the session “%s”?\nIts conversation and its saved file are deleted for good.", title),
    "&Delete\n&Cancel", 2, "Warning")
  if answer ~= 1 then
    return
  end
  client_of.client_call(client, "request", "gemini/deleteSession", { sessionId = s.sessionId }, function(err)
    if err then
      local msg = err.code == method_not_found
          and "this gemini-ls is too old to delete sessions; update it (:GeminiInstall) to delete them here"
        or string.format("could not delete the session “%s”: %s", title, err.message or vim.inspect(err))
      require("gemini.say").tell("Gemini: " .. msg, vim.log.levels.ERROR)
      return
    end
    if s.sessionId == gemini().state.session_id then
      gemini().new_session()
    end
    require("gemini.say").tell(string.format("Gemini: deleted the session “%s”", title))
  end)
end

--- Lists the sessions of this workspace as M.sessions does and deletes
--- the one the user picks, once they confirm (M.delete_picked_session).
function M.delete_session()
  pick_session("Delete a Gemini session", M.delete_picked_session)
end

local rewind_modes = {
  { mode = "both", label = "Conversation and code" },
  { mode = "conversation", label = "Conversation only" },
  { mode = "code", label = "Code only" },
}

-- One row of the rewind list: the prompt as typed and the files it changed.
function M.rewind_label(p)
  local text = (p.text or ""):gsub("%s+", " ")
  local files = {}
  for _, f in ipairs(p.files or {}) do
    table.insert(files, vim.fn.fnamemodify(f, ":~:."))
  end
  -- No number: vim.ui.select numbers the rows, in the prompts' order.
  return string.format("%s%s", text, #files > 0 and ("  [" .. table.concat(files, ", ") .. "]") or "")
end

-- Shows the session afresh in the chat, as the server now holds it.
local function reload_chat(client, header, on_done)
  client_of.client_call(client, "request", "gemini/resumeSession", { sessionId = gemini().state.session_id }, function(err, result)
    if not err then
      adopt_mode(gemini().state.session_id, result)
      adopt_usage(result)
      chat.clear()
      chat.lines(exchange_lines({ header }, result.exchanges))
    end
    if on_done then
      on_done(err)
    end
  end)
end

--- Rewinds the session to before a prompt the user picks: its
--- conversation, the agent's changes to files since, or both. The revert
--- of files comes back as one change to review.
function M.rewind(on_done)
  local client = gemini().client()
  local session = gemini().state.session_id
  if not client then
    return
  end
  if not session then
    require("gemini.say").tell("Gemini: no session to rewind yet")
    return
  end
  local function fail(err)
    require("gemini.say").tell("Gemini: could not rewind: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    if on_done then
      on_done(err)
    end
  end
  local function run(p, mode)
    client_of.client_call(client, "request", "gemini/rewind", { sessionId = session, prompt = p.prompt, mode = mode }, function(err, result)
      if err then
        return fail(err)
      end
      reload_chat(client, "_(rewound to before prompt " .. p.prompt .. ")_", function()
        chat.show()
        chat.lines(vim.list_extend({ "" }, vim.split(result.message or "", "\n", { plain = true })))
        if on_done then
          on_done(nil, result)
        end
      end)
    end)
  end
  client_of.when_ready(client, function()
    client_of.client_call(client, "request", "gemini/rewind", { sessionId = session }, function(err, result)
      if err then
        return fail(err)
      end
      local prompts = result and result.prompts or {}
      if #prompts == 0 then
        require("gemini.say").tell("Gemini: nothing to rewind")
        return
      end
      vim.ui.select(prompts, { prompt = "Rewind to before", format_item = M.rewind_label }, function(p)
        if not p then
          return
        end
        vim.ui.select(rewind_modes, {
          prompt = "Rewind what",
          format_item = function(m)
            return m.label
          end,
        }, function(m)
          if m then
            run(p, m.mode)
          end
        end)
      end)
    end)
  end)
end

return M
