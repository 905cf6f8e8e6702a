-- Loaded with `nvim --headless -u NONE -S tests/init.lua`: puts the plugin on
-- the runtimepath and runs the spec file named by $GEMINI_SPEC in a fresh
-- workspace ($GEMINI_WORKSPACE).
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
vim.opt.runtimepath:prepend(root)
package.path = root .. "/tests/?.lua;" .. package.path
vim.cmd("runtime plugin/gemini.lua")
vim.cmd("cd " .. vim.fn.fnameescape(os.getenv("GEMINI_WORKSPACE")))
vim.opt.swapfile = false
local runner = require("runner")
local ok, err = xpcall(dofile, debug.traceback, os.getenv("GEMINI_SPEC"))
if not ok then
  runner.failed = runner.failed + 1
  print("fail loading spec: " .. err)
  local path = os.getenv("GEMINI_TEST_RESULTS")
  local f = io.open(path, "a"); f:write("fail loading " .. os.getenv("GEMINI_SPEC") .. ": " .. err:gsub("\n", " ") .. "\n"); f:close()
end
runner.finish()
