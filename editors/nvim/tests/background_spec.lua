-- script: none.json
-- Background agents (issue 98) in the agents view and :GeminiBackground:
-- a background agent's row says GitHub and its state, the line under it
-- links its run and pull request; its row stays one row from queued to
-- done as gemini/agent notifications change it (keyed by its background
-- id); :GeminiBackground sends gemini/delegate with the task (asked for
-- with vim.ui.input when none is given) and shows the server's refusal
-- as it says it; in the view f sends a follow-up (gemini/followUpAgent),
-- o and p open the run and the pull request, and once its work is fetched
-- r, m and d land, merge and discard it as a local agent's. The server's
-- requests are answered here (the real server's are background.sh's).
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })
local agents = require("gemini.agents")

local client = gemini.client()
local function notify(method, params)
  client.handlers[method](nil, params, { client_id = client.id })
end

-- A background agent as the server sends it, with fields over the
-- defaults: queued, its run known, no pull request nor worktree yet.
local function bg_agent(fields)
  return vim.tbl_extend("force", {
    kind = "background",
    sessionId = "",
    title = "Add a --verbose flag",
    state = "queued",
    startedAt = "2026-11-29T09:00:00Z",
    background = {
      id = "bg-add-a-verbose-flag-3f9a", repository = "ada/proj", runId = 1001,
      runUrl = "https://github.com/ada/proj/actions/runs/1001",
      branch = "gemini/add-a-verbose-flag-3f9a",
    },
  }, fields)
end

-- The same agent done: its pull request, worktree and files there.
local function bg_done(fields)
  local a = bg_agent({
    state = "done",
    endedAt = "2026-11-29T09:04:10Z",
    worktree = { name = "add-a-verbose-flag-3f9a", path = "/ws/.gemini/worktrees/add-a-verbose-flag-3f9a", branch = "gemini/add-a-verbose-flag-3f9a", base = "5f1c0de" },
    files = { { path = "main.go", status = "modified", added = 12, removed = 2 } },
  })
  a.background.pullRequest = { number = 7, url = "https://github.com/ada/proj/pull/7" }
  return vim.tbl_extend("force", a, fields or {})
end

local t0 = require("gemini.sessions").epoch("2026-11-29T09:00:00Z")

local function notes()
  local got = {}
  vim.notify = function(msg, level)
    table.insert(got, { msg = msg, level = level })
  end
  return got
end

-- Answers the requests named in answers (method -> function(params)
-- returning err, result) here, recording each (method, params); others
-- go to the server. Returns the record and a function that undoes it.
-- The records answered (their handler ran).
local answered = setmetatable({}, { __mode = "k" })

-- Whether n requests of sent were answered.
local function answered_n(sent, n)
  return #sent >= n and answered[sent[n]] == true
end

local function answer(answers)
  local sent = {}
  local request = client.request
  client.request = function(...)
    local args = { ... }
    local at = type(args[1]) == "string" and 1 or 2
    local method, params, handler = args[at], args[at + 1], args[at + 2]
    local fn = answers[method]
    if fn then
      local record = { method = method, params = params }
      table.insert(sent, record)
      local err, result = fn(params)
      vim.schedule(function()
        handler(err, result, {})
        answered[record] = true
      end)
      return true, 1
    end
    return request(...)
  end
  return sent, function() client.request = request end
end

-- The view shown with only agent a in it, the cursor on its row.
local function view_of(a)
  local sent, undo = answer({ ["gemini/agents"] = function() return nil, { agents = { a } } end })
  agents.open()
  wait_for("the list answered", function() return answered_n(sent, 1) end)
  undo()
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  return sent
end

local function close_view()
  pcall(vim.api.nvim_win_close, vim.fn.bufwinid(agents.buf), true)
end

describe("background agents", function()
  it("show a row saying GitHub with the state, and under it the run, the pull request and the keys", function()
    agents.take_list({
      bg_agent({ state = "working" }),
      bg_done({ title = "Port the tests", startedAt = "2026-11-29T08:00:00Z", endedAt = "2026-11-29T08:02:05Z", background = {
        id = "bg-900", runUrl = "https://github.com/ada/proj/actions/runs/900",
        pullRequest = { number = 5, url = "https://github.com/ada/proj/pull/5" },
      } }),
      bg_agent({ title = "Fix the build", state = "failed", error = "the run failed: exit status 1", startedAt = "2026-11-29T07:00:00Z",
        endedAt = "2026-11-29T07:00:30Z", background = { id = "bg-800", runUrl = "https://github.com/ada/proj/actions/runs/800" } }),
    })
    local lines, keys = agents.lines(t0 + 65)
    eq({
      "Gemini agents · " .. agents.keys,
      "● Add a --verbose flag  working           1m 05s     GitHub",
      "    ↳ on GitHub: o run https://github.com/ada/proj/actions/runs/1001 · f follow up",
      "✓ Port the tests        done              2m 05s     GitHub  1 file +12 −2",
      "    ↳ on GitHub: o run https://github.com/ada/proj/actions/runs/900 · p PR #5 https://github.com/ada/proj/pull/5 · f follow up",
      "✗ Fix the build         failed               30s     GitHub",
      "    ↳ on GitHub: o run https://github.com/ada/proj/actions/runs/800 · f follow up",
      "    ↳ the run failed: exit status 1",
    }, lines, "lines")
    eq({
      [2] = "background:bg-add-a-verbose-flag-3f9a", [3] = "background:bg-add-a-verbose-flag-3f9a", [4] = "background:bg-900", [5] = "background:bg-900",
      [6] = "background:bg-800", [7] = "background:bg-800", [8] = "background:bg-800",
    }, keys, "the agent of each line")
  end)

  it("keep one row from queued to done, told by the server not the view, gone once discarded", function()
    local told = notes()
    agents.take_list({})
    -- Queued: GitHub has made no run yet.
    local queued = bg_agent({})
    queued.background.runId, queued.background.runUrl = nil, nil
    notify("gemini/agent", queued)
    eq({ "◌ Add a --verbose flag  queued                0s     GitHub", "    ↳ on GitHub: no run yet · f follow up" }, { agents.lines(t0)[2], agents.lines(t0)[3] }, "the queued row")
    notify("gemini/agent", bg_agent({ state = "working" }))
    notify("gemini/agent", bg_done())
    local lines = agents.lines(t0)
    eq(3, #lines, "lines: the header, one row and its links")
    eq("✓ Add a --verbose flag  done              4m 10s     GitHub  1 file +12 −2", lines[2], "the done row")
    -- The server says it's done (window/showMessage): not told twice.
    eq({}, told, "notifications")
    notify("gemini/agent", bg_done({ state = "discarded" }))
    eq({}, agents.agents, "the agents after the discard")
  end)

  it(":GeminiBackground sends gemini/delegate with the task and shows the queued agent's row", function()
    local told = notes()
    agents.take_list({})
    local sent, undo = answer({ ["gemini/delegate"] = function() return nil, bg_agent({}) end })
    vim.cmd("GeminiBackground Add a --verbose flag")
    wait_for("gemini/delegate", function() return agents.agents["background:bg-add-a-verbose-flag-3f9a"] ~= nil end)
    undo()
    eq({ { method = "gemini/delegate", params = { prompt = "Add a --verbose flag" } } }, sent, "requests")
    eq({ { msg = "Gemini: background agent “Add a --verbose flag” queued on GitHub: https://github.com/ada/proj/actions/runs/1001; :GeminiAgents follows it", level = vim.log.levels.INFO } }, told, "notifications")
  end)

  it(":GeminiBackground with no task asks for it, and sends nothing when none is given", function()
    notes()
    local asked = {}
    local replies = { "Document the flag", "" }
    vim.ui.input = function(opts, cb)
      table.insert(asked, opts.prompt)
      cb(table.remove(replies, 1))
    end
    local sent, undo = answer({ ["gemini/delegate"] = function() return nil, bg_agent({ title = "Document the flag" }) end })
    vim.cmd("GeminiBackground")
    wait_for("gemini/delegate", function() return #sent == 1 end)
    vim.cmd("GeminiBackground")
    vim.wait(200)
    undo()
    eq({ "Task for an agent on GitHub: ", "Task for an agent on GitHub: " }, asked, "what the user was asked")
    eq({ { method = "gemini/delegate", params = { prompt = "Document the flag" } } }, sent, "requests")
  end)

  it("shows the server's refusal of gemini/delegate as an error, in its words", function()
    local told = notes()
    local _, undo
    _, undo = answer({ ["gemini/delegate"] = function()
      return { code = -32803, message = "no GitHub token: sign in with `gh auth login`, or set GITHUB_TOKEN" }, nil
    end })
    local done = false
    agents.delegate("Add a --verbose flag", function() done = true end)
    wait_for("the answer", function() return done end)
    undo()
    eq({ { msg = "Gemini: could not start the background agent: no GitHub token: sign in with `gh auth login`, or set GITHUB_TOKEN", level = vim.log.levels.ERROR } }, told, "notifications")
    -- A server from before background agents does not know the method.
    told = notes()
    _, undo = answer({ ["gemini/delegate"] = function() return { code = -32601, message = "method not found: gemini/delegate" }, nil end })
    done = false
    agents.delegate("Add a --verbose flag", function() done = true end)
    wait_for("the answer", function() return done end)
    undo()
    eq({ { msg = "Gemini: could not start the background agent: this gemini-ls is too old for background agents; update it (:GeminiInstall)", level = vim.log.levels.ERROR } }, told, "notifications from an older server")
  end)

  it("shows the real server's refusal outside a git repository as an error", function()
    local told = notes()
    local done = false
    agents.delegate("Add a --verbose flag", function() done = true end)
    wait_for("the server's answer", function() return done end)
    eq(1, #told, "notifications: " .. vim.inspect(told))
    eq(vim.log.levels.ERROR, told[1].level, "its level")
    local prefix = "Gemini: could not start the background agent: an agent on GitHub works on a git repository"
    eq(prefix, told[1].msg:sub(1, #prefix), "the message")
  end)

  it("f in the view sends a follow-up to the agent on the cursor's row, which goes back to queued", function()
    notes()
    view_of(bg_done())
    vim.ui.input = function(opts, cb)
      eq("Follow-up for “add-a-verbose-flag-3f9a” on GitHub: ", opts.prompt, "the question")
      cb("Also document the flag in README.md")
    end
    local sent, undo = answer({ ["gemini/followUpAgent"] = function() return nil, bg_done({ state = "queued" }) end })
    vim.cmd("normal f")
    wait_for("gemini/followUpAgent", function() return agents.agents["background:bg-add-a-verbose-flag-3f9a"].state == "queued" end)
    undo()
    eq({ { method = "gemini/followUpAgent", params = { id = "bg-add-a-verbose-flag-3f9a", prompt = "Also document the flag in README.md" } } }, sent, "requests")
    assert(vim.api.nvim_buf_get_lines(agents.buf, 1, 2, false)[1]:find("queued", 1, true), "the row after the follow-up")
    close_view()
  end)

  it("o and p in the view open the run and the pull request; p says so when there is none yet", function()
    local told = notes()
    local opened = {}
    local open_external = gemini.open_external
    gemini.open_external = function(url)
      table.insert(opened, url)
      return true
    end
    view_of(bg_done())
    vim.cmd("normal o")
    vim.cmd("normal p")
    close_view()
    view_of(bg_agent({ state = "working" }))
    vim.cmd("normal p")
    close_view()
    gemini.open_external = open_external
    eq({ "https://github.com/ada/proj/actions/runs/1001", "https://github.com/ada/proj/pull/7" }, opened, "what was opened")
    eq({ { msg = "Gemini: agent “Add a --verbose flag” has no pull request yet (working); o opens its run" } }, told, "notifications")
  end)

  it("r, m and d in the view land, merge and discard a fetched agent by its worktree and id; r waits for its work", function()
    local told = notes()
    local land_results = { applied = true, message = "Landed 1 file from the agent \"add-a-verbose-flag-3f9a\"." }
    local sent, undo = answer({
      ["gemini/landAgent"] = function() return nil, land_results end,
      ["gemini/discardAgent"] = function() return nil, { discarded = true } end,
    })
    view_of(bg_agent({ state = "working" }))
    vim.cmd("normal r")
    close_view()
    view_of(bg_done())
    vim.cmd("normal r")
    wait_for("the land", function() return answered_n(sent, 1) end)
    close_view()
    view_of(bg_done())
    vim.cmd("normal m")
    wait_for("the merge", function() return answered_n(sent, 2) end)
    close_view()
    view_of(bg_done())
    vim.cmd("normal d")
    wait_for("the discard", function() return answered_n(sent, 3) end)
    undo()
    close_view()
    eq({
      { method = "gemini/landAgent", params = { worktree = "add-a-verbose-flag-3f9a", how = "review" } },
      { method = "gemini/landAgent", params = { worktree = "add-a-verbose-flag-3f9a", how = "merge" } },
      { method = "gemini/discardAgent", params = { id = "bg-add-a-verbose-flag-3f9a" } },
    }, sent, "requests")
    eq("Gemini: agent “Add a --verbose flag” has no work here yet (working): its branch is fetched once its run is done", told[1].msg, "r before the work is fetched")
    eq(nil, agents.agents["background:bg-add-a-verbose-flag-3f9a"], "the discarded agent")
  end)

  it("<CR> opens a background agent's chat once its run's session came back", function()
    local gemini = require("gemini")
    local resumed
    local resume = gemini.resume
    gemini.resume = function(id, title) resumed = { id, title } end
    view_of(bg_agent({ state = "done", sessionId = "s-from-the-run", worktree = { name = "add-a-verbose-flag-3f9a", path = "/p/.gemini/worktrees/add-a-verbose-flag-3f9a" } }))
    vim.cmd("execute \"normal \\<CR>\"")
    close_view()
    gemini.resume = resume
    eq({ "s-from-the-run", "Add a --verbose flag" }, resumed, "the session resumed")
  end)

  it("s, <CR> and a local agent's f say what they cannot do, sending nothing", function()
    local told = notes()
    local sent, undo = answer({ ["gemini/followUpAgent"] = function() return nil, {} end })
    local cancels = 0
    local notify_server = client.notify
    client.notify = function(...)
      cancels = cancels + 1
      return notify_server(...)
    end
    view_of(bg_agent({ state = "working" }))
    vim.cmd("normal s")
    vim.cmd("execute \"normal \\<CR>\"")
    close_view()
    view_of({ sessionId = "s-login", title = "Fix the login form", state = "done", worktree = { name = "fix-login" }, startedAt = "2026-11-29T09:00:00Z" })
    vim.cmd("normal f")
    close_view()
    vim.wait(100)
    client.notify = notify_server
    undo()
    eq(0, cancels, "notifications sent to the server")
    eq({}, sent, "requests")
    eq({
      "Gemini: agent “Add a --verbose flag” runs on GitHub: cancel its run there (o opens it)",
      "Gemini: agent “Add a --verbose flag” runs on GitHub, with no chat here yet: o opens its run, p its pull request, f sends it a follow-up",
      "Gemini: agent “fix-login” runs here, not on GitHub: a follow-up is for background agents",
    }, vim.tbl_map(function(n) return n.msg end, told), "notifications")
  end)
end)
