-- The chat buffer: streamed answers, thoughts and tool calls.
local M = {}

M.buf = nil
-- What the chat's keys do; set by the plugin (prompt, cancel).
M.actions = {}
-- callId -> {mark, title}: the call's line, as an extmark, which a
-- subagent's lines inserted above it move.
local tool_lines = {}
-- invoke_agent callId -> {mark, last}: its subagent's fold, under the
-- call's line. mark is on the fold's closing line, so lines inserted at it
-- go inside; last is what the fold's last line is ("text" or "lines").
local subagents = {}
local ns = vim.api.nvim_create_namespace("gemini-chat")
local last_kind = nil

function M.ensure()
  if M.buf and vim.api.nvim_buf_is_valid(M.buf) then
    return M.buf
  end
  M.buf = vim.api.nvim_create_buf(true, true)
  pcall(vim.api.nvim_buf_set_name, M.buf, "gemini://chat")
  vim.bo[M.buf].filetype = "markdown"
  vim.bo[M.buf].bufhidden = "hide"
  tool_lines, subagents = {}, {}
  local keys = {
    ["<CR>"] = { "prompt", "Gemini: ask" },
    ["<C-c>"] = { "cancel", "Gemini: cancel the running prompt" },
    q = { "close", "Gemini: close the chat window" },
  }
  for key, k in pairs(keys) do
    vim.api.nvim_buf_set_keymap(M.buf, "n", key, "", {
      nowait = true,
      silent = true,
      desc = k[2],
      callback = function()
        if k[1] == "close" then
          pcall(vim.api.nvim_win_close, 0, false)
        elseif M.actions[k[1]] then
          M.actions[k[1]]()
        end
      end,
    })
  end
  return M.buf
end

function M.show()
  local buf = M.ensure()
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == buf then
      return win
    end
  end
  local cur = vim.api.nvim_get_current_win()
  vim.cmd("botright vsplit")
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  vim.wo[win].wrap = true
  vim.wo[win].foldmethod = "marker"
  -- The session's approval mode, e.g. "Gemini [plan]" (a statusline: no
  -- winbar before Neovim 0.8).
  vim.wo[win].statusline = "Gemini [%{luaeval('require(\"gemini\").mode()')}] %f"
  vim.api.nvim_set_current_win(cur)
  return win
end

local function scroll()
  local n = vim.api.nvim_buf_line_count(M.buf)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == M.buf then
      vim.api.nvim_win_set_cursor(win, { n, 0 })
    end
  end
end

--- Appends whole lines; a line holding newlines (an error, a note of
--- several lines) is split there, as a buffer line cannot hold one.
function M.lines(lines)
  local split = {}
  for _, line in ipairs(lines) do
    vim.list_extend(split, vim.split(line, "\n", { plain = true }))
  end
  lines = split
  local buf = M.ensure()
  local n = vim.api.nvim_buf_line_count(buf)
  local first = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1]
  if n == 1 and first == "" then
    vim.api.nvim_buf_set_lines(buf, 0, 1, false, lines)
  else
    vim.api.nvim_buf_set_lines(buf, n, n, false, lines)
  end
  last_kind = "lines"
  scroll()
end

--- Appends a text delta to the last line.
function M.text(delta)
  local buf = M.ensure()
  if last_kind ~= "text" then
    M.lines({ "" })
  end
  local n = vim.api.nvim_buf_line_count(buf)
  local last = vim.api.nvim_buf_get_lines(buf, n - 1, n, false)[1] or ""
  local parts = vim.split(last .. delta, "\n", { plain = true })
  vim.api.nvim_buf_set_lines(buf, n - 1, n, false, parts)
  last_kind = "text"
  scroll()
end

local icons = { running = "…", ok = "✓", error = "✗", rejected = "⊘", cancelled = "⊘" }

local function tool_line(title, status)
  return string.format("- %s %s (%s)", icons[status] or "?", title, status)
end

--- Marks a line of the chat, to find it again after lines are inserted.
local function mark(line)
  return vim.api.nvim_buf_set_extmark(M.buf, ns, line, 0, {})
end

local function marked(id)
  local pos = vim.api.nvim_buf_get_extmark_by_id(M.buf, ns, id, {})
  return pos[1]
end

local function set_tool_line(callId, title, status)
  local t = tool_lines[callId]
  if t then
    local line = marked(t.mark)
    vim.api.nvim_buf_set_lines(M.buf, line, line + 1, false, { t.indent .. tool_line(t.title, status) })
    return true
  end
  return false
end

--- The fold of the subagent run by the invoke_agent call u.parentCallId,
--- made on its first update: under the call's line, or at the end.
local function subagent_fold(u)
  local f = subagents[u.parentCallId]
  if f then
    return f
  end
  local buf = M.ensure()
  local parent = tool_lines[u.parentCallId]
  local at = parent and marked(parent.mark) + 1 or vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_buf_set_lines(buf, at, at, false, { "  - " .. (u.agentName or "subagent") .. " {{{", "  }}}" })
  f = { mark = mark(at + 1) }
  subagents[u.parentCallId] = f
  if not parent then
    last_kind = "lines"
  end
  scroll()
  return f
end

--- Inserts lines at the end of fold f, indented under its call.
local function fold_lines(f, lines)
  local at = marked(f.mark)
  local indented = {}
  for i, l in ipairs(lines) do
    indented[i] = l == "" and "" or ("    " .. l)
  end
  vim.api.nvim_buf_set_lines(M.buf, at, at, false, indented)
  f.last = "lines"
  return at
end

--- The key of a subagent's call in tool_lines: each subagent numbers its
--- calls its own way, so its call_1 is not the main agent's.
local function sub_key(u)
  return u.parentCallId .. "/" .. (u.callId or "")
end

--- Shows a subagent's update inside its invoke_agent call's fold: its
--- text, thoughts' subjects and calls; not its usage.
local function subagent_update(u)
  local f = subagent_fold(u)
  if u.kind == "text" then
    if f.last ~= "text" then
      -- A paragraph: a blank line, then the line the text goes on.
      fold_lines(f, { "", "" })
    end
    local at = marked(f.mark) - 1
    local last = vim.api.nvim_buf_get_lines(M.buf, at, at + 1, false)[1] or ""
    local parts = vim.split(last .. (u.text or ""), "\n", { plain = true })
    if last == "" and parts[1] ~= "" then
      parts[1] = "    " .. parts[1]
    end
    for i = 2, #parts do
      parts[i] = parts[i] == "" and "" or ("    " .. parts[i])
    end
    vim.api.nvim_buf_set_lines(M.buf, at, at + 1, false, parts)
    f.last = "text"
  elseif u.kind == "thought" then
    fold_lines(f, { "> thought: " .. (u.subject or "") })
  elseif u.kind == "toolCall" then
    local at = fold_lines(f, { tool_line(u.title or u.name, "running") })
    tool_lines[sub_key(u)] = { mark = mark(at), title = u.title or u.name, indent = "    " }
  elseif u.kind == "toolResult" then
    if not set_tool_line(sub_key(u), u.name, u.status) then
      fold_lines(f, { tool_line(u.name, u.status) })
    end
  elseif u.kind == "error" then
    fold_lines(f, { "**Error:** " .. (u.message or "") })
  elseif u.kind == "retry" then
    fold_lines(f, { "> " .. M.retry_note(u) })
  end
  scroll()
end

function M.update(u)
  if u.parentCallId and u.parentCallId ~= "" then
    return subagent_update(u)
  end
  if u.kind == "text" then
    M.text(u.text or "")
  elseif u.kind == "thought" then
    local lines = { "> thought: " .. (u.subject or "") .. " {{{" }
    for _, l in ipairs(vim.split(u.description or "", "\n", { plain = true })) do
      table.insert(lines, "> " .. l)
    end
    table.insert(lines, "> }}}")
    M.lines(lines)
  elseif u.kind == "toolCall" then
    M.lines({ tool_line(u.title or u.name, "running") })
    tool_lines[u.callId] = { mark = mark(vim.api.nvim_buf_line_count(M.buf) - 1), title = u.title or u.name, indent = "" }
  elseif u.kind == "toolResult" then
    if not set_tool_line(u.callId, u.name, u.status) then
      M.lines({ tool_line(u.name, u.status) })
    end
    -- An invoke_agent call's report ends its subagent's fold.
    local f = subagents[u.callId]
    if f and u.display and u.display ~= "" then
      fold_lines(f, vim.list_extend({ "", "**Report:**", "" }, vim.split(u.display, "\n", { plain = true })))
    end
    subagents[u.callId] = nil
  elseif u.kind == "error" then
    M.lines({ "", "**Error:** " .. (u.message or "") })
  elseif u.kind == "retry" then
    M.lines({ "> " .. M.retry_note(u) })
  elseif u.kind == "notice" then
    local lines = {}
    for i, line in ipairs(vim.split(u.message or "", "\n", { plain = true })) do
      table.insert(lines, (i == 1 and "> **Note:** " or "> ") .. line)
    end
    M.lines(lines)
  elseif u.kind == "mode" then
    M.lines({ "> mode: " .. (u.mode or "?") })
  elseif u.kind == "compressed" then
    M.lines({
      string.format("> **Note:** the conversation was compressed (%s → %s tokens)", u.tokensBefore or "?", u.tokensAfter or "?"),
    })
  end
end

--- "Rate-limited; retrying in 2 s (attempt 1)" for a retry update.
function M.retry_note(u)
  local secs = (u.delayMs or 0) / 1000
  local delay = secs == math.floor(secs) and string.format("%d s", secs) or string.format("%.1f s", secs)
  local reason = (u.reason and u.reason ~= "") and u.reason or "the model call failed"
  reason = reason:sub(1, 1):upper() .. reason:sub(2)
  return string.format("%s; retrying in %s (attempt %d)", reason, delay, u.attempt or 1)
end

local stop_notes = {
  cancelled = "_Cancelled._",
  max_tokens = "**Stopped:** the answer reached the model's output limit; what came is above.",
  max_turns = "**Stopped:** the session reached its limit of model requests.",
  error = "**Stopped by an error.**",
  loop_detected = "**Stopped:** Gemini was repeating itself (a loop was detected), so the turn was ended. Rephrase or narrow the request to go on.",
}

--- How a prompt's end shows in the chat, in words; nil when it simply
--- ended (the answer says so itself).
function M.stop_note(reason)
  if reason == nil or reason == "end_turn" then
    return nil
  end
  return stop_notes[reason] or ("**Stopped** (" .. reason .. ").")
end

return M
