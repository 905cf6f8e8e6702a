-- What Neovim does with what gemini-ls sends besides what its LSP client
-- handles itself: the client's handlers, by method.
local chat = require("gemini.chat")
local commands = require("gemini.commands")
local confirm = require("gemini.confirm")
local language_feature = require("gemini.languagefeature")
local shown_diagnostics = require("gemini.diagnostics")

local M = {}

-- The plugin's module, required when called: it requires this one.
local function gemini()
  return require("gemini")
end

-- The client's handlers (vim.lsp.start's config.handlers), by method.
local handlers = {}
M.handlers = handlers

handlers["gemini/request"] = confirm.request
handlers["gemini/cancelRequest"] = confirm.cancel_request

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
  if gemini().config.auto_save and result and result.applied and params and params.edit then
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
    local ok = gemini().open_external(params.uri)
    if not ok then
      require("gemini.say").tell("Gemini: open this in your browser: " .. params.uri)
    end
    return { success = ok }
  end
  local default = vim.lsp.handlers["window/showDocument"]
  local result
  if default then
    result = default(err, params, ctx, config)
  else
    result = { success = gemini().show_document(params) }
  end
  gemini().state.shown_document = result and result.success and vim.uri_to_fname(params.uri) or nil
  return result
end

-- The server's warnings and errors outside a prompt: in the chat, once
-- each (gemini.startup).
handlers["window/showMessage"] = function(...)
  return require("gemini.startup").show_message(...)
end

--- Takes a usage update of the main agent: a live one, or the one a
--- gemini/resumeSession result carries. The status line shows it.
function M.take_usage(params)
  local state = gemini().state
  -- The model that answered the main agent; a subagent's may differ.
  state.model.answered = params.model or state.model.answered
  require("gemini.usage").update(params)
  pcall(vim.cmd, "redrawstatus!")
end

-- An agent's change (protocol §5h): its row in the agents view.
handlers["gemini/agent"] = function(_, params)
  require("gemini.agents").take(params)
end

handlers["gemini/update"] = function(_, params)
  -- An agent's updates are its own chat's: the chat shows them only when
  -- it shows that agent's session.
  if params and require("gemini.agents").foreign(params.sessionId) then
    return
  end
  if params then
    local state = gemini().state
    if params.kind == "model" then
      -- /model set: every session's model from now on.
      state.model.current, state.model.name, state.model.answered = params.model, params.name, nil
      pcall(vim.cmd, "redrawstatus!")
    elseif params.kind == "usage" and not params.parentCallId then
      M.take_usage(params)
    end
    if params.kind == "mode" and params.sessionId then
      -- The first prompt's session is named by its result, after its updates.
      state.session_id = state.session_id or params.sessionId
      state.modes[params.sessionId] = params.mode
      pcall(vim.cmd, "redrawstatus!")
    end
    if params.kind == "commands" then
      -- /commands reload: the "/" completion asks for the list again.
      commands.invalidate()
    end
    chat.update(params)
    -- A subagent's error ends the subagent, shown in its fold; the
    -- prompt goes on.
    if params.kind == "error" and not params.parentCallId and not chat.visible() then
      gemini().notify_once(params.message)
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

return M
