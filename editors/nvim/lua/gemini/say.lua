-- How the plugin tells the user something outside the chat: one readable
-- line, always, in every Neovim from 0.7. A message of several lines on
-- the command line stops Neovim at "Press ENTER", and one given to
-- `echomsg string(...)` breaks the command at its newline (E115); so the
-- lines are joined, and text whose lines matter (a compiler's output)
-- goes to a scratch window (M.output) or the chat, never the command line.
local M = {}

--- text as one line: its lines, trimmed, the empty ones left out, joined
--- with " | "; other control characters (a tab, a carriage return) are
--- spaces.
function M.line(text)
  local parts = {}
  for _, l in ipairs(vim.split(tostring(text), "\n", { plain = true })) do
    l = vim.trim((l:gsub("%c", " ")))
    if l ~= "" then
      table.insert(parts, l)
    end
  end
  return table.concat(parts, " | ")
end

--- text cut to width screen cells, an ellipsis ending what was cut.
function M.fit(text, width)
  if vim.fn.strdisplaywidth(text) <= width then
    return text
  end
  local n = vim.fn.strchars(text)
  while n > 0 and vim.fn.strdisplaywidth(vim.fn.strcharpart(text, 0, n) .. "…") > width do
    n = n - 1
  end
  return n > 0 and vim.fn.strcharpart(text, 0, n) .. "…" or ""
end

-- Whether vim.notify is Neovim's own, which shows a message on the
-- command line, not another plugin's (nvim-notify, noice) in a window.
-- Neovim's own Lua names its file (vim/_editor.lua), or, built into the
-- binary without debug information as from 0.12, none ("?"); a plugin's
-- always names its file.
local function builtin_notify()
  local info = debug.getinfo(vim.notify, "S")
  local source = info and info.source or ""
  return source:match("vim/_editor%.lua$") ~= nil or source == "?"
end

local highlights = { [vim.log.levels.ERROR] = "ErrorMsg", [vim.log.levels.WARN] = "WarningMsg" }

--- Says msg in one line (M.line), whole in :messages; on the command
--- line, longer than the line has room for (v:echospace), Neovim would
--- stop for Enter, so it is cut in the middle there, as Neovim cuts its
--- own messages ('shortmess' T). vim.notify says it where it is another
--- plugin's, or no screen shows it.
function M.tell(msg, level)
  msg = M.line(msg)
  if #vim.api.nvim_list_uis() == 0 or not builtin_notify() or vim.fn.strdisplaywidth(msg) <= vim.v.echospace then
    return vim.notify(msg, level)
  end
  local shortmess = vim.o.shortmess
  vim.opt.shortmess:append("T")
  -- echomsg, which 'shortmess' T cuts (nvim_echo does not), of one line
  -- without control characters: string() makes it one quoted Ex argument.
  vim.cmd("echohl " .. (level and highlights[level] or "None"))
  vim.cmd("echomsg " .. vim.fn.string(msg))
  vim.cmd("echohl None")
  vim.o.shortmess = shortmess
end

--- Shows text, whose lines matter, in a scratch buffer named name, in a
--- window at the bottom showing its end; the cursor stays in the window
--- it was in. Returns the buffer.
function M.output(name, text)
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_buf_set_name(buf, name)
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, "\n", { plain = true }))
  vim.bo[buf].modifiable = false
  if vim.fn.bufwinid(buf) == -1 and #vim.api.nvim_list_uis() > 0 then
    local back = vim.api.nvim_get_current_win()
    vim.cmd("botright sbuffer " .. buf)
    vim.api.nvim_win_set_height(0, math.min(10, math.max(3, vim.api.nvim_buf_line_count(buf))))
    vim.api.nvim_set_current_win(back)
  end
  -- Its end in view: a compiler's errors come last, after its chatter
  -- (go: downloading …).
  local win = vim.fn.bufwinid(buf)
  if win ~= -1 then
    vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(buf), 0 })
  end
  return buf
end

return M
