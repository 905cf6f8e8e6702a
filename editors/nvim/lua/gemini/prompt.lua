-- The chat's prompt area: a scratch buffer in a split under the chat
-- window, where a prompt is typed over several lines and sent with a key,
-- as codecompanion.nvim and avante.nvim give one. Its history is the
-- session's prompts; "/" at a line's start completes the user's commands
-- and "@" the workspace's files (omnifunc).
local M = {}

M.buf = nil
-- The prompts sent, oldest first (every prompt, however it was sent).
M.history = {}
-- Where <Up>/<Down> are in the history: #history + 1 is the draft.
local pos = 1
local draft = nil
-- The context :'<,'>Gemini (no text) gave, sent with the next prompt.
local pending_context = nil
-- How many workspace files "@" offers at most: a big checkout must not
-- stall typing.
M.max_files = 2000
M.height = 6

M.hints = "<C-s> send · <C-c> cancel · <Up>/<Down> history · / commands · @ files"

local function gemini()
  return require("gemini")
end

--- Records a prompt sent, for <Up>/<Down>.
function M.remember(text)
  if M.history[#M.history] ~= text then
    table.insert(M.history, text)
  end
  pos, draft = #M.history + 1, nil
end

local function set_text(text)
  vim.api.nvim_buf_set_lines(M.buf, 0, -1, false, vim.split(text or "", "\n", { plain = true }))
  local n = vim.api.nvim_buf_line_count(M.buf)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == M.buf then
      vim.api.nvim_win_set_cursor(win, { n, #vim.api.nvim_buf_get_lines(M.buf, n - 1, n, false)[1] })
    end
  end
end

local function text()
  return table.concat(vim.api.nvim_buf_get_lines(M.buf, 0, -1, false), "\n")
end

--- Steps through the history: -1 older, +1 newer (back to the draft).
function M.step(dir)
  M.ensure()
  local to = pos + dir
  if to < 1 or to > #M.history + 1 then
    return
  end
  if pos == #M.history + 1 then
    draft = text()
  end
  pos = to
  set_text(pos == #M.history + 1 and draft or M.history[pos])
end

--- Sends what the area holds, as typed (newlines kept), and empties it.
function M.send()
  M.ensure()
  local t = text()
  if t:match("^%s*$") then
    return
  end
  local ctx = pending_context
  pending_context = nil
  set_text("")
  gemini().prompt(t, ctx)
end

--- The completions of the word before the cursor: "/name" at the start
--- of the first line, "@path" anywhere.
function M.omnifunc(findstart, base)
  if findstart == 1 then
    local line = vim.api.nvim_get_current_line()
    local col = vim.api.nvim_win_get_cursor(0)[2]
    local before = line:sub(1, col)
    if vim.api.nvim_win_get_cursor(0)[1] == 1 and before:match("^/%S*$") then
      return 0
    end
    local at = before:match("()@[^%s@]*$")
    if at then
      return at - 1
    end
    return -3
  end
  local items = {}
  if base:sub(1, 1) == "/" then
    for _, c in ipairs(gemini().commands.items(base)) do
      table.insert(items, { word = "/" .. c.name, menu = (c.description or ""):gsub("%s+", " "), icase = 1 })
    end
  elseif base:sub(1, 1) == "@" then
    local want = base:sub(2)
    for _, f in ipairs(M.files()) do
      if want == "" or f:find(want, 1, true) then
        table.insert(items, { word = "@" .. f, menu = "file" })
      end
    end
  end
  return items
end

--- The workspace's files, relative: git's list in a checkout, else a
--- glob; at most M.max_files.
function M.files()
  local out = {}
  local listed = vim.fn.systemlist({ "git", "ls-files", "--cached", "--others", "--exclude-standard" })
  if vim.v.shell_error ~= 0 then
    listed = vim.fn.glob("**/*", false, true)
  end
  for _, f in ipairs(listed) do
    if #out >= M.max_files then
      break
    end
    if vim.fn.isdirectory(f) == 0 then
      table.insert(out, f)
    end
  end
  return out
end

local function map(modes, lhs, fn, desc, expr)
  for _, mode in ipairs(modes) do
    vim.api.nvim_buf_set_keymap(M.buf, mode, lhs, "", { noremap = true, nowait = true, silent = true, expr = expr, callback = fn, desc = desc })
  end
end

local omni = vim.api.nvim_replace_termcodes("<C-x><C-o>", true, false, true)

-- The prompt area's 'completeopt': the menu, even of one item, with
-- nothing inserted until the user picks, so typing "/model" after "/"
-- gives "/model" whatever the user's own setting (with "menu" alone the
-- first item, "/about", went in before "model" was typed).
M.completeopt = "menuone,noinsert"

-- own_completeopt gives buf M.completeopt: buffer-local from Neovim 0.11,
-- where the option can be; before, the global one while buf is the
-- current buffer, the user's put back when it is left.
local function own_completeopt(buf)
  if vim.fn.has("nvim-0.11") == 1 then
    vim.bo[buf].completeopt = M.completeopt
    return
  end
  local users
  vim.api.nvim_create_autocmd("BufEnter", { buffer = buf, callback = function()
    users = users or vim.o.completeopt
    vim.o.completeopt = M.completeopt
  end })
  vim.api.nvim_create_autocmd("BufLeave", { buffer = buf, callback = function()
    if users then
      vim.o.completeopt, users = users, nil
    end
  end })
end

function M.ensure()
  if M.buf and vim.api.nvim_buf_is_valid(M.buf) then
    return M.buf
  end
  M.buf = vim.api.nvim_create_buf(false, true)
  pcall(vim.api.nvim_buf_set_name, M.buf, "gemini://prompt")
  vim.bo[M.buf].buftype = "nofile"
  vim.bo[M.buf].bufhidden = "hide"
  vim.bo[M.buf].swapfile = false
  vim.bo[M.buf].filetype = "markdown"
  vim.bo[M.buf].omnifunc = "v:lua.require'gemini.prompt'.omnifunc"
  own_completeopt(M.buf)
  pos, draft = #M.history + 1, nil
  map({ "i", "n" }, "<C-s>", M.send, "Gemini: send the prompt")
  map({ "n" }, "<CR>", M.send, "Gemini: send the prompt")
  map({ "i", "n" }, "<C-c>", function()
    gemini().cancel()
  end, "Gemini: cancel the running prompt")
  for _, k in ipairs({ { "<Up>", -1 }, { "<C-p>", -1 }, { "<Down>", 1 }, { "<C-n>", 1 } }) do
    map({ "n" }, k[1], function()
      M.step(k[2])
    end, "Gemini: prompt history")
  end
  -- Typing "/" at the start or "@" opens their completion at once.
  map({ "i" }, "/", function()
    local row, col = unpack(vim.api.nvim_win_get_cursor(0))
    if row == 1 and col == 0 and vim.fn.pumvisible() == 0 then
      return "/" .. omni
    end
    return "/"
  end, "Gemini: complete commands", true)
  map({ "i" }, "@", function()
    return vim.fn.pumvisible() == 0 and ("@" .. omni) or "@"
  end, "Gemini: complete files", true)
  return M.buf
end

local function hints(win)
  if vim.fn.has("nvim-0.8") == 1 then
    vim.wo[win].winbar = M.hints
  else
    vim.wo[win].statusline = M.hints
  end
end

--- The prompt area's window in this tab, opened under the chat window
--- when there is none; focused (in insert mode when insert is true).
--- ctx: the context the next prompt is sent with.
function M.open(ctx, insert)
  pending_context = ctx
  local buf = M.ensure()
  local chat = gemini().chat
  local win
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(w) == buf then
      win = w
    end
  end
  if not win then
    local chat_win = chat.show()
    vim.api.nvim_set_current_win(chat_win)
    vim.cmd("belowright " .. M.height .. "split")
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, buf)
    vim.wo[win].winfixheight = true
    vim.wo[win].wrap = true
    hints(win)
  end
  vim.api.nvim_set_current_win(win)
  if insert ~= false then
    vim.cmd("startinsert!")
  end
  return win
end

return M
