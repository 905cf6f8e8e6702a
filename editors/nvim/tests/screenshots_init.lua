-- Loaded by screenshots.sh in a real, interactive Neovim inside tmux: puts the
-- plugin on the runtimepath, points it at the freshly built gemini-ls and opens
-- numbers.txt in the workspace ($GEMINI_WORKSPACE).
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
vim.opt.runtimepath:prepend(root)
vim.opt.swapfile = false
vim.opt.shortmess:append("I")
vim.cmd("runtime plugin/gemini.lua")
vim.cmd("cd " .. vim.fn.fnameescape(os.getenv("GEMINI_WORKSPACE")))
require("gemini").setup({ cmd = { os.getenv("GEMINI_LS") } })
vim.cmd("edit numbers.txt")
