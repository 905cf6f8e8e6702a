-- Reaching gemini-ls: the command that runs it, the client Neovim starts
-- for it (one for the plugin) and attaches to file buffers, and calls on
-- that client across Neovim's versions.
local complete = require("gemini.complete")
local install = require("gemini.install")
local nextedit = require("gemini.nextedit")

local M = {}

-- The plugin's module, required when called: it requires this one.
local function gemini()
  return require("gemini")
end

function M.cmd()
  local config = gemini().config
  if config.cmd then
    return type(config.cmd) == "string" and { config.cmd } or config.cmd
  end
  return { install.installed() or "gemini-ls" }
end

-- Client methods are called with ":" from 0.11 on, "." before.
function M.client_call(client, name, ...)
  if vim.fn.has("nvim-0.11") == 1 then
    return client[name](client, ...)
  end
  return client[name](...)
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
  local config = gemini().config
  local root = config.root_dir or vim.loop.cwd()
  return {
    name = "gemini-ls",
    cmd = M.cmd(),
    root_dir = root,
    -- Neovim names workspace folders by their path.
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    capabilities = capabilities(),
    handlers = require("gemini.handlers").handlers,
    init_options = (config.model or config.approval_mode)
        and { model = config.model, approvalMode = config.approval_mode }
      or vim.empty_dict(),
    flags = { debounce_text_changes = 0 },
  }
end

function M.attachable(buf)
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
  local g = gemini()
  local client = g.client_id and vim.lsp.get_client_by_id(g.client_id)
  if client and not M.client_call(client, "is_stopped") then
    return client
  end
  local argv = M.cmd()
  if vim.fn.executable(argv[1]) ~= 1 then
    -- Once, not an error per buffer opened before :GeminiInstall; short
    -- enough for the command line of 80 columns, where a longer message
    -- at start-up asks for Enter. A command of the user's own is named.
    local which = argv[1] == "gemini-ls" and "" or (" (no " .. argv[1] .. ")")
    g.notify_once("gemini-ls is not installed" .. which .. ": :GeminiInstall installs it", vim.log.levels.WARN)
    return nil
  end
  local buf = vim.api.nvim_get_current_buf()
  if vim.lsp.start and (M.attachable(buf) or vim.fn.has("nvim-0.11") == 1) then
    g.client_id = vim.lsp.start(client_config(), { bufnr = buf, reuse_client = same_server, attach = M.attachable(buf) })
  else
    g.client_id = vim.lsp.start_client(client_config())
  end
  client = g.client_id and vim.lsp.get_client_by_id(g.client_id)
  if client then
    -- The statusline shows the model from the start; the chat says at
    -- once when there are no credentials.
    M.when_ready(client, function(c)
      g.refresh_models(c)
      require("gemini.startup").check_auth(c)
    end)
  end
  return client
end

--- Attaches gemini-ls to buf, starting it if needed, and returns the client.
function M.attach(buf)
  buf = (buf == nil or buf == 0) and vim.api.nvim_get_current_buf() or buf
  local client
  vim.api.nvim_buf_call(buf, function()
    client = gemini().client()
  end)
  if client and M.attachable(buf) and not vim.lsp.buf_is_attached(buf, client.id) then
    vim.lsp.buf_attach_client(buf, client.id)
  end
  if client and M.attachable(buf) then
    complete.attach(buf, client)
    nextedit.attach(buf)
  end
  return client
end

-- Calls fn(client) once the server has answered initialize.
function M.when_ready(client, fn, tries)
  tries = tries or 0
  if client.initialized or client.server_capabilities and next(client.server_capabilities) then
    return fn(client)
  end
  if M.client_call(client, "is_stopped") or tries > 200 then
    gemini().notify_once("gemini-ls did not start (" .. table.concat(M.cmd(), " ") .. ")")
    return
  end
  vim.defer_fn(function()
    M.when_ready(client, fn, tries + 1)
  end, 50)
end

return M
