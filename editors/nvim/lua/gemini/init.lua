-- gemini: a Neovim client for gemini-ls, the Gemini coding agent language server.
local review = require("gemini.review")
local chat = require("gemini.chat")
local commands = require("gemini.commands")
local question = require("gemini.ask")
local complete = require("gemini.complete")
local nextedit = require("gemini.nextedit")
local prompt_area = require("gemini.prompt")
local shown_diagnostics = require("gemini.diagnostics")
local language_feature = require("gemini.languagefeature")
local install = require("gemini.install")

local M = {}

-- This plugin's release: the gemini-ls release it comes with (the same
-- X.Y.Z as the server's, packaging/version_test.go checks).
M.version = "0.1.0"

M.config = {
  cmd = nil, -- when nil: the one :GeminiInstall installed, else gemini-ls from PATH
  release_url = install.default_release_url, -- where :GeminiInstall downloads from
  root_dir = nil, -- the working directory when nil
  auto_save = true, -- save a file after its change is accepted
  model = nil,
  approval_mode = nil, -- "default", "auto_edit" or "yolo"
  completion = {}, -- ghost text as you type: gemini.complete's config
  next_edit = {}, -- next edit suggestions: gemini.nextedit's config
  -- Where :Gemini (no text) and the chat's <CR> read a prompt: "buffer",
  -- the prompt area under the chat; "ui", a one-line vim.ui.input.
  input = "buffer",
}

-- modes: session id -> the approval mode the server last reported for it.
-- model: the model as the server reports it (gemini/models, then the
-- model and usage updates): current (as named), name (as shown), models
-- (the list to choose from) and answered (the model that last answered).
M.state = { session_id = nil, prompt_running = false, notified = {}, modes = {}, model = {} }

local function notify_once(msg, level)
  if M.state.notified[msg] then
    return
  end
  M.state.notified[msg] = true
  vim.notify("Gemini: " .. msg, level or vim.log.levels.ERROR)
end
M.notify_once = notify_once

local function cmd()
  if M.config.cmd then
    return type(M.config.cmd) == "string" and { M.config.cmd } or M.config.cmd
  end
  return { install.installed() or "gemini-ls" }
end
M.server_cmd = cmd

-- Client methods are called with ":" from 0.11 on, "." before.
local function client_call(client, name, ...)
  if vim.fn.has("nvim-0.11") == 1 then
    return client[name](client, ...)
  end
  return client[name](...)
end
M.client_call = client_call

-- Requests that wait for the user arrive as gemini/request notifications
-- (experimental.gemini.requestNotifications): Neovim answers a real
-- request as soon as its handler returns, and the user takes longer.
local waiting = {} -- gemini/request id -> true while the user decides
M.waiting = waiting

local function redraw_status()
  vim.g.gemini_status = M.status()
  -- Every window's: the chat's shows what Gemini is doing.
  pcall(vim.cmd, "redrawstatus!")
end

--- The plugin's state for a statusline: "" when idle, else
--- "Gemini: working" or "Gemini: reviewing".
function M.status()
  if next(waiting) ~= nil then
    return "Gemini: reviewing"
  elseif M.state.prompt_running then
    return "Gemini: working"
  end
  return ""
end

--- The model for a statusline: "Gemini: Auto", and where an alias was
--- routed, the model that answered: "Gemini: Auto → gemini-3.8-flash";
--- "" until the server has said.
function M.statusline()
  local m = M.state.model
  local name = m.name or m.current
  if not name or name == "" then
    return ""
  end
  if m.answered and m.answered ~= "" and m.answered ~= m.current and m.answered ~= name then
    name = name .. " → " .. m.answered
  end
  return "Gemini: " .. name
end

-- Takes what gemini/models answered.
local function adopt_models(result)
  if type(result) ~= "table" then
    return
  end
  M.state.model.current = result.current
  M.state.model.name = result.currentName
  M.state.model.models = result.models or {}
  pcall(vim.cmd, "redrawstatus!")
end

--- Asks the server for the model and the models to choose from
--- (gemini/models); on_done(err, result) after the state took them. An
--- older server without gemini/models leaves the statusline empty.
function M.refresh_models(client, on_done)
  client_call(client, "request", "gemini/models", vim.empty_dict(), function(err, result)
    if not err then
      adopt_models(result)
    end
    if on_done then
      on_done(err, result)
    end
  end)
end

--- The chat window's status: "Gemini · Auto · manual", the model and
--- the approval mode as 0.61 names them, then what Gemini is doing.
function M.chat_status()
  local parts = { "Gemini" }
  local model = M.statusline():gsub("^Gemini: ", "")
  if model ~= "" then
    table.insert(parts, model)
  end
  table.insert(parts, chat.mode_name(M.mode()))
  if next(waiting) ~= nil then
    table.insert(parts, "waiting for you")
  elseif M.state.prompt_running then
    table.insert(parts, "working…")
  end
  return table.concat(parts, " · ")
end
chat.status = M.chat_status

--- The current session's approval mode ("default", "auto_edit", "plan" or
--- "yolo"): the last the server reported, else the one configured.
function M.mode()
  return M.state.modes[M.state.session_id or ""] or M.config.approval_mode or "default"
end

local asks = {}

asks["workspace/applyEdit"] = function(params, respond, id, client)
  review.open(params, respond, {
    id = id,
    auto_save = M.config.auto_save,
    offset_encoding = client and client.offset_encoding or "utf-16",
    on_close = redraw_status,
  })
end

asks["gemini/confirm"] = function(params, respond)
  local choices = { "Allow once", "Always allow", "Reject" }
  local outcomes = { "proceed_once", "proceed_always", "cancel" }
  if params.kind == "rewind" then
    -- A file changed since the agent's change: revert it anyway or keep
    -- it; "always" means nothing there.
    choices = { "Revert anyway", "Keep my changes" }
    outcomes = { "proceed_once", "cancel" }
  elseif not params.canAllowAlways then
    -- "Always" would not hold (a command it cannot cover): not offered.
    choices = { "Allow once", "Reject" }
    outcomes = { "proceed_once", "cancel" }
  end
  local prompt = (params.title or "Allow?") .. " " .. (params.details or "")
  -- As a question: in the chat once (the call's line, or quoted when no
  -- call of the chat asks), and the answer after it.
  if chat.buf and not chat.shows_call(params.callId) then
    local lines = { "" }
    for i, line in ipairs(vim.split(prompt, "\n", { plain = true })) do
      table.insert(lines, (i == 1 and "> Question: " or "> ") .. line)
    end
    chat.lines(lines)
  end
  -- On screen before the prompt, which (inputlist) holds the screen still.
  vim.cmd("redraw")
  vim.ui.select(choices, { prompt = prompt }, function(_, idx)
    if chat.buf then
      chat.answer(params.callId, "→ " .. (choices[idx] or "(declined)"))
    end
    respond({ outcome = outcomes[idx] or "cancel" })
  end)
end

asks["gemini/ask"] = function(params, respond)
  -- The question shows once in the chat: as the line of the call that
  -- asks it, or quoted when no call of the chat asks it (the folder trust
  -- question). The answer is recorded after it.
  if chat.buf and not chat.shows_call(params.callId) then
    -- A question of several lines is quoted line by line: a buffer line
    -- holds no line break.
    local lines = { "" }
    for i, line in ipairs(vim.split(question.prompt(params), "\n", { plain = true })) do
      table.insert(lines, (i == 1 and "> Question: " or "> ") .. line)
    end
    chat.lines(lines)
  end
  -- On screen before the prompt, which (inputlist) holds the screen still.
  vim.cmd("redraw")
  -- The plan of a plan approval is open in a window already
  -- (window/showDocument), so its question need not repeat it.
  local shown = params.kind == "plan_approval" and M.state.shown_document
  question.open(params, function(result)
    if chat.buf then
      chat.answer(params.callId, question.answer_text(params, result), true)
    end
    respond(result)
  end, shown and { prompt = (params.title or "Plan Approval") .. ": approve the plan in " .. vim.fn.fnamemodify(shown, ":t") .. "?" })
end

local handlers = {}

handlers["gemini/request"] = function(_, req, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client or type(req) ~= "table" or req.id == nil then
    return
  end
  local id = req.id
  local function send(answer)
    if not waiting[id] then
      return -- withdrawn, or answered already
    end
    waiting[id] = nil
    answer.id = id
    client_call(client, "notify", "gemini/response", answer)
    redraw_status()
  end
  local ask = asks[req.method]
  waiting[id] = true
  if not ask then
    send({ error = { code = -32601, message = "gemini.nvim cannot answer " .. tostring(req.method) } })
    return
  end
  -- A failure must still answer, or the server waits for ever.
  local ok, err = pcall(ask, req.params or {}, function(result)
    send({ result = result })
  end, id, client)
  if not ok then
    send({ error = { code = -32603, message = "gemini.nvim could not show " .. req.method .. ": " .. tostring(err) } })
    notify_once("could not show " .. req.method .. ": " .. tostring(err))
  end
  redraw_status()
end

handlers["gemini/cancelRequest"] = function(_, params)
  if params and params.id ~= nil and waiting[params.id] then
    waiting[params.id] = nil
    review.cancel(params.id)
    redraw_status()
  end
end

-- The URIs of the documents a WorkspaceEdit changes.
local function edited_uris(edit)
  local uris = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.textDocument then
      table.insert(uris, change.textDocument.uri)
    end
  end
  for uri in pairs(edit.changes or {}) do
    table.insert(uris, uri)
  end
  return uris
end

-- Edits that need no review (approval mode auto_edit or yolo) are applied
-- by Neovim at once; with auto_save they are written too, so a shell
-- command run next sees them on disk.
handlers["workspace/applyEdit"] = function(err, params, ctx, config)
  local result = vim.lsp.handlers["workspace/applyEdit"](err, params, ctx, config)
  if M.config.auto_save and result and result.applied and params and params.edit then
    for _, uri in ipairs(edited_uris(params.edit)) do
      local buf = vim.uri_to_bufnr(uri)
      if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified then
        vim.api.nvim_buf_call(buf, function()
          vim.cmd("silent! write")
        end)
      end
    end
  end
  return result
end

--- Opens uri (Google's sign-in page) in the browser: vim.ui.open where
--- Neovim has it (0.10), else the system's opener. Reports whether one ran.
function M.open_external(uri)
  if vim.ui.open then
    local job = vim.ui.open(uri)
    return job ~= nil
  end
  local opener = vim.fn.has("mac") == 1 and "open" or "xdg-open"
  if vim.fn.executable(opener) == 1 then
    return vim.fn.jobstart({ opener, uri }, { detach = true }) > 0
  end
  return false
end

--- Shows a document (exit_plan_mode's plan) on Neovim 0.7, which has no
--- handler of its own: in the current window, or a split of it when
--- that holds changes, the chat's neighbour when the chat has the focus.
function M.show_document(params)
  local path = vim.uri_to_fname(params.uri)
  if chat.buf and vim.api.nvim_get_current_buf() == chat.buf then
    vim.cmd("wincmd p")
  end
  local ok = pcall(vim.cmd, (vim.bo.modified and "split " or "edit ") .. vim.fn.fnameescape(path))
  return ok
end

-- window/showDocument with external (the sign-in page), which Neovim
-- before 0.10 does not open; other documents as Neovim shows them.
handlers["window/showDocument"] = function(err, params, ctx, config)
  if params and params.external then
    local ok = M.open_external(params.uri)
    if not ok then
      vim.notify("Gemini: open this in your browser: " .. params.uri)
    end
    return { success = ok }
  end
  local default = vim.lsp.handlers["window/showDocument"]
  local result
  if default then
    result = default(err, params, ctx, config)
  else
    result = { success = M.show_document(params) }
  end
  M.state.shown_document = result and result.success and vim.uri_to_fname(params.uri) or nil
  return result
end

handlers["gemini/update"] = function(_, params)
  if params then
    if params.kind == "model" then
      -- /model set: every session's model from now on.
      M.state.model.current, M.state.model.name, M.state.model.answered = params.model, params.name, nil
      pcall(vim.cmd, "redrawstatus!")
    elseif params.kind == "usage" and params.model and not params.parentCallId then
      -- The model that answered the main agent; a subagent's may differ.
      M.state.model.answered = params.model
      pcall(vim.cmd, "redrawstatus!")
    end
    if params.kind == "mode" and params.sessionId then
      -- The first prompt's session is named by its result, after its updates.
      M.state.session_id = M.state.session_id or params.sessionId
      M.state.modes[params.sessionId] = params.mode
      pcall(vim.cmd, "redrawstatus!")
    end
    chat.update(params)
    -- A subagent's error ends the subagent, shown in its fold; the
    -- prompt goes on.
    if params.kind == "error" and not params.parentCallId then
      notify_once(params.message)
    end
  end
end

-- The diagnostics Neovim shows, for the server (gemini/diagnostics).
handlers["gemini/diagnostics"] = function(_, params, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  return shown_diagnostics.answer(params, client and client.offset_encoding or "utf-16")
end

-- What Neovim's other language servers say about code, for the model's
-- navigate_code and rename_symbol (gemini/languageFeature).
handlers["gemini/languageFeature"] = function(_, params, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local result, err = language_feature.answer(params, client and client.offset_encoding or "utf-16", ctx.client_id)
  if err then
    return nil, vim.lsp.rpc.rpc_response_error(err.code, err.message)
  end
  return result
end

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.workspace = caps.workspace or {}
  caps.workspace.applyEdit = true
  caps.workspace.workspaceEdit = caps.workspace.workspaceEdit or {}
  caps.workspace.workspaceEdit.documentChanges = true
  -- The plugin opens external documents (the sign-in page) itself.
  caps.window = caps.window or {}
  caps.window.showDocument = { support = true }
  caps.experimental = caps.experimental or {}
  caps.experimental.gemini = { editPreview = true, confirm = true, ask = true, requestNotifications = true, diagnostics = true, languageFeatures = true }
  return caps
end

local function client_config()
  local root = M.config.root_dir or vim.loop.cwd()
  return {
    name = "gemini-ls",
    cmd = cmd(),
    root_dir = root,
    -- Neovim names workspace folders by their path.
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    capabilities = capabilities(),
    handlers = handlers,
    init_options = (M.config.model or M.config.approval_mode)
        and { model = M.config.model, approvalMode = M.config.approval_mode }
      or vim.empty_dict(),
    flags = { debounce_text_changes = 0 },
  }
end

local function attachable(buf)
  return vim.api.nvim_buf_is_valid(buf) and vim.bo[buf].buftype == "" and vim.api.nvim_buf_get_name(buf) ~= ""
end

-- One gemini-ls for the plugin: Neovim 0.10's default reuse test compares
-- the root with workspace folder names, and would start a server per buffer.
local function same_server(client, config)
  return client.name == config.name and client.config.root_dir == config.root_dir
end

--- Returns the client, starting gemini-ls if needed: with vim.lsp.start
--- (0.8+) from a file buffer, which it attaches.
function M.client()
  local client = M.client_id and vim.lsp.get_client_by_id(M.client_id)
  if client and not client_call(client, "is_stopped") then
    return client
  end
  local argv = cmd()
  if vim.fn.executable(argv[1]) ~= 1 then
    -- Once, not an error per buffer opened before :GeminiInstall.
    notify_once("gemini-ls is not installed (no " .. argv[1] .. "): :GeminiInstall installs it", vim.log.levels.WARN)
    return nil
  end
  local buf = vim.api.nvim_get_current_buf()
  if vim.lsp.start and (attachable(buf) or vim.fn.has("nvim-0.11") == 1) then
    M.client_id = vim.lsp.start(client_config(), { bufnr = buf, reuse_client = same_server, attach = attachable(buf) })
  else
    M.client_id = vim.lsp.start_client(client_config())
  end
  client = M.client_id and vim.lsp.get_client_by_id(M.client_id)
  if client then
    -- The statusline shows the model from the start.
    M.when_ready(client, M.refresh_models)
  end
  return client
end

--- Attaches gemini-ls to buf, starting it if needed, and returns the client.
function M.attach(buf)
  buf = (buf == nil or buf == 0) and vim.api.nvim_get_current_buf() or buf
  local client
  vim.api.nvim_buf_call(buf, function()
    client = M.client()
  end)
  if client and attachable(buf) and not vim.lsp.buf_is_attached(buf, client.id) then
    vim.lsp.buf_attach_client(buf, client.id)
  end
  if client and attachable(buf) then
    complete.attach(buf, client)
    nextedit.attach(buf)
  end
  return client
end

-- Calls fn(client) once the server has answered initialize.
local function when_ready(client, fn, tries)
  tries = tries or 0
  if client.initialized or client.server_capabilities and next(client.server_capabilities) then
    return fn(client)
  end
  if client_call(client, "is_stopped") or tries > 200 then
    notify_once("gemini-ls did not start (" .. table.concat(cmd(), " ") .. ")")
    return
  end
  vim.defer_fn(function()
    when_ready(client, fn, tries + 1)
  end, 50)
end
M.when_ready = when_ready

local function lsp_range(buf, l1, l2)
  local last = vim.api.nvim_buf_get_lines(buf, l2 - 1, l2, false)[1] or ""
  return { start = { line = l1 - 1, character = 0 }, ["end"] = { line = l2 - 1, character = #last } }
end

local function diagnostics(buf, l1, l2)
  l1 = l1 and math.max(l1, 1)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if not l1 or (d.lnum + 1 >= l1 and d.lnum + 1 <= l2) then
      table.insert(out, {
        range = {
          start = { line = d.lnum, character = d.col },
          ["end"] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
        },
        severity = d.severity,
        message = d.message,
        source = d.source,
        code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code),
      })
    end
  end
  return out
end

--- The diagnostics of buf as LSP Diagnostic[], those on lines l1..l2
--- (1-based) when given.
M.lsp_diagnostics = diagnostics

--- Builds the prompt context for buf: the selection l1..l2 when given,
--- else the cursor, and the file's diagnostics.
function M.context(buf, l1, l2)
  buf = buf or vim.api.nvim_get_current_buf()
  if not attachable(buf) then
    return nil
  end
  local ctx = { uri = vim.uri_from_bufnr(buf) }
  if l1 then
    ctx.range = lsp_range(buf, l1, l2)
  else
    local pos = vim.api.nvim_win_get_cursor(0)
    ctx.range = { start = { line = pos[1] - 1, character = pos[2] }, ["end"] = { line = pos[1] - 1, character = pos[2] } }
  end
  local d = diagnostics(buf, l1, l2)
  if #d > 0 then
    ctx.diagnostics = d
  end
  return ctx
end

--- Sends a prompt; the answer streams into the chat buffer.
function M.prompt(text, context, on_done)
  if not text or text:match("^%s*$") then
    return
  end
  local client = M.attach(vim.api.nvim_get_current_buf())
  if not client then
    notify_once("could not start gemini-ls (" .. table.concat(cmd(), " ") .. "): :GeminiInstall installs it")
    return
  end
  prompt_area.remember(text)
  chat.show()
  local lines = { "", "## Prompt", "" }
  vim.list_extend(lines, vim.split(text, "\n", { plain = true }))
  vim.list_extend(lines, { "", "## Gemini" })
  chat.lines(lines)
  M.state.prompt_running = true
  M.state.shown_document = nil
  redraw_status()
  local params = { prompt = text, sessionId = M.state.session_id, context = context }
  local bufnr = vim.api.nvim_get_current_buf()
  when_ready(client, function()
  client_call(client, "request", "gemini/prompt", params, function(err, result)
    M.state.prompt_running = false
    redraw_status()
    if err then
      chat.lines({ "", "Error: " .. (err.message or vim.inspect(err)) })
      notify_once(err.message or vim.inspect(err))
    elseif result then
      M.state.session_id = result.sessionId
      if result.stopReason == "error" and result.error then
        notify_once(result.error)
      end
      local note = chat.stop_note(result.stopReason)
      if note then
        chat.lines({ "", note })
      end
    end
    if on_done then
      on_done(err, result)
    end
  end, bufnr)
  end)
end

function M.cancel()
  local client = M.client_id and vim.lsp.get_client_by_id(M.client_id)
  if client and M.state.session_id then
    client_call(client, "notify", "gemini/cancel", { sessionId = M.state.session_id })
  end
end

--- Starts a new conversation in an empty chat, as codecompanion.nvim's
--- new chat does; :GeminiSessions brings the earlier one back.
function M.new_session()
  M.state.session_id = nil
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
  local client = M.client()
  if not client then
    return
  end
  when_ready(client, function()
  client_call(client, "request", "gemini/resumeSession", { sessionId = id }, function(err, result)
    M.resumed(id, title, err, result)
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
    M.state.modes[session_id] = result.mode
    pcall(vim.cmd, "redrawstatus!")
  end
end

--- Shows what gemini/resumeSession of session id (titled title) answered:
--- the earlier conversation in the chat, the session's approval mode in
--- the statusline; the next prompt goes to the session.
function M.resumed(id, title, err, result)
  chat.show()
  if err and err.code == method_not_found then
    -- An older server: its sessions are live ones, continued by id.
    M.state.session_id = id
    chat.lines({ "", "---", "_(continuing: " .. (title or id) .. ")_" })
  elseif err then
    local msg = "could not continue the session: " .. (err.message or vim.inspect(err))
    chat.lines({ "", "Error: " .. msg })
    vim.notify("Gemini: " .. msg, vim.log.levels.ERROR)
  else
    local session = result.session or {}
    M.state.session_id = session.sessionId or id
    adopt_mode(M.state.session_id, result)
    chat.lines(exchange_lines({ "", "---", "_(continuing: " .. (session.title or title or id) .. ")_" }, result.exchanges))
  end
end

-- Lists the sessions of this workspace, live and saved, the most recently
-- used first, with vim.ui.select (titled prompt), and calls on_choice(client,
-- session) with the one the user picks.
local function pick_session(prompt, on_choice)
  local client = M.client()
  if not client then
    return
  end
  local root = M.config.root_dir or vim.loop.cwd()
  local function pick(err, result)
    if err then
      notify_once(err.message)
      return
    end
    local items = result and result.sessions or {}
    if #items == 0 then
      vim.notify("Gemini: no sessions yet")
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
  when_ready(client, function()
  client_call(client, "request", "gemini/listSessions", { root = vim.uri_from_fname(root) }, function(err, result)
    if err and err.code == method_not_found then
      client_call(client, "request", "gemini/sessions", {}, pick)
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
    M.resume(choice.sessionId, choice.title)
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
  client_call(client, "request", "gemini/deleteSession", { sessionId = s.sessionId }, function(err)
    if err then
      local msg = err.code == method_not_found
          and "this gemini-ls is too old to delete sessions; update it (:GeminiInstall) to delete them here"
        or string.format("could not delete the session “%s”: %s", title, err.message or vim.inspect(err))
      vim.notify("Gemini: " .. msg, vim.log.levels.ERROR)
      return
    end
    if s.sessionId == M.state.session_id then
      M.new_session()
    end
    vim.notify(string.format("Gemini: deleted the session “%s”", title))
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
  client_call(client, "request", "gemini/resumeSession", { sessionId = M.state.session_id }, function(err, result)
    if not err then
      adopt_mode(M.state.session_id, result)
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
  local client = M.client()
  local session = M.state.session_id
  if not client then
    return
  end
  if not session then
    vim.notify("Gemini: no session to rewind yet")
    return
  end
  local function fail(err)
    vim.notify("Gemini: could not rewind: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    if on_done then
      on_done(err)
    end
  end
  local function run(p, mode)
    client_call(client, "request", "gemini/rewind", { sessionId = session, prompt = p.prompt, mode = mode }, function(err, result)
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
  when_ready(client, function()
    client_call(client, "request", "gemini/rewind", { sessionId = session }, function(err, result)
      if err then
        return fail(err)
      end
      local prompts = result and result.prompts or {}
      if #prompts == 0 then
        vim.notify("Gemini: nothing to rewind")
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

-- Reads a prompt when none was given; "/" at its start completes the
-- user's commands (<Tab>), fetched in the background as it opens.
local function ask(text, cb)
  if text and text ~= "" then
    cb(text)
  else
    local client = M.client()
    if client then
      commands.refresh(M, client)
    end
    commands.input_open = true
    vim.ui.input({ prompt = "Gemini: ", completion = "customlist,v:lua.require'gemini.commands'.complete_input" }, function(input)
      commands.input_open = false
      if input then
        cb(input)
      end
    end)
  end
end

--- What the user is told of gemini/login's result, and at which level.
function M.login_message(result)
  local who = "Gemini: signed in with Google"
  if result.email and result.email ~= "" then
    who = who .. " as " .. result.email
  end
  local auth = result.auth or {}
  if auth.type == "oauth-personal" and auth.usable then
    return who .. ".", vim.log.levels.INFO
  elseif auth.type == "oauth-personal" then
    return who .. ", but the login cannot be used: " .. tostring(auth.problem), vim.log.levels.WARN
  end
  return string.format('%s, but gemini-ls uses %s (from %s); set security.auth.selectedType to "oauth-personal" in ~/.gemini/settings.json to use the Google login.',
    who, tostring(auth.type), tostring(auth.source)), vim.log.levels.WARN
end

--- Signs in with Google (gemini/login), as Gemini CLI does: gemini-ls
--- shows Google's page (window/showDocument, and a message with its URL)
--- and waits for the browser to come back; with manual, it asks for the
--- code Google's page shows, for a browser on another machine.
function M.login(manual, on_done)
  local client = M.client()
  if not client then
    return
  end
  when_ready(client, function()
    vim.notify("Gemini: signing in with Google; finish in your browser")
    local params = manual and { manual = true } or vim.empty_dict()
    client_call(client, "request", "gemini/login", params, function(err, result)
      if err then
        vim.notify("Gemini: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      else
        local msg, level = M.login_message(result)
        vim.notify(msg, level)
      end
      if on_done then
        on_done(err, result)
      end
    end)
  end)
end

--- How a model shows in the picker: its name, "(current)", its description.
function M.model_label(m, current)
  local label = m.name or m.id
  if m.id == current then
    label = label .. " (current)"
  end
  if m.description and m.description ~= "" then
    label = label .. " — " .. m.description
  end
  return label
end

--- Lets the user pick the model from the server's list (Gemini CLI 0.61's)
--- and sets it with /model set, for every session; with persist, also for
--- later starts (--persist: model.name in ~/.gemini/settings.json).
function M.pick_model(persist, on_done)
  local client = M.client()
  if not client then
    return
  end
  when_ready(client, function()
    M.refresh_models(client, function(err, result)
      if err then
        local msg = err.code == method_not_found and "this gemini-ls cannot list the models (gemini/models); update it" or (err.message or vim.inspect(err))
        vim.notify("Gemini: " .. msg, vim.log.levels.ERROR)
        return
      end
      vim.ui.select(result.models or {}, {
        prompt = persist and "Gemini model (remembered for future sessions)" or "Gemini model",
        format_item = function(m)
          return M.model_label(m, result.current)
        end,
      }, function(choice)
        if choice then
          M.prompt("/model set " .. choice.id .. (persist and " --persist" or ""), nil, on_done)
        end
      end)
    end)
  end)
end

function M.command(opts)
  local args = vim.trim(opts.args or "")
  if args == "login" then
    return M.login(false)
  end
  if args == "nextedit" then
    return M.next_edit()
  end
  local model_args = args:match("^model%s*(.*)$")
  if model_args and (model_args == "" or model_args == "--persist") then
    return M.pick_model(model_args == "--persist")
  end
  local buf = vim.api.nvim_get_current_buf()
  local ctx
  if opts.range and opts.range > 0 then
    ctx = M.context(buf, opts.line1, opts.line2)
  else
    ctx = M.context(buf)
  end
  if args == "" and M.config.input ~= "ui" then
    return prompt_area.open(ctx)
  end
  ask(opts.args, function(text)
    M.prompt(text, ctx)
  end)
end

function M.explain(opts)
  local buf = vim.api.nvim_get_current_buf()
  local ctx = (opts and opts.range and opts.range > 0) and M.context(buf, opts.line1, opts.line2) or M.context(buf)
  M.prompt("Explain this code.", ctx)
end

function M.fix()
  M.prompt("Fix the diagnostics here.", M.context(vim.api.nvim_get_current_buf()))
end

--- Asks for the next edit at the cursor now, and shows it.
function M.next_edit()
  local buf = vim.api.nvim_get_current_buf()
  local client = M.attach(buf)
  if not client then
    return
  end
  when_ready(client, function()
    nextedit.request(buf, function(err, edits)
      if err then
        vim.notify("Gemini: no next edit: " .. (err.message or vim.inspect(err)), vim.log.levels.WARN)
      elseif edits and #edits == 0 then
        vim.notify("Gemini: no next edit foreseen")
      end
    end)
  end)
end

--- :GeminiInstall [build|cancel]: installs gemini-ls in the background,
--- or stops the install under way (see gemini.install); on_done(bin)
--- once installed (bin nil when it failed).
function M.install(how, on_done)
  if how == "cancel" then
    if not install.cancel() then
      vim.notify("Gemini: no install of gemini-ls is under way")
    end
    return
  end
  install.command(how, M.config.release_url, function(bin)
    if bin and not M.config.cmd and M.client_id then
      -- A server that was running keeps its binary until the next start.
      vim.notify("Gemini: :LspRestart or a new Neovim runs the new gemini-ls")
    end
    if on_done then
      on_done(bin)
    end
  end)
end

function M.setup(opts)
  M.config = vim.tbl_extend("force", M.config, opts or {})
  -- Where the plugin is added to the runtimepath after Neovim sourced
  -- plugin/ (lazy.nvim's config, vim.pack's load), its commands come here.
  require("gemini.usercommands").define()
  if M.config.autoSave ~= nil then
    M.config.auto_save = M.config.autoSave
  end
  complete.setup(M, M.config.completion)
  nextedit.setup(M, M.config.next_edit)
  local group = vim.api.nvim_create_augroup("gemini", { clear = true })
  if vim.fn.has("nvim-0.8") == 1 then
    -- Neovim 0.12's inline completion is enabled per buffer once the
    -- client is attached to it (after LspAttach).
    vim.api.nvim_create_autocmd("LspAttach", {
      group = group,
      callback = function(a)
        local client = a.data and vim.lsp.get_client_by_id(a.data.client_id)
        if client and client.id == M.client_id then
          vim.schedule(function()
            complete.attach(a.buf, client)
          end)
        end
      end,
    })
  end
  vim.api.nvim_create_autocmd({ "BufEnter", "BufReadPost" }, {
    group = group,
    callback = function(a)
      if attachable(a.buf) then
        M.attach(a.buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd("CmdlineChanged", { group = group, callback = commands.describe_typed })
  vim.api.nvim_create_autocmd("CmdlineLeave", { group = group, callback = commands.left_cmdline })
  if attachable(vim.api.nvim_get_current_buf()) then
    M.attach(0)
  end
  M.did_setup = true
end

chat.actions = {
  prompt = function()
    if M.config.input ~= "ui" then
      return prompt_area.open(nil)
    end
    ask(nil, function(text)
      M.prompt(text, nil)
    end)
  end,
  cancel = M.cancel,
}

M.review = review
M.complete = complete
M.nextedit = nextedit
M.chat = chat
M.prompt_area = prompt_area
M.commands = commands
return M
