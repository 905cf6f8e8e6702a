local M = {}

function M.check()
  local health = vim.health or require("health")
  local start = health.start or health.report_start
  local ok = health.ok or health.report_ok
  local warn = health.warn or health.report_warn
  local err = health.error or health.report_error
  start("gemini")
  local gemini = require("gemini")
  local exe = gemini.server_cmd()[1]
  if vim.fn.executable(exe) == 1 then
    ok("gemini-ls found: " .. vim.fn.exepath(exe))
  else
    err("gemini-ls not found: " .. exe .. " (:GeminiInstall installs it; or set cmd in setup(), or put it on PATH)")
  end
  if vim.env.GEMINI_API_KEY or vim.env.GOOGLE_API_KEY or vim.env.GOOGLE_GENAI_USE_VERTEXAI then
    ok("credentials found in the environment")
  else
    warn("GEMINI_API_KEY is not set: every prompt will fail")
  end
  if vim.fn.has("nvim-0.7") == 1 then
    ok("Neovim " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor))
  else
    err("Neovim 0.7 or newer is required")
  end
end

return M
