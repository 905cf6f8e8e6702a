-- Loaded by stock.sh after the README's init.lua (nothing of the gemini-ls
-- plugin is on the runtimepath): test-only settings, and a log of what the
-- client received ($GEMINI_STOCK_LOG, one JSON object a line) so the script
-- can check more than the screen shows. The default handlers still run.
vim.opt.swapfile = false
vim.opt.shortmess:append("I")
local log = os.getenv("GEMINI_STOCK_LOG")
local function record(what, value)
  local f = io.open(log, "a")
  f:write(vim.fn.json_encode({ what = what, value = value }), "\n")
  f:close()
end
for _, method in ipairs({ "workspace/executeCommand", "window/showMessage", "window/showMessageRequest" }) do
  local default = vim.lsp.handlers[method]
  vim.lsp.handlers[method] = function(err, result, ...)
    record(method, err and { error = err.message } or result or vim.NIL)
    return default(err, result, ...)
  end
end
