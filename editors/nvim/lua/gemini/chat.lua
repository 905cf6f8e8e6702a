-- The chat buffer: streamed answers, thoughts and tool calls. It reads as
-- codecompanion.nvim's chat does: wrapped at words, and what is long (a
-- thought, a tool's output, a subagent's run, a report's details) in
-- closed folds whose fold text says what they hold.
local M = {}

M.buf = nil
-- What the chat's keys do; set by the plugin (prompt, cancel).
M.actions = {}
-- The chat window's status line, left of its keys, as segments {text,
-- drop}; set by the plugin (model, mode, usage, what is running).
M.segments = function()
  return { { text = "Gemini" } }
end
M.keys = "<CR> prompt · <C-c> cancel · q close"
-- callId -> {mark, after, title, indent, location}: the call's line and
-- the last line of its block (answers, output, a subagent's run), as
-- extmarks, which lines inserted above them move; location is the file
-- the call is about, {path, line, mark}, mark on its line in the block.
local tool_lines = {}
-- The to-do list write_todos set, shown as the chat's plan: {first, last}
-- extmarks over its lines, which each list replaces in place.
local plan = nil
-- invoke_agent callId -> {last}: the subagent running under that call;
-- last is what its last line is ("text" or "lines").
local subagents = {}
local ns = vim.api.nvim_create_namespace("gemini-chat")
-- Each fold of the chat, as an extmark over its lines: folds are a
-- window's, so a window that shows the chat later makes them again.
local fold_ns = vim.api.nvim_create_namespace("gemini-chat-folds")
local last_kind = nil

local function windows()
  local wins = {}
  if M.buf then
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_buf(win) == M.buf then
        table.insert(wins, win)
      end
    end
  end
  return wins
end

-- Makes the fold of lines first..last (0-based) in win, closed; a window
-- whose 'foldmethod' the user changed from manual keeps its own folds.
local function fold_in(win, first, last)
  vim.api.nvim_win_call(win, function()
    pcall(vim.cmd, string.format("%d,%dfold", first + 1, last + 1))
  end)
end

--- Folds lines first..last (0-based) of the chat, closed, in every
--- window that shows it; one line is not folded.
local function fold(first, last)
  if last <= first then
    return
  end
  -- The range ends at the end of the fold's last line, so a line
  -- appended under the fold is not taken into it.
  local len = #(vim.api.nvim_buf_get_lines(M.buf, last, last + 1, false)[1] or "")
  vim.api.nvim_buf_set_extmark(M.buf, fold_ns, first, 0, { end_row = last, end_col = len })
  for _, win in ipairs(windows()) do
    fold_in(win, first, last)
  end
end

-- The chat's folds as {first, last} (0-based), from their extmarks.
local function folds()
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(M.buf, fold_ns, 0, -1, { details = true })) do
    local last = m[4].end_row
    if last > m[2] then
      table.insert(out, { m[2], last })
    end
  end
  return out
end
M.folds = folds

--- The text of a closed fold: its first line and how many lines it
--- hides (the chat window's 'foldtext').
function M.foldtext()
  local first = vim.v.foldstart
  local line = vim.fn.getline(first)
  local n = vim.v.foldend - first
  return string.format("%s  (%d more %s)", line, n, n == 1 and "line" or "lines")
end

--- Segments' texts as the status line shows them, " · " between.
function M.join(segments)
  local texts = {}
  for _, s in ipairs(segments) do
    table.insert(texts, s.text)
  end
  return table.concat(texts, " · ")
end

--- The segments that fit beside the keys in width columns, as lualine
--- does it: while the line is too wide, the segment with the lowest drop
--- rank goes; segments without one stay whatever the width.
function M.fit(segments, keys, width)
  local kept = vim.deepcopy(segments)
  -- "left keys ": a space before the keys and one after them.
  local room = width - vim.api.nvim_strwidth(keys) - 2
  while vim.api.nvim_strwidth(M.join(kept)) > room do
    local lowest
    for i, s in ipairs(kept) do
      if s.drop and (not lowest or s.drop < kept[lowest].drop) then
        lowest = i
      end
    end
    if not lowest then
      break
    end
    table.remove(kept, lowest)
  end
  return kept
end

local function escape(text)
  return (text:gsub("%%", "%%%%"))
end

--- The chat window's status line ('statusline' as %!): the segments that
--- fit, then the keys at the right. What a window too narrow even for the
--- model, the mode and the keys cuts is the end of the keys.
function M.statusline()
  local win = vim.g.statusline_winid or 0
  -- A global status line (laststatus=3) spans the screen.
  local width = vim.o.laststatus == 3 and vim.o.columns or vim.api.nvim_win_get_width(win)
  local left = M.join(M.fit(M.segments(), M.keys, width))
  return escape(left) .. " %=%<" .. escape(M.keys) .. " "
end

-- Sets up a window showing the chat: wrapped at words, indented lines
-- wrapped under their indent, the chat's folds, its status line.
local function dress(win)
  local wo = vim.wo[win]
  wo.wrap = true
  wo.linebreak = true
  wo.breakindent = true
  wo.foldenable = true
  wo.foldmethod = "manual"
  wo.foldtext = "v:lua.require'gemini.chat'.foldtext()"
  -- No dots after a fold's text: it reads as a line of the chat.
  wo.fillchars = "fold: "
  wo.statusline = "%!v:lua.require'gemini.chat'.statusline()"
  vim.api.nvim_win_call(win, function()
    vim.cmd("normal! zE")
  end)
  for _, f in ipairs(folds()) do
    fold_in(win, f[1], f[2])
  end
end

--- How many times a window has come to show the chat: what was told in
--- it before the last showing has been on screen.
M.showings = 0

function M.ensure()
  if M.buf and vim.api.nvim_buf_is_valid(M.buf) then
    return M.buf
  end
  M.buf = vim.api.nvim_create_buf(true, true)
  pcall(vim.api.nvim_buf_set_name, M.buf, "gemini://chat")
  vim.api.nvim_create_autocmd("BufWinEnter", {
    buffer = M.buf,
    callback = function()
      M.showings = M.showings + 1
    end,
  })
  vim.bo[M.buf].filetype = "markdown"
  vim.bo[M.buf].bufhidden = "hide"
  tool_lines, subagents, plan = {}, {}, nil
  local keys = {
    ["<CR>"] = { "prompt", "Gemini: ask" },
    ["<C-c>"] = { "cancel", "Gemini: cancel the running prompt" },
    q = { "close", "Gemini: close the chat window" },
    gf = { "follow", "Gemini: open the file of the call under the cursor, at its line" },
  }
  for key, k in pairs(keys) do
    vim.api.nvim_buf_set_keymap(M.buf, "n", key, "", {
      nowait = true,
      silent = true,
      desc = k[2],
      callback = function()
        if k[1] == "close" then
          pcall(vim.api.nvim_win_close, 0, false)
        elseif k[1] == "follow" then
          M.follow()
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
  dress(win)
  vim.api.nvim_set_current_win(cur)
  return win
end

--- Whether a window shows the chat.
function M.visible()
  return #windows() > 0
end

-- The server's warnings shown in the chat, by text: each once.
local told = {}

--- Shows a warning or an error of the server that no prompt's updates
--- carry (a broken settings file, an MCP server that did not start) in
--- the chat, where the user reads what Gemini says, once for each text;
--- the chat is made for it when there is none yet, and shows it when it
--- opens. level is "Warning" or "Error". Reports whether it was shown.
function M.notice(text, level)
  text = vim.trim((text or ""):gsub("^Gemini: ", ""))
  if text == "" or told[text] then
    return false
  end
  told[text] = true
  local lines = { "" }
  for i, line in ipairs(vim.split(text, "\n", { plain = true })) do
    table.insert(lines, (i == 1 and ("> " .. level .. ": ") or (line == "" and ">" or "> ")) .. line)
  end
  M.lines(lines)
  return true
end

--- Empties the chat (a session shown afresh); its folds go with its lines.
function M.clear()
  local buf = M.ensure()
  vim.api.nvim_buf_clear_namespace(buf, fold_ns, 0, -1)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
  for _, win in ipairs(windows()) do
    vim.api.nvim_win_call(win, function()
      vim.cmd("normal! zE")
    end)
  end
  tool_lines, subagents, last_kind, plan = {}, {}, nil, nil
end

local function scroll()
  local n = vim.api.nvim_buf_line_count(M.buf)
  for _, win in ipairs(windows()) do
    vim.api.nvim_win_set_cursor(win, { n, 0 })
  end
end

--- Appends whole lines; a line holding newlines (an error, a note of
--- several lines) is split there, as a buffer line cannot hold one.
--- Returns the 0-based row of the first line appended.
function M.lines(lines)
  local split = {}
  for _, line in ipairs(lines) do
    vim.list_extend(split, vim.split(line, "\n", { plain = true }))
  end
  lines = split
  local buf = M.ensure()
  local n = vim.api.nvim_buf_line_count(buf)
  local first = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1]
  local at = n
  if n == 1 and first == "" then
    at = 0
    vim.api.nvim_buf_set_lines(buf, 0, 1, false, lines)
  else
    vim.api.nvim_buf_set_lines(buf, n, n, false, lines)
  end
  last_kind = "lines"
  scroll()
  return at
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

-- words, when given, say more than the status: how an edit the user
-- took in part landed ("accepted in part: 1 of 2 changes", the server's
-- toolResult outcome).
local function tool_line(title, status, words)
  if type(words) ~= "string" or words == "" then
    words = status
  end
  return string.format("- %s %s (%s)", icons[status] or "?", title, words)
end

--- Marks a line of the chat, to find it again after lines are inserted.
local function mark(line, id)
  return vim.api.nvim_buf_set_extmark(M.buf, ns, line, 0, { id = id })
end

local function marked(id)
  local pos = vim.api.nvim_buf_get_extmark_by_id(M.buf, ns, id, {})
  return pos[1]
end

--- Notes a call's line (0-based row), which its block starts and ends at.
local function track(key, row, title, indent)
  tool_lines[key] = { mark = mark(row), after = mark(row), title = title, indent = indent }
end

-- Inserts lines at the end of call t's block; returns the first's row.
local function block_lines(t, lines)
  local at = marked(t.after) + 1
  vim.api.nvim_buf_set_lines(M.buf, at, at, false, lines)
  mark(at + #lines - 1, t.after)
  if at >= vim.api.nvim_buf_line_count(M.buf) - #lines then
    last_kind = "lines"
  end
  return at
end

local function set_tool_line(key, status, words)
  local t = tool_lines[key]
  if t then
    local row = marked(t.mark)
    local old = vim.api.nvim_buf_get_lines(M.buf, row, row + 1, false)[1] or ""
    -- The line's text, not the line: the marks on it stay on it.
    vim.api.nvim_buf_set_text(M.buf, row, 0, row, #old, { t.indent .. tool_line(t.title, status, words) })
    return true
  end
  return false
end

-- The tag the kind of a call is shown by, after its line; none for a
-- call of no particular kind.
local kind_ns = vim.api.nvim_create_namespace("gemini-chat-kinds")
local function tag_kind(t, kind)
  if type(kind) ~= "string" or kind == "" or kind == "other" then
    return
  end
  local row = marked(t.mark)
  vim.api.nvim_buf_set_extmark(M.buf, kind_ns, row, 0, { virt_text = { { "[" .. kind .. "]", "Comment" } }, virt_text_pos = "eol" })
end

--- The kind tags of the chat's lines, by 0-based row.
function M.kind_tags()
  local tags = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(M.buf, kind_ns, 0, -1, { details = true })) do
    tags[m[2]] = m[4].virt_text[1][1]
  end
  return tags
end

--- "main.go:12" for a call's location; "main.go" for a whole file.
function M.location_text(loc)
  return loc.line and loc.line > 0 and (loc.path .. ":" .. loc.line) or loc.path
end

-- The to-do statuses as the plan shows them.
local todo_icons = { pending = "○", in_progress = "◐", completed = "✓", cancelled = "⊘", blocked = "✗" }

--- The plan's lines for a to-do list: "> Plan:", then each item.
function M.plan_lines(todos)
  if #todos == 0 then
    return { "> Plan: none (the to-do list was cleared)" }
  end
  local lines = { "> Plan:" }
  for _, todo in ipairs(todos) do
    local status = todo.status or "pending"
    table.insert(lines, string.format("> %s %s", todo_icons[status] or "?", todo.description or ""))
  end
  return lines
end

--- Shows a to-do list as the chat's plan: the first at the end of the
--- chat, each later one in place of the last.
local function show_plan(todos)
  local lines = M.plan_lines(todos)
  if not plan then
    local at = M.lines(lines)
    plan = { first = mark(at), last = mark(at + #lines - 1) }
    return
  end
  local first, last = marked(plan.first), marked(plan.last)
  vim.api.nvim_buf_set_lines(M.buf, first, last + 1, false, lines)
  -- The replaced lines took the marks with them: set them anew.
  mark(first, plan.first)
  mark(first + #lines - 1, plan.last)
end

--- The 0-based rows the plan takes, first and last; nil when none.
function M.plan_rows()
  if plan then
    return marked(plan.first), marked(plan.last)
  end
end

--- The location of the call whose line, or location line, is row
--- (0-based); nil when none.
function M.location_at(row)
  for _, t in pairs(tool_lines) do
    if t.location and (marked(t.location.mark) == row or marked(t.mark) == row) then
      return t.location
    end
  end
end

-- A window to open a file in from the chat: the last one used that is
-- not the chat's, else a new split.
local function editing_window()
  local prev = vim.fn.win_getid(vim.fn.winnr("#"))
  if prev ~= 0 and vim.api.nvim_win_get_buf(prev) ~= M.buf then
    return prev
  end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) ~= M.buf then
      return win
    end
  end
  vim.cmd("aboveleft vsplit")
  return vim.api.nvim_get_current_win()
end

-- The directory the server names files from: its workspace root.
local function root()
  local ok, gemini = pcall(require, "gemini")
  local client = ok and gemini.client and gemini.client()
  return client and client.config.root_dir or vim.loop.cwd()
end

--- Opens the file of the call under the cursor (its line, or its
--- location's line) at its line, in the window the user edits in; on
--- any other line, gf as Neovim has it.
function M.follow()
  local loc = M.location_at(vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not loc then
    pcall(vim.cmd, "normal! gf")
    return
  end
  local path = loc.path
  if not path:match("^/") and not path:match("^%a:[/\\]") then
    path = root() .. "/" .. path
  end
  vim.api.nvim_set_current_win(editing_window())
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  if loc.line and loc.line > 0 then
    pcall(vim.api.nvim_win_set_cursor, 0, { loc.line, 0 })
  end
end

-- Indents each line that is not empty.
local function indent(lines, by)
  local out = {}
  for i, l in ipairs(lines) do
    out[i] = l == "" and "" or (by .. l)
  end
  return out
end

--- The call a subagent runs under, made on its first update: the
--- invoke_agent call's line, or one at the end when the chat missed it.
local function subagent_of(u)
  local f = subagents[u.parentCallId]
  if f then
    return f, tool_lines[u.parentCallId]
  end
  if not tool_lines[u.parentCallId] then
    local row = M.lines({ tool_line(u.agentName or "subagent", "running") })
    track(u.parentCallId, row, u.agentName or "subagent", "")
  end
  f = {}
  subagents[u.parentCallId] = f
  return f, tool_lines[u.parentCallId]
end

--- The key of a subagent's call in tool_lines: each subagent numbers its
--- calls its own way, so its call_1 is not the main agent's.
local function sub_key(u)
  return u.parentCallId .. "/" .. (u.callId or "")
end

--- Shows a subagent's update under its invoke_agent call, indented, as
--- it runs: its text, thoughts' subjects and calls; not its usage. The
--- call's result folds it.
local function subagent_update(u)
  local f, parent = subagent_of(u)
  if u.kind == "text" then
    if f.last ~= "text" then
      -- A paragraph: a blank line, then the line the text goes on.
      block_lines(parent, { "", "" })
    end
    local at = marked(parent.after)
    local last = vim.api.nvim_buf_get_lines(M.buf, at, at + 1, false)[1] or ""
    local parts = vim.split(last .. (u.text or ""), "\n", { plain = true })
    if last == "" and parts[1] ~= "" then
      parts[1] = "    " .. parts[1]
    end
    for i = 2, #parts do
      parts[i] = parts[i] == "" and "" or ("    " .. parts[i])
    end
    vim.api.nvim_buf_set_lines(M.buf, at, at + 1, false, parts)
    mark(at + #parts - 1, parent.after)
    f.last = "text"
    scroll()
    return
  end
  f.last = "lines"
  if u.kind == "thought" then
    block_lines(parent, { "    > Thought: " .. (u.subject or "") })
  elseif u.kind == "toolCall" then
    local title = u.title or u.name
    local at = block_lines(parent, { "    " .. tool_line(title, "running") })
    track(sub_key(u), at, title, "    ")
  elseif u.kind == "toolResult" then
    if not set_tool_line(sub_key(u), u.status) then
      block_lines(parent, { "    " .. tool_line(u.title or u.name, u.status) })
    end
  elseif u.kind == "error" then
    block_lines(parent, { "    Error: " .. (u.message or "") })
  elseif u.kind == "retry" then
    block_lines(parent, { "    > " .. M.retry_note(u) })
  end
  scroll()
end

-- "SummaryOfFindings" as a person writes it: "Summary of findings".
local function words(key)
  local s = tostring(key):gsub("_", " "):gsub("(%l)(%u)", "%1 %2")
  return s:sub(1, 1):upper() .. s:sub(2):lower()
end

local islist = vim.islist or vim.tbl_islist

local function sorted_keys(t)
  local keys = vim.tbl_keys(t)
  table.sort(keys, function(a, b)
    return tostring(a) < tostring(b)
  end)
  return keys
end

-- A decoded JSON value as indented lines of plain text, as 0.61's
-- jsonToMarkdown lays a report out, without its Markdown markup.
local function value_lines(v, pad)
  local out = {}
  if type(v) ~= "table" then
    local s = (v == nil or v == vim.NIL) and "none" or tostring(v)
    for _, l in ipairs(vim.split(s, "\n", { plain = true })) do
      table.insert(out, pad .. l)
    end
    return out
  end
  if next(v) == nil then
    return { pad .. "none" }
  end
  if islist(v) then
    for _, item in ipairs(v) do
      local sub = value_lines(item, pad .. "  ")
      sub[1] = pad .. "- " .. sub[1]:sub(#pad + 3)
      vim.list_extend(out, sub)
    end
    return out
  end
  for _, k in ipairs(sorted_keys(v)) do
    local val = v[k]
    if type(val) == "table" and next(val) ~= nil then
      table.insert(out, pad .. words(k) .. ":")
      vim.list_extend(out, value_lines(val, pad .. "  "))
    else
      local sub = value_lines(val, pad .. "  ")
      sub[1] = pad .. words(k) .. ": " .. sub[1]:sub(#pad + 3)
      vim.list_extend(out, sub)
    end
  end
  return out
end

--- A subagent's report as the chat shows it: a structured one (a JSON
--- object, as the server fences it) as its summary in prose and its
--- other fields as details; any other report as it is. Returns the
--- prose lines and the details' lines (nil when none).
function M.report(display)
  local body = (display or ""):match("^%s*```json%s*\n(.*)\n```%s*$")
  local ok, data = pcall(vim.fn.json_decode, body or "")
  if not body or not ok or type(data) ~= "table" or islist(data) then
    return vim.split(display or "", "\n", { plain = true }), nil
  end
  local summary
  for _, k in ipairs(sorted_keys(data)) do
    if not summary and type(data[k]) == "string" and tostring(k):lower():find("summary", 1, true) then
      summary = k
    end
  end
  local prose = summary and vim.split(data[summary], "\n", { plain = true }) or {}
  local rest = {}
  for k, v in pairs(data) do
    if k ~= summary then
      rest[k] = v
    end
  end
  if next(rest) == nil then
    return prose, nil
  end
  local names = {}
  for _, k in ipairs(sorted_keys(rest)) do
    table.insert(names, words(k))
  end
  local details = { "Details: " .. table.concat(names, ", ") }
  vim.list_extend(details, value_lines(rest, "  "))
  return prose, details
end

-- Ends a subagent's run at its invoke_agent call's result: its run folded
-- under the call's line, then its report, the details folded.
local function end_subagent(t, display)
  local first, last = marked(t.mark), marked(t.after)
  fold(first, last)
  if not display or display == "" then
    return
  end
  local prose, details = M.report(display)
  if #prose > 0 then
    block_lines(t, indent(prose, "  "))
  end
  if details then
    local at = block_lines(t, indent(details, "  "))
    fold(at, at + #details - 1)
  end
end

--- Shows what a call's result displays under its line, folded; a call
--- whose question was answered here has its answer there already.
local function tool_output(t, display)
  if t.answered or not display or display == "" then
    return
  end
  local lines = indent(vim.split(display, "\n", { plain = true }), t.indent .. "  ")
  block_lines(t, lines)
  fold(marked(t.mark), marked(t.after))
end

--- Records the user's answer to a question under the call that asked it
--- (or at the end, for a question no call of the chat asked). With
--- is_output, the answer is what the call's output would say (ask_user's
--- "User answered: …"), which is then not shown again.
function M.answer(callId, text, is_output)
  local t = callId and tool_lines[callId]
  local lines = vim.split(text, "\n", { plain = true })
  if t then
    t.answered = is_output
    block_lines(t, indent(lines, t.indent .. "  "))
  else
    M.lines(indent(lines, "> "))
  end
  scroll()
end

--- Whether the chat shows the call callId (its line says what it asks).
function M.shows_call(callId)
  return callId ~= nil and tool_lines[callId] ~= nil
end

-- What each kind of gemini/update shows in the chat, by kind: every kind
-- has one, those that show nothing here (a statusline's, the "/"
-- commands') included.
local handlers = {}
M.handlers = handlers

function handlers.text(u)
  M.text(u.text or "")
end

function handlers.thought(u)
  local lines = { "> Thought: " .. (u.subject or "") }
  if u.description and u.description ~= "" then
    for _, l in ipairs(vim.split(u.description, "\n", { plain = true })) do
      table.insert(lines, l == "" and ">" or ("> " .. l))
    end
  end
  local at = M.lines(lines)
  fold(at, at + #lines - 1)
end

function handlers.toolCall(u)
  local title = u.title or u.name
  local row = M.lines({ tool_line(title, "running") })
  track(u.callId, row, title, "")
  local t = tool_lines[u.callId]
  tag_kind(t, u.toolKind)
  if type(u.path) == "string" and u.path ~= "" then
    t.location = { path = u.path, line = tonumber(u.line) }
    local at = block_lines(t, { "  → " .. M.location_text(t.location) })
    t.location.mark = mark(at)
  end
  if type(u.todos) == "table" then
    show_plan(u.todos)
  end
end

function handlers.toolResult(u)
  local t = tool_lines[u.callId]
  if not set_tool_line(u.callId, u.status, u.outcome) then
    local row = M.lines({ tool_line(u.title or u.name, u.status, u.outcome) })
    track(u.callId, row, u.title or u.name, "")
    t = tool_lines[u.callId]
  end
  if subagents[u.callId] then
    -- An invoke_agent call's result is its subagent's report.
    subagents[u.callId] = nil
    end_subagent(t, u.display)
  else
    tool_output(t, u.display)
  end
  scroll()
end

function handlers.error(u)
  M.lines({ "", "Error: " .. (u.message or "") })
end

function handlers.retry(u)
  M.lines({ "> " .. M.retry_note(u) })
end

function handlers.notice(u)
  local lines = {}
  for i, line in ipairs(vim.split(u.message or "", "\n", { plain = true })) do
    table.insert(lines, (i == 1 and "> Note: " or "> ") .. line)
  end
  M.lines(lines)
end

function handlers.mode(u)
  M.lines({ "> Mode: " .. M.mode_name(u.mode) })
end

function handlers.compressed(u)
  M.lines({
    string.format("> Note: the conversation was compressed (%s → %s tokens)", u.tokensBefore or "?", u.tokensAfter or "?"),
  })
end

function handlers.topic(u)
  local lines = M.topic_lines(u)
  if #lines > 0 then
    M.lines(lines)
  end
end

-- The statusline shows the model, and the model that answered.
function handlers.usage() end
function handlers.model() end
-- The "/" commands are the prompt's (gemini.commands), not the chat's.
function handlers.commands() end

-- The plan the model wrote as a checklist (or none offered write_todos):
-- the chat's plan, as write_todos' list.
function handlers.plan(u)
  if type(u.todos) == "table" then
    show_plan(u.todos)
  end
end

--- Shows an update in the chat: a subagent's under its call, the main
--- agent's by its kind's handler; a kind without one shows nothing.
function M.update(u)
  if u.parentCallId and u.parentCallId ~= "" then
    return subagent_update(u)
  end
  local handle = handlers[u.kind]
  if handle then
    handle(u)
  end
end

--- A topic update (update_topic) as the chat's lines: "> Topic: <title>",
--- with the summary when the title starts a new topic, then what the
--- model means to do now.
function M.topic_lines(u)
  local lines = {}
  local title = vim.trim(u.title or "")
  local summary = u.newTopic == true and vim.trim(u.text or "") or ""
  if title ~= "" then
    table.insert(lines, "> Topic: " .. title .. (summary ~= "" and (" — " .. summary) or ""))
  end
  local intent = vim.trim(u.intent or "")
  if intent ~= "" then
    for _, line in ipairs(vim.split(intent, "\n", { plain = true })) do
      table.insert(lines, "> " .. line)
    end
  end
  return lines
end

-- Approval modes as Gemini CLI 0.61's footer names them.
local mode_names = { default = "manual", auto_edit = "auto-accept edits", plan = "plan", yolo = "YOLO" }

--- An approval mode as 0.61 names it to users: "manual", "auto-accept
--- edits", "plan", "YOLO".
function M.mode_name(mode)
  return mode_names[mode or "default"] or tostring(mode)
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
  cancelled = "Cancelled.",
  max_tokens = "Stopped: the answer reached the model's output limit; what came is above.",
  max_turns = "Stopped: the session reached its limit of model requests.",
  error = "Stopped by an error.",
  loop_detected = "Stopped: Gemini was repeating itself (a loop was detected), so the turn was ended. Rephrase or narrow the request to go on.",
}

--- How a prompt's end shows in the chat, in words; nil when it simply
--- ended (the answer says so itself).
function M.stop_note(reason)
  if reason == nil or reason == "end_turn" then
    return nil
  end
  return stop_notes[reason] or ("Stopped (" .. reason .. ").")
end

return M
