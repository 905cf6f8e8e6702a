-- Loaded by copilot_lsp.sh after the README's init.lua (copilot-lsp.nvim on
-- the runtimepath, nothing of the gemini-ls plugin): test-only settings,
-- every message the client sends gemini-ls noted in $GEMINI_SENT (method,
-- then params as JSON), and "gemini-ls ready" on the command line once the
-- client is attached and initialized, so the test types only then.
vim.opt.swapfile = false
vim.opt.shortmess:append("I")
local sent = assert(io.open(os.getenv("GEMINI_SENT"), "a"))
local wrapped = {}
local function wrap(client)
  if wrapped[client.id] then
    return
  end
  wrapped[client.id] = true
  local rpc = client.rpc
  local request, notify = rpc.request, rpc.notify
  local function note(method, params)
    sent:write(method, " ", vim.json.encode(params or vim.NIL), "\n")
    sent:flush()
  end
  rpc.request = function(method, params, ...)
    note(method, params)
    return request(method, params, ...)
  end
  rpc.notify = function(method, params, ...)
    note(method, params)
    return notify(method, params, ...)
  end
end
local timer = vim.uv.new_timer()
timer:start(50, 50, vim.schedule_wrap(function()
  local client = vim.lsp.get_clients({ name = "gemini_ls", bufnr = 0 })[1]
  if client and client.initialized and vim.lsp.buf_is_attached(0, client.id) then
    timer:stop()
    wrap(client)
    vim.cmd("echo 'gemini-ls ready'")
  end
end))
