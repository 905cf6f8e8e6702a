-- :GeminiEdit: rewrites the selection (or the cursor's line) as an
-- instruction says, without the chat (gemini/editSelection): one model
-- call, whose rewrite opens in the review tab like any edit (ga, gr, gx
-- hunk by hunk), and a message says what became of it.
local pos = require("gemini.pos")

local M = {}

--- The LSP range :GeminiEdit rewrites in buf, by the command's opts: the
--- last visual selection exactly when the range is that selection made
--- characterwise (v), else the whole lines of the range, else the cursor's
--- line. Whole lines run to the next line's start, as a linewise
--- selection does.
function M.range(buf, opts, encoding)
  local l1, l2
  if opts.range and opts.range > 0 then
    l1, l2 = opts.line1, opts.line2
  else
    l1 = vim.api.nvim_win_get_cursor(0)[1]
    l2 = l1
  end
  if opts.range == 2 and vim.fn.visualmode() == "v" then
    local s, e = vim.api.nvim_buf_get_mark(buf, "<"), vim.api.nvim_buf_get_mark(buf, ">")
    if s[1] == l1 and e[1] == l2 then
      -- '> marks the selection's last character, which the range takes in.
      local last = vim.api.nvim_buf_get_lines(buf, e[1] - 1, e[1], false)[1] or ""
      local after = e[2] + math.max(1, #(vim.fn.strcharpart(last:sub(e[2] + 1), 0, 1)))
      return { start = pos.to_lsp(buf, s[1] - 1, s[2], encoding), ["end"] = pos.to_lsp(buf, e[1] - 1, math.min(after, #last), encoding) }
    end
  end
  return { start = { line = l1 - 1, character = 0 }, ["end"] = { line = l2, character = 0 } }
end

--- How the outcome is told: a warning when the edit could not be made.
function M.level(result)
  if result.outcome == "refused" or result.outcome == "stale" then
    return vim.log.levels.WARN
  end
  return vim.log.levels.INFO
end

--- Sends gemini/editSelection for buf's range with instruction, and tells
--- the user what became of it; on_done(err, result) after.
function M.send(gemini, buf, range, instruction, on_done)
  local client = gemini.attach(buf)
  if not client then
    return
  end
  gemini.when_ready(client, function()
    local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, range = range, instruction = instruction }
    require("gemini.say").tell("Gemini: editing the selection…")
    gemini.client_call(client, "request", "gemini/editSelection", params, function(err, result)
      if err then
        local msg = err.code == -32601 and "this gemini-ls cannot edit a selection (gemini/editSelection); update it" or (err.message or vim.inspect(err))
        require("gemini.say").tell("Gemini: " .. msg, vim.log.levels.ERROR)
      elseif result then
        require("gemini.say").tell(result.message, M.level(result))
      end
      if on_done then
        on_done(err, result)
      end
    end, buf)
  end)
end

--- :GeminiEdit [instruction]: the instruction given, else asked for.
function M.command(gemini, opts)
  local buf = vim.api.nvim_get_current_buf()
  local client = gemini.attach(buf)
  if not client then
    return
  end
  local range = M.range(buf, opts, client.offset_encoding or "utf-16")
  local instruction = vim.trim(opts.args or "")
  if instruction ~= "" then
    return M.send(gemini, buf, range, instruction)
  end
  vim.ui.input({ prompt = "Gemini edit: " }, function(input)
    if input and vim.trim(input) ~= "" then
      M.send(gemini, buf, range, vim.trim(input))
    end
  end)
end

return M
