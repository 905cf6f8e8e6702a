-- The agents view (:GeminiAgents): the sessions that run in a git worktree
-- of their own (protocol §5h), one row each, as Claude Code's agents view
-- lists its background agents: the task, what it is doing, for how long,
-- its tokens and the files it changed. The list comes from gemini/agents
-- and is kept live by gemini/agent notifications; a timer redraws the
-- elapsed times while an agent works. From a row the user opens the
-- agent's chat, stops it, reviews and lands its work, merges its branch
-- or discards it.
--
-- A background agent (kind "background", issue 98) runs on GitHub
-- Actions, started with :GeminiBackground (gemini/delegate): its row says
-- GitHub, and the line under it links its run and pull request (o and p
-- open them). f sends it a follow-up (gemini/followUpAgent). Once its
-- branch is fetched into a local worktree it lands, merges and discards
-- as a local agent does. The server tells the user when its run ends
-- (window/showMessage), so the view does not tell it again.
--
-- An agent's updates and questions carry its sessionId: the chat shows
-- one session, so an agent's updates are kept out of it unless the chat
-- shows that agent (M.foreign), and its questions name it (M.asker).
local client_of = require("gemini.client")
local usage = require("gemini.usage")

local M = {}

-- The plugin's module, required when called: it requires this one.
local function gemini()
  return require("gemini")
end

-- key (sessionId, or "worktree:<name>" for a worktree found on disk with
-- no saved session) -> the Agent as the server last sent it.
M.agents = {}
-- The view's buffer, and which agent each of its lines shows (1-based
-- line -> key); the header line shows none.
M.buf = nil
local row_keys = {}
-- The timer that redraws elapsed times while an agent works.
local ticker = nil

M.keys = "<CR> chat · n new · b on GitHub · s stop · r review & land · m merge · d discard · R refresh · q close"

-- How each state reads in the view, and its mark.
local states = {
  queued = { "◌", "queued" },
  working = { "●", "working" },
  waiting = { "?", "waiting for you" },
  done = { "✓", "done" },
  failed = { "✗", "failed" },
  stopped = { "■", "stopped" },
}

--- The agent's background object when it runs on GitHub, else nil.
function M.background(a)
  if type(a.background) == "table" and (a.kind == "background" or a.kind == nil) then
    return a.background
  end
  return nil
end

-- The background agent's id (gemini/followUpAgent, gemini/discardAgent),
-- nil for a local agent or one without an id.
local function background_id(a)
  local bg = M.background(a)
  return bg and type(bg.id) == "string" and bg.id ~= "" and bg.id or nil
end

--- The key an agent is kept under.
function M.key(a)
  local id = background_id(a)
  if id then
    return "background:" .. id
  end
  if type(a.sessionId) == "string" and a.sessionId ~= "" then
    return a.sessionId
  end
  return "worktree:" .. M.name(a)
end

--- The agent's name as the user is told it: its worktree's name, else
--- its title.
function M.name(a)
  local wt = type(a.worktree) == "table" and a.worktree or {}
  if type(wt.name) == "string" and wt.name ~= "" then
    return wt.name
  end
  return type(a.title) == "string" and a.title or "?"
end

--- The agent that runs session id, nil when none does.
function M.of_session(id)
  if type(id) ~= "string" or id == "" then
    return nil
  end
  return M.agents[id]
end

--- Whether session id is an agent's that the chat does not show: its
--- updates stay out of the chat.
function M.foreign(id)
  return M.of_session(id) ~= nil and id ~= gemini().state.session_id
end

--- What a question of session id is prefixed with to name who asks:
--- "Agent fix-login: ", "" for a session that is no agent's.
function M.asker(id)
  local a = M.of_session(id)
  return a and ("Agent " .. M.name(a) .. ": ") or ""
end

--- Time as people read it: "45s", "3m 05s", "1h 02m".
function M.duration(s)
  s = math.max(0, math.floor(s))
  if s < 60 then
    return string.format("%ds", s)
  elseif s < 3600 then
    return string.format("%dm %02ds", math.floor(s / 60), s % 60)
  end
  return string.format("%dh %02dm", math.floor(s / 3600), math.floor(s % 3600 / 60))
end

--- How long the agent has run: from its start to its last turn's end,
--- or to now while it runs; "" when it never started.
function M.elapsed(a, now)
  local epoch = require("gemini.sessions").epoch
  local from = epoch(a.startedAt)
  if not from then
    return ""
  end
  return M.duration((epoch(a.endedAt) or now or os.time()) - from)
end

--- The agent's files as a count and lines: "2 files +14 −3", "no changes".
function M.files(a)
  local n, added, removed = 0, 0, 0
  for _, f in ipairs(type(a.files) == "table" and a.files or {}) do
    n, added, removed = n + 1, added + (tonumber(f.added) or 0), removed + (tonumber(f.removed) or 0)
  end
  if n == 0 then
    return "no changes"
  end
  return string.format("%d %s +%d −%d", n, n == 1 and "file" or "files", added, removed)
end

--- The state as the view says it: "working", "waiting for you", …
function M.state_text(a)
  local s = states[a.state]
  return s and s[2] or tostring(a.state)
end

-- Cuts text to width display cells, with "…" where it cut, and pads it.
local function fit(text, width)
  text = (text or ""):gsub("%s+", " ")
  if vim.fn.strdisplaywidth(text) > width then
    local chars = vim.fn.strchars(text)
    repeat
      chars = chars - 1
      text = vim.fn.strcharpart(text, 0, chars)
    until vim.fn.strdisplaywidth(text) <= width - 1
    text = text .. "…"
  end
  return text .. string.rep(" ", width - vim.fn.strdisplaywidth(text))
end

--- The agents, newest first (by start; those never started last).
function M.sorted()
  local epoch = require("gemini.sessions").epoch
  local list = vim.tbl_values(M.agents)
  table.sort(list, function(a, b)
    local ta, tb = epoch(a.startedAt) or 0, epoch(b.startedAt) or 0
    if ta ~= tb then
      return ta > tb
    end
    return M.key(a) < M.key(b)
  end)
  return list
end

-- The pull request of background object bg: {number, url}, nil when
-- it has none yet.
local function pull_request(bg)
  local pr = type(bg.pullRequest) == "table" and bg.pullRequest or nil
  return pr and type(pr.url) == "string" and pr.url ~= "" and pr or nil
end

--- Whether the agent's work is in a local worktree (a background one's
--- once its branch was fetched).
function M.fetched(a)
  return type(a.worktree) == "table" and type(a.worktree.name) == "string" and a.worktree.name ~= ""
end

--- A background agent's links as the line under its row says them: its
--- run (o) once GitHub made it, its pull request (p) once there is one,
--- and f to follow up.
function M.links(a)
  local bg = M.background(a) or {}
  local parts = {}
  if type(bg.runUrl) == "string" and bg.runUrl ~= "" then
    table.insert(parts, "o run " .. bg.runUrl)
  else
    table.insert(parts, "no run yet")
  end
  local pr = pull_request(bg)
  if pr then
    table.insert(parts, string.format("p PR #%s %s", tostring(pr.number or "?"), pr.url))
  end
  table.insert(parts, "f follow up")
  return "on GitHub: " .. table.concat(parts, " · ")
end

--- The view's lines at time now: the header with the keys, then a row
--- per agent (mark, title, state, elapsed, tokens, files), and under a
--- row what the agent waits on or why it failed. Also returns which
--- agent each line shows (line -> key).
function M.lines(now)
  local lines = { "Gemini agents · " .. M.keys }
  local keys = {}
  local list = M.sorted()
  if #list == 0 then
    table.insert(lines, "  No agents yet: n starts one.")
    return lines, keys
  end
  local width = 10
  for _, a in ipairs(list) do
    width = math.max(width, math.min(40, vim.fn.strdisplaywidth(a.title or "")))
  end
  for _, a in ipairs(list) do
    local mark = (states[a.state] or { " " })[1]
    local tokens = tonumber(a.tokens) or 0
    local title = (type(a.title) == "string" and a.title ~= "") and a.title or M.name(a)
    local bg = M.background(a)
    -- A background agent's tokens are spent on GitHub: its column says
    -- where it runs; its files are known once its work is fetched.
    local where = bg and "GitHub" or (tokens > 0 and (usage.short(tokens) .. " tok") or "")
    local files = (bg and not M.fetched(a)) and "" or M.files(a)
    local row = string.format("%s %s  %-15s  %7s  %9s  %s", mark, fit(title, width),
      M.state_text(a), M.elapsed(a, now), where, files)
    table.insert(lines, (row:gsub("%s+$", "")))
    keys[#lines] = M.key(a)
    if bg then
      table.insert(lines, "    ↳ " .. M.links(a))
      keys[#lines] = M.key(a)
    end
    local why = (a.state == "waiting" and a.question) or (a.state == "failed" and a.error) or nil
    if type(why) == "string" and why ~= "" then
      table.insert(lines, "    ↳ " .. vim.split(why, "\n", { plain = true })[1])
      keys[#lines] = M.key(a)
    end
  end
  return lines, keys
end

-- Whether a window shows the view.
local function shown()
  if not (M.buf and vim.api.nvim_buf_is_valid(M.buf)) then
    return false
  end
  return vim.fn.bufwinid(M.buf) ~= -1
end

local function running()
  for _, a in pairs(M.agents) do
    if a.state == "working" or a.state == "waiting" or a.state == "queued" then
      return true
    end
  end
  return false
end

-- Redraws every second while the view is shown and an agent runs; stops
-- itself otherwise.
local function tick()
  if ticker or not shown() or not running() then
    return
  end
  ticker = vim.loop.new_timer()
  ticker:start(1000, 1000, vim.schedule_wrap(function()
    if not shown() or not running() then
      if ticker then
        ticker:stop()
        ticker:close()
        ticker = nil
      end
    end
    M.render()
  end))
end

--- Draws the view afresh, the cursor kept on its line.
function M.render()
  if not (M.buf and vim.api.nvim_buf_is_valid(M.buf)) then
    return
  end
  local lines, keys = M.lines(os.time())
  row_keys = keys
  -- Replacing every line would take each window's cursor to the top.
  local cursors = {}
  for _, win in ipairs(vim.fn.win_findbuf(M.buf)) do
    cursors[win] = vim.api.nvim_win_get_cursor(win)
  end
  vim.bo[M.buf].modifiable = true
  vim.api.nvim_buf_set_lines(M.buf, 0, -1, false, lines)
  vim.bo[M.buf].modifiable = false
  for win, pos in pairs(cursors) do
    pcall(vim.api.nvim_win_set_cursor, win, { math.min(pos[1], #lines), 0 })
  end
  tick()
end

-- What the user is told when an agent comes to a state, and how loud.
local function transition_message(a)
  local name = "Gemini: agent “" .. M.name(a) .. "”"
  if a.state == "waiting" then
    local q = type(a.question) == "string" and a.question ~= "" and (": " .. vim.split(a.question, "\n", { plain = true })[1]) or ""
    return name .. " is waiting for you" .. q, vim.log.levels.WARN
  elseif a.state == "done" then
    return name .. " is done (" .. M.files(a) .. "); :GeminiAgents to review it", vim.log.levels.INFO
  elseif a.state == "failed" then
    return name .. " failed" .. (type(a.error) == "string" and a.error ~= "" and (": " .. a.error) or ""), vim.log.levels.ERROR
  end
end

--- Takes a gemini/agent notification: the agent's row is replaced (a
--- discarded one goes), and the user is told when it comes to waiting,
--- done or failed.
function M.take(a)
  if type(a) ~= "table" or type(a.state) ~= "string" then
    return
  end
  local key = M.key(a)
  local before = M.agents[key]
  if a.state == "discarded" then
    M.agents[key] = nil
  else
    M.agents[key] = a
    -- A background agent's end the server tells itself (showMessage).
    if (not before or before.state ~= a.state) and not M.background(a) then
      local msg, level = transition_message(a)
      if msg then
        -- In one line on the command line (whole in :messages): a longer
        -- one would stop Neovim at "Press ENTER", before a waiting
        -- agent's question, which is put to the user right after.
        require("gemini.say").tell(msg, level)
      end
    end
  end
  M.render()
end

--- Takes gemini/agents' list: it replaces what the view held.
function M.take_list(list)
  M.agents = {}
  for _, a in ipairs(type(list) == "table" and list or {}) do
    if type(a) == "table" then
      M.agents[M.key(a)] = a
    end
  end
  M.render()
end

-- Calls fn(client) with the server ready; nil when it cannot start.
local function with_client(fn)
  local client = gemini().client()
  if client then
    client_of.when_ready(client, fn)
  end
end

local function request(method, params, on_result)
  with_client(function(client)
    client_of.client_call(client, "request", method, params, on_result)
  end)
end

-- JSON-RPC's MethodNotFound: a server older than agents.
local method_not_found = -32601

local function failed(what, err, feature)
  local why = err.code == method_not_found and ("this gemini-ls is too old for " .. (feature or "agents") .. "; update it (:GeminiInstall)")
    or (err.message or vim.inspect(err))
  require("gemini.say").tell("Gemini: could not " .. what .. ": " .. why, vim.log.levels.ERROR)
end

--- Asks the server for the list again (R); on_done after it came.
function M.refresh(on_done)
  request("gemini/agents", vim.empty_dict(), function(err, result)
    if err then
      failed("list the agents", err)
    else
      M.take_list(result and result.agents)
    end
    if on_done then
      on_done(err)
    end
  end)
end

--- The agent on the cursor's line, nil on the header (told why).
function M.at_cursor()
  local key = row_keys[vim.api.nvim_win_get_cursor(0)[1]]
  local a = key and M.agents[key]
  if not a then
    require("gemini.say").tell("Gemini: no agent on this line")
  end
  return a
end

--- Starts an agent on task in a worktree of its own, named name (a
--- generated name when nil): gemini/prompt with worktree, not waited on;
--- its gemini/agent notification brings its row.
function M.start(task, name)
  if not task or vim.trim(task) == "" then
    return
  end
  local worktree = (name and vim.trim(name) ~= "") and vim.trim(name) or true
  request("gemini/prompt", { prompt = task, worktree = worktree }, function(err)
    if err then
      failed("start the agent", err)
    end
  end)
end

--- Asks for a task, then a name, and starts the agent (n).
function M.new()
  vim.ui.input({ prompt = "Agent's task: " }, function(task)
    if not task or vim.trim(task) == "" then
      return
    end
    vim.ui.input({ prompt = "Its worktree's name (empty: generated): " }, function(name)
      if name == nil then
        return -- Esc: nothing started
      end
      M.start(task, name)
    end)
  end)
end

--- Starts a background agent on task, on GitHub Actions (:GeminiBackground,
--- b): gemini/delegate, whose answer (the agent, queued) brings its row.
--- The server finds the GitHub token itself (gh auth token, GITHUB_TOKEN);
--- its refusal (no token, no workflow, …) is told as it says it.
--- on_done(err, agent) after.
function M.delegate(task, on_done)
  if not task or vim.trim(task) == "" then
    return
  end
  request("gemini/delegate", { prompt = vim.trim(task) }, function(err, result)
    if err then
      failed("start the background agent", err, "background agents")
    elseif type(result) == "table" then
      M.take(result)
      local bg = M.background(result) or {}
      local run = type(bg.runUrl) == "string" and bg.runUrl ~= "" and (": " .. bg.runUrl) or ""
      -- One line (say.tell): a longer one would stop at "Press ENTER".
      require("gemini.say").tell("Gemini: background agent “" .. M.name(result) .. "” " .. M.state_text(result) .. " on GitHub" .. run .. "; :GeminiAgents follows it", vim.log.levels.INFO)
    end
    if on_done then
      on_done(err, result)
    end
  end)
end

--- Asks for a task (vim.ui.input) and starts a background agent on it.
function M.new_background()
  vim.ui.input({ prompt = "Task for an agent on GitHub: " }, function(task)
    M.delegate(task)
  end)
end

-- Tells the user that action is a background agent's only, and returns
-- nil, when a is a local agent; else a's background object.
local function background_only(a, action)
  local bg = M.background(a)
  if not bg then
    require("gemini.say").tell("Gemini: agent “" .. M.name(a) .. "” runs here, not on GitHub: " .. action .. " is for background agents")
  end
  return bg
end

--- Sends a follow-up to a background agent (f): asks for it, then
--- gemini/followUpAgent; the agent goes back to queued (its answer).
function M.follow_up(a, on_done)
  if not background_only(a, "a follow-up") then
    return
  end
  vim.ui.input({ prompt = "Follow-up for “" .. M.name(a) .. "” on GitHub: " }, function(text)
    if not text or vim.trim(text) == "" then
      return
    end
    request("gemini/followUpAgent", { id = background_id(a), prompt = vim.trim(text) }, function(err, result)
      if err then
        failed("follow up the agent “" .. M.name(a) .. "”", err, "background agents")
      elseif type(result) == "table" then
        M.take(result)
        require("gemini.say").tell("Gemini: follow-up sent to “" .. M.name(a) .. "”; it runs again on GitHub")
      end
      if on_done then
        on_done(err, result)
      end
    end)
  end)
end

-- Opens url in the browser, or says it where none opens.
local function open_url(url)
  if not gemini().open_external(url) then
    require("gemini.say").tell("Gemini: open this in your browser: " .. url)
  end
end

--- Opens a background agent's run on GitHub (o).
function M.open_run(a)
  local bg = background_only(a, "its run")
  if not bg then
    return
  end
  if type(bg.runUrl) ~= "string" or bg.runUrl == "" then
    require("gemini.say").tell("Gemini: agent “" .. M.name(a) .. "” has no run yet")
    return
  end
  open_url(bg.runUrl)
end

--- Opens a background agent's pull request (p).
function M.open_pull_request(a)
  local bg = background_only(a, "its pull request")
  if not bg then
    return
  end
  local pr = pull_request(bg)
  if not pr then
    require("gemini.say").tell("Gemini: agent “" .. M.name(a) .. "” has no pull request yet (" .. M.state_text(a) .. "); o opens its run")
    return
  end
  open_url(pr.url)
end

--- Opens the agent's chat (<CR>): its session resumed in the chat, where
--- prompts go to it from now on.
function M.open_chat(a)
  -- A background agent's chat is here once its run's session came back
  -- with its work (sessionId); until then it is on GitHub.
  if M.background(a) and (not a.sessionId or a.sessionId == "") then
    require("gemini.say").tell("Gemini: agent “" .. M.name(a) .. "” runs on GitHub, with no chat here yet: o opens its run, p its pull request, f sends it a follow-up")
    return
  end
  if not a.sessionId or a.sessionId == "" then
    require("gemini.say").tell("Gemini: the worktree “" .. M.name(a) .. "” has no saved session to open; m merges it, d discards it")
    return
  end
  gemini().resume(a.sessionId, a.title)
end

--- Stops the agent's turn (s).
function M.stop(a)
  if M.background(a) then
    require("gemini.say").tell("Gemini: agent “" .. M.name(a) .. "” runs on GitHub: cancel its run there (o opens it)")
    return
  end
  if a.state ~= "working" and a.state ~= "waiting" then
    require("gemini.say").tell("Gemini: agent “" .. M.name(a) .. "” is not running (" .. M.state_text(a) .. ")")
    return
  end
  with_client(function(client)
    client_of.client_call(client, "notify", "gemini/cancel", { sessionId = a.sessionId })
  end)
end

--- The lines showing a land's result: its message, the files it carried,
--- those left out (unchecked in the review, a stale document) and each
--- conflict with both sides.
function M.land_lines(a, result)
  local lines = {}
  vim.list_extend(lines, vim.split(result.message or "", "\n", { plain = true }))
  if #(result.files or {}) > 0 then
    vim.list_extend(lines, { "", "## Files" })
    for _, f in ipairs(result.files) do
      table.insert(lines, string.format("- %s (%s, +%d −%d)", f.path, f.status or "modified", tonumber(f.added) or 0, tonumber(f.removed) or 0))
    end
  end
  if #(result.left or {}) > 0 then
    vim.list_extend(lines, { "", "## Left out" })
    for _, f in ipairs(result.left) do
      table.insert(lines, string.format("- %s: %s", f.path, f.reason or "not landed"))
    end
  end
  for _, c in ipairs(result.conflicts or {}) do
    vim.list_extend(lines, { "", string.format("## Conflict: %s:%d", vim.fn.fnamemodify(c.path or "", ":~:."), tonumber(c.line) or 0), "", "### Yours (left as it is)", "", "```" })
    vim.list_extend(lines, vim.split((c.yours or ""):gsub("\n$", ""), "\n", { plain = true }))
    vim.list_extend(lines, { "```", "", "### Theirs (agent " .. M.name(a) .. ", left out)", "", "```" })
    vim.list_extend(lines, vim.split((c.theirs or ""):gsub("\n$", ""), "\n", { plain = true }))
    table.insert(lines, "```")
  end
  return lines
end

--- Shows lines in a scratch buffer named name, in a window below; q
--- closes it.
function M.scratch(name, lines)
  local buf = vim.fn.bufnr(name)
  if buf == -1 or not vim.api.nvim_buf_is_valid(buf) then
    buf = vim.api.nvim_create_buf(false, true)
    pcall(vim.api.nvim_buf_set_name, buf, name)
    vim.bo[buf].bufhidden = "wipe"
    vim.bo[buf].filetype = "markdown"
    vim.api.nvim_buf_set_keymap(buf, "n", "q", "<cmd>close<CR>", { nowait = true, silent = true, desc = "Gemini: close" })
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  if vim.fn.bufwinid(buf) == -1 then
    vim.cmd("botright split")
    vim.api.nvim_win_set_buf(0, buf)
  end
  return buf
end

-- Who a request about agent a names: a background agent's id, its
-- session, or its worktree when it has no saved session.
local function target(a)
  local id = background_id(a)
  if id then
    return { id = id }
  end
  if type(a.sessionId) == "string" and a.sessionId ~= "" then
    return { sessionId = a.sessionId }
  end
  return { worktree = M.name(a) }
end

--- Lands the agent's work (r: how "review", through the usual review of
--- the edit; m: "merge", with git); the result, conflicts with both
--- sides, is shown in a scratch buffer. on_done(err, result) after.
function M.land(a, how, on_done)
  if M.background(a) and not M.fetched(a) then
    require("gemini.say").tell("Gemini: agent “" .. M.name(a) .. "” has no work here yet (" .. M.state_text(a) .. "): its branch is fetched once its run is done")
    return
  end
  -- A background agent lands by its worktree, as a local one without a
  -- session.
  local params = M.background(a) and { worktree = M.name(a) } or target(a)
  params.how = how
  request("gemini/landAgent", params, function(err, result)
    if err then
      failed((how == "merge" and "merge" or "land") .. " the agent “" .. M.name(a) .. "”", err)
    else
      M.scratch("gemini://agent-land/" .. M.name(a), M.land_lines(a, result or {}))
    end
    if on_done then
      on_done(err, result)
    end
  end)
end

--- Discards the agent (d): the server asks the user first.
function M.discard(a, on_done)
  request("gemini/discardAgent", target(a), function(err, result)
    if err then
      failed("discard the agent “" .. M.name(a) .. "”", err)
    elseif result and result.discarded then
      M.agents[M.key(a)] = nil
      M.render()
      require("gemini.say").tell("Gemini: discarded the agent “" .. M.name(a) .. "”")
    else
      require("gemini.say").tell("Gemini: kept the agent “" .. M.name(a) .. "”")
    end
    if on_done then
      on_done(err, result)
    end
  end)
end

local actions = {
  ["<CR>"] = { "open its chat", M.open_chat },
  s = { "stop it", M.stop },
  r = { "review and land its work", function(a) M.land(a, "review") end },
  m = { "merge its branch with git", function(a) M.land(a, "merge") end },
  d = { "discard it", M.discard },
  f = { "send a follow-up to it on GitHub", M.follow_up },
  o = { "open its run on GitHub", M.open_run },
  p = { "open its pull request", M.open_pull_request },
}

--- The view's buffer, made once: scratch, filetype gemini-agents.
function M.ensure()
  if M.buf and vim.api.nvim_buf_is_valid(M.buf) then
    return M.buf
  end
  M.buf = vim.api.nvim_create_buf(false, true)
  pcall(vim.api.nvim_buf_set_name, M.buf, "gemini://agents")
  vim.bo[M.buf].bufhidden = "hide"
  vim.bo[M.buf].filetype = "gemini-agents"
  local function map(key, desc, fn)
    vim.api.nvim_buf_set_keymap(M.buf, "n", key, "", { nowait = true, silent = true, desc = "Gemini: " .. desc, callback = fn })
  end
  for key, act in pairs(actions) do
    map(key, act[1] .. " (the agent on this line)", function()
      local a = M.at_cursor()
      if a then
        act[2](a)
      end
    end)
  end
  map("n", "start a new agent", M.new)
  map("b", "start a new agent on GitHub", M.new_background)
  map("R", "refresh the agents", function() M.refresh() end)
  map("q", "close the agents", function() pcall(vim.api.nvim_win_close, 0, false) end)
  -- Shown again (:buffer, a window's jump list): drawn afresh, its clock
  -- running.
  vim.api.nvim_create_autocmd("BufWinEnter", { buffer = M.buf, callback = function() M.render() end })
  return M.buf
end

--- :GeminiAgents: shows the view in a window at the top (its window when
--- one shows it already) and asks the server for the list afresh.
function M.open()
  local buf = M.ensure()
  local win = vim.fn.bufwinid(buf)
  if win ~= -1 then
    vim.api.nvim_set_current_win(win)
  else
    vim.cmd("topleft 12split")
    vim.api.nvim_win_set_buf(0, buf)
    vim.wo.wrap, vim.wo.number, vim.wo.relativenumber = false, false, false
  end
  M.render()
  M.refresh()
end

return M
