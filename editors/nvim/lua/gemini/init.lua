-- gemini: a Neovim client for gemini-ls, the Gemini coding agent language server.
-- This module holds the plugin's configuration and state, its public
-- functions, and the prompt; each other concern has its module.
local review = require("gemini.review")
local chat = require("gemini.chat")
local client_of = require("gemini.client")
local commands = require("gemini.commands")
local complete = require("gemini.complete")
local confirm = require("gemini.confirm")
local handlers = require("gemini.handlers")
local model = require("gemini.model")
local fixes = require("gemini.fixes")
local nextedit = require("gemini.nextedit")
local prompt_area = require("gemini.prompt")
local install = require("gemini.install")
local sessions = require("gemini.sessions")

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
-- auth: gemini/authStatus's result, once the server answered it.
-- last_prompt, last_context: the last prompt sent, for a retry.
-- error_kind: the kind of the last prompt's failure (errorKind), whose
-- fixes :GeminiFixError offers; nil after a prompt that did not fail.
M.state = { session_id = nil, prompt_running = false, notified = {}, modes = {}, model = {} }

local function notify_once(msg, level)
  if M.state.notified[msg] then
    return
  end
  M.state.notified[msg] = true
  require("gemini.say").tell("Gemini: " .. msg, level or vim.log.levels.ERROR)
end
M.notify_once = notify_once


-- The requests waiting for the user (gemini.confirm), by gemini/request id.
local waiting = confirm.waiting
M.waiting = waiting

--- Redraws every statusline, for a change of what Gemini is doing.
function M.redraw_status()
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

--- What Gemini is doing, as a status line segment; nil when idle.
--- Missing credentials say why nothing works: kept longer than the label.
local function doing()
  if M.state.auth and M.state.auth.usable == false then
    return { text = "no credentials: :GeminiLogin", drop = 4 }
  elseif next(waiting) ~= nil then
    return { text = "waiting for you", drop = 2 }
  elseif M.state.prompt_running then
    return { text = "working…", drop = 2 }
  end
end

--- The chat window's status as segments in the order shown: "Gemini",
--- the model and the approval mode as 0.61 names them, the session's
--- usage, then what Gemini is doing. A narrow window drops the segment
--- with the lowest drop rank first; the model and the mode (no rank)
--- always show, and the usage goes before anything else.
function M.chat_segments()
  local segments = { { text = "Gemini", drop = 3 } }
  local shown = M.statusline():gsub("^Gemini: ", "")
  if shown ~= "" then
    table.insert(segments, { text = shown })
  end
  table.insert(segments, { text = chat.mode_name(M.mode()) })
  local cost = require("gemini.usage").status(M.state.session_id)
  if cost ~= "" then
    table.insert(segments, { text = cost, drop = 1 })
  end
  local now = doing()
  if now then
    table.insert(segments, now)
  end
  return segments
end
chat.segments = M.chat_segments

--- The chat window's whole status, as wide a window shows it:
--- "Gemini · Auto · manual · 52k tok · 40k cached · 5% ctx · working…".
function M.chat_status()
  return chat.join(M.chat_segments())
end

--- The current session's approval mode ("default", "auto_edit", "plan" or
--- "yolo"): the last the server reported, else the one configured.
function M.mode()
  return M.state.modes[M.state.session_id or ""] or M.config.approval_mode or "default"
end


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
  if not client_of.attachable(buf) then
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
    notify_once("could not start gemini-ls (" .. table.concat(client_of.cmd(), " ") .. "): :GeminiInstall installs it")
    return
  end
  prompt_area.remember(text)
  M.state.last_prompt, M.state.last_context = text, context
  M.state.error_kind = nil
  chat.show()
  local lines = { "", "## Prompt", "" }
  vim.list_extend(lines, vim.split(text, "\n", { plain = true }))
  vim.list_extend(lines, { "", "## Gemini" })
  chat.lines(lines)
  M.state.prompt_running = true
  M.state.shown_document = nil
  M.redraw_status()
  local params = { prompt = text, sessionId = M.state.session_id, context = context }
  local bufnr = vim.api.nvim_get_current_buf()
  client_of.when_ready(client, function()
  client_of.client_call(client, "request", "gemini/prompt", params, function(err, result)
    M.state.prompt_running = false
    M.redraw_status()
    -- The chat says what went wrong; a notification too only where no
    -- window shows the chat.
    if err then
      chat.lines({ "", "Error: " .. (err.message or vim.inspect(err)) })
      M.failed(type(err.data) == "table" and err.data.errorKind or nil, err.message or vim.inspect(err))
    elseif result then
      M.state.session_id = result.sessionId
      local note = chat.stop_note(result.stopReason)
      if note then
        chat.lines({ "", note })
      end
      if result.stopReason == "error" then
        M.failed(result.errorKind, result.error)
      end
    end
    if on_done then
      on_done(err, result)
    end
  end, bufnr)
  end)
end

--- Tells a failed prompt's fix, chosen from its kind (errorKind): a
--- line in the chat naming :GeminiFixError and what it offers, and a
--- notification where no window shows the chat.
function M.failed(kind, message)
  M.state.error_kind = kind
  local note = fixes.note(kind)
  if note then
    chat.lines({ "", note })
  end
  if message and not chat.visible() then
    notify_once(message .. (note and " (:GeminiFixError)" or ""))
  end
end

--- Sends the last prompt again, in the same session.
function M.retry()
  if M.state.last_prompt then
    M.prompt(M.state.last_prompt, M.state.last_context)
  end
end

--- Offers the fixes of the last failure (vim.ui.select).
function M.fix_error()
  fixes.offer(M)
end

function M.cancel()
  local client = M.client_id and vim.lsp.get_client_by_id(M.client_id)
  if client and M.state.session_id then
    client_of.client_call(client, "notify", "gemini/cancel", { sessionId = M.state.session_id })
  end
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
  client_of.when_ready(client, function()
    require("gemini.say").tell("Gemini: signing in with Google; finish in your browser")
    local params = manual and { manual = true } or vim.empty_dict()
    client_of.client_call(client, "request", "gemini/login", params, function(err, result)
      if err then
        require("gemini.say").tell("Gemini: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      else
        local msg, level = M.login_message(result)
        require("gemini.say").tell(msg, level)
        -- The chat's status says no credentials no more.
        require("gemini.startup").adopt_auth(result.auth)
      end
      if on_done then
        on_done(err, result)
      end
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
  client_of.when_ready(client, function()
    nextedit.request(buf, function(err, edits)
      if err then
        require("gemini.say").tell("Gemini: no next edit: " .. (err.message or vim.inspect(err)), vim.log.levels.WARN)
      elseif edits and #edits == 0 then
        require("gemini.say").tell("Gemini: no next edit foreseen")
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
      require("gemini.say").tell("Gemini: no install of gemini-ls is under way")
    end
    return
  end
  install.command(how, M.config.release_url, function(bin)
    if on_done then
      on_done(bin)
    end
    if bin and not M.config.cmd and M.client_id then
      -- A server that was running keeps its binary until the next start.
      return ":LspRestart or a new Neovim runs it"
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
  require("gemini.diagnostics").track()
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
      -- After the event's other autocommands: Neovim turns filetype
      -- detection on after init.lua, where setup() runs, so its BufRead
      -- autocommands come after this one, and the document would be
      -- opened with no language (didOpen's languageId "").
      vim.schedule(function()
        if client_of.attachable(a.buf) then
          M.attach(a.buf)
        end
      end)
    end,
  })
  vim.api.nvim_create_autocmd("CmdlineChanged", { group = group, callback = commands.describe_typed })
  vim.api.nvim_create_autocmd("CmdlineLeave", { group = group, callback = commands.left_cmdline })
  if client_of.attachable(vim.api.nvim_get_current_buf()) then
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

-- The functions of the other modules that are the plugin's own.
M.server_cmd = client_of.cmd
M.client_call = client_of.client_call
M.when_ready = client_of.when_ready
M.client = client_of.client
M.attach = client_of.attach
M.statusline = model.statusline
M.refresh_models = model.refresh_models
M.model_label = model.model_label
M.pick_model = model.pick_model
M.open_external = handlers.open_external
M.show_document = handlers.show_document
M.new_session = sessions.new_session
M.ago = sessions.ago
M.session_label = sessions.session_label
M.resume = sessions.resume
M.resumed = sessions.resumed
M.sessions = sessions.sessions
M.delete_picked_session = sessions.delete_picked_session
M.delete_session = sessions.delete_session
M.rewind_label = sessions.rewind_label
M.rewind = sessions.rewind

M.review = review
M.agents = require("gemini.agents")
M.complete = complete
M.nextedit = nextedit
M.chat = chat
M.prompt_area = prompt_area
M.commands = commands
return M
