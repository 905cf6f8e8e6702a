-- Loaded by completion.sh in a real, interactive Neovim inside tmux: the
-- plugin set up as a user would, stats.py open. Every message the client
-- sends gemini-ls is noted in $GEMINI_SENT (method, then params as JSON),
-- for the test to check what reached the server.
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
vim.opt.runtimepath:prepend(root)
vim.opt.swapfile = false
vim.opt.shortmess:append("I")
vim.cmd("runtime plugin/gemini.lua")
vim.cmd("cd " .. vim.fn.fnameescape(os.getenv("GEMINI_WORKSPACE")))
-- The user's own <Tab>, which the plugin's falls back to: two spaces.
vim.keymap.set("i", "<Tab>", function() return "<Space><Space>" end, { expr = true, desc = "the user's Tab" })
-- What is drawn but not in the buffer in italics, which the pictures mark
-- «…» (tmux.sh's save_marked): the plugin's ghost text, 0.12's built-in
-- one, a next edit's new lines and hint. Only those: no syntax, so nothing
-- else is.
for _, group in ipairs({ "GeminiSuggestion", "ComplHint", "ComplHintMore", "GeminiNextEditAdd", "GeminiNextEditHint" }) do
  vim.api.nvim_set_hl(0, group, { italic = true })
end
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })
local sent = assert(io.open(os.getenv("GEMINI_SENT"), "a"))
local wrapped = {}
local function note(method, params)
  sent:write(method, " ", vim.fn.json_encode(params or vim.NIL), "\n")
  sent:flush()
end
-- Wraps the client's connection once it exists: every request and
-- notification it sends passes here.
local function wrap()
  local client = gemini.client_id and vim.lsp.get_client_by_id(gemini.client_id)
  if not client or wrapped[client.id] then
    return
  end
  wrapped[client.id] = true
  local rpc = client.rpc
  local request, notify = rpc.request, rpc.notify
  rpc.request = function(method, params, ...)
    note(method, params)
    return request(method, params, ...)
  end
  rpc.notify = function(method, params, ...)
    note(method, params)
    return notify(method, params, ...)
  end
end
vim.api.nvim_create_autocmd("BufEnter", { callback = wrap })
vim.cmd("edit stats.py")
-- A diagnostic near where the test types, as a linter would give it; not
-- drawn, so the screen shows the code as typed.
vim.diagnostic.config({ signs = false, virtual_text = false, underline = false })
vim.diagnostic.set(vim.api.nvim_create_namespace("test-linter"), 0, {
  { lnum = 1, col = 4, end_lnum = 1, end_col = 9, severity = vim.diagnostic.severity.WARN, message = "total is never read" },
})
wrap()
-- Says on the screen when gemini-ls is attached and initialized, so the
-- test types only then.
local timer = vim.loop.new_timer()
timer:start(50, 50, vim.schedule_wrap(function()
  local client = gemini.client_id and vim.lsp.get_client_by_id(gemini.client_id)
  if client and client.initialized ~= false and client.server_capabilities and next(client.server_capabilities)
    and vim.lsp.buf_is_attached(0, client.id) then
    timer:stop()
    wrap()
    vim.cmd("echo 'gemini-ls ready'")
  end
end))
