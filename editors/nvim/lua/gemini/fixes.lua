-- What to do about a failed prompt, chosen from the failure's kind, the
-- word gemini-ls sends beside its sentence (errorKind: invalid_api_key,
-- quota, network, ...), never from the sentence's words. :GeminiFixError
-- offers the fixes of the last failure with vim.ui.select.
local M = {}

-- The fixes, by name: what the picker says and what choosing it runs.
local fixes = {
  login = { label = "Sign in with Google (:GeminiLogin)", run = function(g) g.login(false) end },
  retry = { label = "Retry the prompt", run = function(g) g.retry() end },
  model = { label = "Switch model (:Gemini /model)", run = function(g) g.pick_model(false) end },
  quota = {
    label = "Open the quota page (https://aistudio.google.com/usage)",
    run = function() require("gemini.handlers").open_external("https://aistudio.google.com/usage") end,
  },
}

-- The fixes of each kind, the likeliest first. A key is set in
-- GEMINI_API_KEY outside Neovim, so signing in is the fix Neovim offers.
local by_kind = {
  no_api_key = { "login" },
  invalid_api_key = { "login" },
  expired_api_key = { "login" },
  unauthenticated = { "login", "retry" },
  sign_in_required = { "login" },
  permission_denied = { "login", "retry" },
  quota = { "model", "quota", "retry" },
  rate_limited = { "retry", "model" },
  network = { "retry" },
  server_error = { "retry", "model" },
  unknown_model = { "model" },
}

--- The fixes offered for kind, as {label, run}; empty for a kind with
--- none, or none at all.
function M.for_kind(kind)
  local out = {}
  for _, name in ipairs(by_kind[kind or ""] or {}) do
    table.insert(out, fixes[name])
  end
  return out
end

--- The chat's line naming the fixes of kind; nil when it has none.
function M.note(kind)
  local list = M.for_kind(kind)
  if #list == 0 then
    return nil
  end
  local labels = vim.tbl_map(function(f) return f.label end, list)
  return "> :GeminiFixError offers: " .. table.concat(labels, " · ")
end

--- Offers the fixes of the last failure (g.state.error_kind) and runs
--- the one chosen.
function M.offer(g)
  local list = M.for_kind(g.state.error_kind)
  if #list == 0 then
    require("gemini.say").tell("Gemini: no failure to fix", vim.log.levels.INFO)
    return
  end
  vim.ui.select(list, {
    prompt = "Gemini: fix the failure",
    format_item = function(f) return f.label end,
  }, function(choice)
    if choice then
      choice.run(g)
    end
  end)
end

return M
