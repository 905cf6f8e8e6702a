-- script: none.json
-- The agents view (:GeminiAgents, protocol §5h): its rows as the server's
-- gemini/agent notifications leave them (title, state, elapsed, tokens,
-- files; a discarded agent gone), the user told when an agent waits,
-- finishes or fails, an agent's updates kept out of a chat that shows
-- another session, its questions naming it, and a land's result shown
-- with both sides of each conflict. Notifications go through the client's
-- handlers, as the server's come.
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })
local agents = require("gemini.agents")
local confirm = require("gemini.confirm")

local client = gemini.client()
local function notify(method, params)
  client.handlers[method](nil, params, { client_id = client.id })
end

-- An Agent as the server sends it, with fields over the defaults.
local function agent(fields)
  return vim.tbl_extend("force", {
    sessionId = "s-login",
    title = "Fix the login form",
    state = "working",
    worktree = { name = "fix-login", path = "/ws/.gemini/worktrees/fix-login", branch = "worktree-fix-login", base = "abc123" },
    startedAt = "2026-03-01T10:00:00Z",
    tokens = 0,
    files = {},
  }, fields)
end

local t0 = require("gemini.sessions").epoch("2026-03-01T10:00:00Z")

local function notes()
  local got = {}
  vim.notify = function(msg, level)
    table.insert(got, { msg = msg, level = level })
  end
  return got
end

describe("agents view", function()
  it("lists each agent with its state, elapsed time, tokens and files, newest first", function()
    agents.take_list({
      agent({
        sessionId = "s-docs", title = "Write the docs", state = "done", startedAt = "2026-03-01T09:00:00Z",
        endedAt = "2026-03-01T09:03:05Z", tokens = 12345, worktree = { name = "docs" },
        files = { { path = "README.md", added = 10, removed = 2, status = "modified" }, { path = "new.md", added = 4, removed = 0, status = "added" } },
      }),
      agent({}),
    })
    local lines = agents.lines(t0 + 65)
    eq({
      "Gemini agents · " .. agents.keys,
      "● Fix the login form  working           1m 05s             no changes",
      "✓ Write the docs      done              3m 05s  12.3k tok  2 files +14 −2",
    }, lines, "lines")
  end)

  it("keeps rows live from gemini/agent: a new agent on top, a change in place, a discarded one gone", function()
    local told = notes()
    agents.take_list({ agent({}) })
    notify("gemini/agent", agent({ sessionId = "s-two", title = "Port the tests", startedAt = "2026-03-01T10:01:00Z", worktree = { name = "port" } }))
    notify("gemini/agent", agent({ state = "waiting", question = "Allow `rm -rf build`?\nIn the worktree.", tokens = 900 }))
    local lines, keys = agents.lines(t0 + 125)
    eq({
      "Gemini agents · " .. agents.keys,
      "● Port the tests      working           1m 05s             no changes",
      "? Fix the login form  waiting for you   2m 05s    900 tok  no changes",
      "    ↳ Allow `rm -rf build`?",
    }, lines, "lines")
    eq({ [2] = "s-two", [3] = "s-login", [4] = "s-login" }, keys, "the agent of each line")
    eq({ { msg = "Gemini: agent “fix-login” is waiting for you: Allow `rm -rf build`?", level = vim.log.levels.WARN } }, told, "notifications")
    notify("gemini/agent", agent({ sessionId = "s-two", state = "discarded", worktree = { name = "port" } }))
    eq(nil, agents.agents["s-two"], "the discarded agent")
    lines = agents.lines(t0 + 125)
    eq({ "? Fix the login form  waiting for you   2m 05s    900 tok  no changes", "    ↳ Allow `rm -rf build`?" }, { lines[2], lines[3] }, "the rows after the discard")
    eq(3, #lines, "lines after the discard")
  end)

  it("tells the user when an agent is done or failed, once per change", function()
    local told = notes()
    agents.take_list({ agent({}) })
    local done = agent({ state = "done", endedAt = "2026-03-01T10:02:00Z", files = { { path = "a.go", added = 3, removed = 1, status = "modified" } } })
    notify("gemini/agent", done)
    notify("gemini/agent", done) -- a land after it: the same state, nothing told again
    notify("gemini/agent", agent({ sessionId = "s-x", worktree = { name = "x" } }))
    notify("gemini/agent", agent({ sessionId = "s-x", worktree = { name = "x" }, state = "failed", error = "quota exhausted" }))
    eq({
      { msg = "Gemini: agent “fix-login” is done (1 file +3 −1); :GeminiAgents to review it", level = vim.log.levels.INFO },
      { msg = "Gemini: agent “x” failed: quota exhausted", level = vim.log.levels.ERROR },
    }, told, "notifications")
    -- Started at the same time: by key, s-login's row first.
    eq("    ↳ quota exhausted", agents.lines(t0)[4], "the failed agent's error under its row")
  end)

  it("shows the view in a gemini-agents buffer whose keys act on the agent under the cursor", function()
    notes()
    agents.take_list({ agent({ state = "done" }) })
    local cancelled
    local notify_server = client.notify
    client.notify = function(...)
      local args = { ... }
      local method = type(args[1]) == "string" and args[1] or args[2]
      local params = type(args[1]) == "string" and args[2] or args[3]
      if method == "gemini/cancel" then
        cancelled = params
        return true
      end
      return notify_server(...)
    end
    agents.open()
    eq("gemini-agents", vim.bo.filetype, "filetype")
    eq("nofile", vim.bo.buftype, "buftype")
    wait_for("the row", function()
      return #vim.api.nvim_buf_get_lines(0, 0, -1, false) >= 2
    end)
    -- The server has no agents: the list it answers replaces the view's.
    wait_for("the server's (empty) list", function()
      return vim.api.nvim_buf_get_lines(0, 1, 2, false)[1] == "  No agents yet: n starts one."
    end)
    notify("gemini/agent", agent({}))
    vim.api.nvim_win_set_cursor(0, { 2, 0 })
    vim.cmd("normal s")
    eq({ sessionId = "s-login" }, cancelled, "gemini/cancel sent by s")
    client.notify = notify_server
    vim.cmd("normal q")
    eq(-1, vim.fn.bufwinid(agents.buf), "the view's window after q")
  end)

  it("keeps an agent's updates out of a chat that shows another session", function()
    agents.take_list({ agent({}) })
    gemini.state.session_id = "s-main"
    gemini.chat.clear()
    notify("gemini/update", { sessionId = "s-login", kind = "text", text = "agent's words" })
    notify("gemini/update", { sessionId = "s-login", kind = "mode", mode = "yolo" })
    notify("gemini/update", { sessionId = "s-main", kind = "text", text = "main words" })
    local text = table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
    eq("main words", text, "the chat")
    eq(nil, gemini.state.modes["s-login"], "the agent's mode, not taken as the chat's")
    -- Once the chat shows the agent (its chat opened), its updates show.
    gemini.state.session_id = "s-login"
    notify("gemini/update", { sessionId = "s-login", kind = "text", text = " and the agent's" })
    text = table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
    eq("main words and the agent's", text, "the chat showing the agent")
    gemini.state.session_id = nil
  end)

  it("puts an agent's questions to the user naming the agent, out of the other session's chat", function()
    agents.take_list({ agent({}) })
    gemini.state.session_id = "s-main"
    gemini.chat.clear()
    local prompts = {}
    vim.ui.select = function(items, opts, cb)
      table.insert(prompts, opts.prompt)
      cb(items[1], 1)
    end
    local answers = {}
    confirm.asks["gemini/confirm"]({ sessionId = "s-login", callId = "c1", kind = "exec", title = "Allow?", details = "rm -rf build" }, function(r)
      table.insert(answers, r)
    end)
    confirm.asks["gemini/ask"]({ sessionId = "s-login", callId = "c2", title = "Database", text = "Which one?", options = { { id = "pg", label = "Postgres" } } }, function(r)
      table.insert(answers, r)
    end)
    confirm.asks["gemini/ask"]({ sessionId = "s-login", callId = "c3", text = "Which port?", options = { { id = "80", label = "80" } } }, function(r)
      table.insert(answers, r)
    end)
    eq({ "Agent fix-login: Allow? rm -rf build", "Agent fix-login: Database: Which one?", "Agent fix-login: Which port?" }, prompts, "what the user was asked")
    eq({ { outcome = "proceed_once" }, { declined = false, chosen = { "pg" } }, { declined = false, chosen = { "80" } } }, answers, "answers")
    eq({ "" }, vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "the other session's chat")
    -- The chat's own session asks unnamed, in the chat.
    prompts = {}
    confirm.asks["gemini/confirm"]({ sessionId = "s-main", callId = "c4", kind = "exec", title = "Allow?", details = "ls" }, function() end)
    eq({ "Allow? ls" }, prompts, "the chat's own question")
    eq("> Question: Allow? ls", vim.api.nvim_buf_get_lines(gemini.chat.buf, 1, 2, false)[1], "the question in the chat")
    gemini.state.session_id = nil
  end)

  it("takes odd notifications without breaking the view: no state ignored, odd fields read as none", function()
    notes()
    agents.take_list({ agent({}) })
    notify("gemini/agent", { sessionId = "s-odd" })
    notify("gemini/agent", "not an agent")
    notify("gemini/agent", agent({ sessionId = "s-bad", title = "Odd", worktree = "w", files = "many", tokens = "lots" }))
    local lines = agents.lines(t0)
    eq(nil, agents.agents["s-odd"], "an agent with no state")
    eq(3, #lines, "lines")
    -- Started when s-login did: by key, first.
    eq("● Odd" .. string.rep(" ", 17) .. "working" .. string.rep(" ", 15) .. "0s" .. string.rep(" ", 13) .. "no changes", lines[2], "the odd agent's row")
  end)

  it("shows a land's result: the files landed, those left out, both sides of each conflict", function()
    local lines = agents.land_lines(agent({}), {
      applied = true,
      message = "Landed 1 file from fix-login; 1 conflict in login.go:12 left out (both sides below).",
      files = { { path = "form.go", added = 3, removed = 1, status = "modified" } },
      left = { { path = "notes.md", reason = "you left it out of the review" } },
      conflicts = { { path = vim.loop.cwd() .. "/login.go", line = 12, yours = "return nil\n", theirs = "return err\nlog(err)\n" } },
    })
    eq({
      "Landed 1 file from fix-login; 1 conflict in login.go:12 left out (both sides below).",
      "", "## Files", "- form.go (modified, +3 −1)",
      "", "## Left out", "- notes.md: you left it out of the review",
      "", "## Conflict: login.go:12", "", "### Yours (left as it is)", "", "```", "return nil", "```",
      "", "### Theirs (agent fix-login, left out)", "", "```", "return err", "log(err)", "```",
    }, lines, "lines")
  end)

  it("says so when the server is too old for agents", function()
    local told = notes()
    local request = client.request
    client.request = function(...)
      local args = { ... }
      local at = type(args[1]) == "string" and 1 or 2
      if args[at] == "gemini/agents" then
        args[at + 2]({ code = -32601, message = "method not found: gemini/agents" }, nil, {})
        return true, 1
      end
      return request(...)
    end
    agents.refresh()
    client.request = request
    eq({ { msg = "Gemini: could not list the agents: this gemini-ls is too old for agents; update it (:GeminiInstall)", level = vim.log.levels.ERROR } }, told, "notifications")
  end)

  it("starts an agent with :GeminiAgent new, in a worktree of a generated name", function()
    local sent
    local request = client.request
    client.request = function(...)
      local args = { ... }
      local method = type(args[1]) == "string" and args[1] or args[2]
      local params = type(args[1]) == "string" and args[2] or args[3]
      if method == "gemini/prompt" then
        sent = params
        return true, 1
      end
      return request(...)
    end
    vim.cmd("GeminiAgent new fix the login form")
    wait_for("gemini/prompt", function() return sent ~= nil end)
    client.request = request
    eq({ prompt = "fix the login form", worktree = true }, sent, "gemini/prompt's params")
  end)
end)
