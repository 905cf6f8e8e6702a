-- The init.lua of review.sh's real, interactive Neovim in tmux (nvim -u
-- this file, so that Neovim turns filetype detection on after it, as after
-- a user's init.lua): the plugin set up as a user does, completion and
-- next edits on as by default. Every message the client sends gemini-ls
-- is noted in $GEMINI_SENT (method, then params as JSON), for the test to
-- check what reached the server.
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
vim.opt.runtimepath:prepend(root)
vim.opt.swapfile = false
vim.opt.shortmess:append("I")
vim.cmd("cd " .. vim.fn.fnameescape(os.getenv("GEMINI_WORKSPACE")))
local sent = assert(io.open(os.getenv("GEMINI_SENT"), "a"))
local function note(method, params)
  sent:write(method, " ", vim.fn.json_encode(params or vim.NIL), "\n")
  sent:flush()
end
-- Every connection Neovim's client starts passes here, so that its first
-- message (initialize, then didOpen) is noted too.
local start = vim.lsp.rpc.start
vim.lsp.rpc.start = function(...)
  local rpc = start(...)
  local request, notify = rpc.request, rpc.notify
  rpc.request = function(method, params, ...)
    note(method, params)
    return request(method, params, ...)
  end
  rpc.notify = function(method, params, ...)
    note(method, params)
    return notify(method, params, ...)
  end
  return rpc
end
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })
-- Says on the screen when gemini-ls is attached and initialized, so the
-- test types only then.
local timer = vim.loop.new_timer()
timer:start(50, 50, vim.schedule_wrap(function()
  local client = gemini.client_id and vim.lsp.get_client_by_id(gemini.client_id)
  if client and client.server_capabilities and next(client.server_capabilities) and vim.lsp.buf_is_attached(0, client.id) then
    timer:stop()
    vim.cmd("echo 'gemini-ls ready'")
  end
end))
