-- The plugin's user commands, and its help tags where they are missing:
-- defined by plugin/gemini.lua, or by setup() where the plugin joined the
-- runtimepath too late for plugin/ to be sourced (a plugin manager's spec
-- that appends editors/nvim).
local M = {}

local function g()
  local gemini = require("gemini")
  if not gemini.did_setup then
    gemini.setup({})
  end
  return gemini
end

function M.define()
  if vim.g.loaded_gemini then
    return
  end
  vim.g.loaded_gemini = true
  local cmd = vim.api.nvim_create_user_command
  cmd("Gemini", function(o) g().command(o) end, {
    nargs = "*",
    range = true,
    desc = "Ask Gemini",
    complete = function(...) return g().commands.complete_command(...) end,
  })
  cmd("GeminiCancel", function() g().cancel() end, { desc = "Cancel the running Gemini prompt" })
  cmd("GeminiFixError", function() g().fix_error() end, { desc = "Offer the fixes of the last failed Gemini prompt (sign in, retry, switch model)" })
  cmd("GeminiNewSession", function() g().new_session() end, { desc = "Start a new Gemini session" })
  cmd("GeminiSessions", function(o)
    if o.args == "delete" then
      g().delete_session()
    elseif o.args == "" then
      g().sessions()
    else
      require("gemini.say").tell("Gemini: :GeminiSessions takes nothing or delete, not " .. o.args, vim.log.levels.ERROR)
    end
  end, {
    nargs = "?",
    complete = function(lead) return vim.startswith("delete", lead) and { "delete" } or {} end,
    desc = "Continue a Gemini session (delete: delete one)",
  })
  cmd("GeminiLogin", function(o) g().login(o.args == "manual") end, {
    nargs = "?",
    complete = function() return { "manual" } end,
    desc = "Sign in with Google (manual: paste the code, for a browser elsewhere)",
  })
  cmd("GeminiAgents", function() g().agents.open() end, {
    desc = "Show the Gemini agents, each in a worktree of its own: open, stop, review and land, merge, discard",
  })
  cmd("GeminiAgent", function(o)
    local task = o.args:match("^new%s+(.*)$")
    if task and vim.trim(task) ~= "" then
      g().agents.start(task)
    else
      require("gemini.say").tell("Gemini: :GeminiAgent takes new and the agent's task (:GeminiAgent new fix the login form)", vim.log.levels.ERROR)
    end
  end, {
    nargs = "+",
    complete = function(lead, line) return line:match("^%S+%s+%S*$") and vim.startswith("new", lead) and { "new" } or {} end,
    desc = "Start a Gemini agent on a task, in a worktree of its own (new {task})",
  })
  cmd("GeminiBackground", function(o)
    if vim.trim(o.args) ~= "" then
      g().agents.delegate(o.args)
    else
      g().agents.new_background()
    end
  end, {
    nargs = "*",
    desc = "Start a Gemini agent on a task on GitHub Actions: its pull request comes back for review (no task: asked for)",
  })
  cmd("GeminiRewind", function() g().rewind() end, { desc = "Rewind the Gemini session to before one of its prompts" })
  cmd("GeminiExplain", function(o) g().explain(o) end, { range = true, desc = "Ask Gemini to explain the code" })
  cmd("GeminiFix", function() g().fix() end, { desc = "Ask Gemini to fix the diagnostics here" })
  cmd("GeminiEdit", function(o) require("gemini.edit").command(g(), o) end, {
    nargs = "*",
    range = true,
    desc = "Have Gemini rewrite the selection (or this line) as you say, reviewed before it lands",
  })
  cmd("GeminiAccept", function() g().review.accept() end, { desc = "Accept the change under review" })
  cmd("GeminiReject", function() g().review.reject() end, { desc = "Reject the change under review" })
  -- Not through setup(), which would start the server being installed.
  cmd("GeminiInstall", function(o) require("gemini").install(o.args ~= "" and o.args or nil) end, {
    nargs = "?",
    complete = function() return { "build", "cancel" } end,
    desc = "Install gemini-ls from the release in the background (build: with Go, from the plugin's checkout; cancel: stop it)",
  })
  -- :help gemini, from a clone too (gemini.help).
  require("gemini.help").ensure()
end

return M
