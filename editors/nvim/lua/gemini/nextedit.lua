-- Next edit suggestions: after the user's edits pause (or on
-- :Gemini nextedit), gemini-ls predicts the next edit, anywhere in the
-- file (gemini/nextEdit), for the buffer's version as the LSP client sent
-- it. The plugin shows it where it goes: the text it replaces highlighted,
-- the lines as they would read below them; the accept key applies it only
-- if the buffer is still at that version; Esc dismisses it. An edit out of
-- the window's view is said at the cursor, and the accept key first jumps
-- to it.
local attached = require("gemini.attached")
local pos = require("gemini.pos")

local M = {}

M.ns = vim.api.nvim_create_namespace("gemini_next_edit")

M.config = {
  enabled = true, -- ask when edits pause
  debounce = 500, -- ms of quiet after an edit before asking
  accept = "<Tab>", -- while one is shown (normal mode; insert mode through completion's key)
  dismiss = "<Esc>", -- normal mode, while one is shown
}

-- buf -> { timer, request (id), client, edits, version, maps (keys we mapped) }
M.state = {}

local gemini -- the plugin's main module, set by setup

local function st(buf)
  M.state[buf] = M.state[buf] or {}
  return M.state[buf]
end

--- The buffer's version as the LSP client last sent it (didOpen, didChange);
--- not changedtick, which Neovim 0.7 numbers differently.
function M.version(buf)
  return vim.lsp.util.buf_versions[buf]
end

local function unmap(buf, s)
  for _, lhs in ipairs(s.maps or {}) do
    pcall(vim.keymap.del, "n", lhs, { buffer = buf })
  end
  s.maps = nil
end

--- Hides the next edit shown in buf.
function M.clear(buf)
  buf = (buf == nil or buf == 0) and vim.api.nvim_get_current_buf() or buf
  local s = M.state[buf]
  if s then
    s.edits, s.version, s.jump = nil, nil, nil
    unmap(buf, s)
  end
  if vim.api.nvim_buf_is_valid(buf) then
    vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  end
end

--- Stops the request under way for buf and hides what it shows.
function M.abort(buf)
  local s = M.state[buf]
  if s then
    attached.stop_timer(s)
    attached.cancel_request(s)
  end
  M.clear(buf)
end

--- Whether buf shows a next edit that still applies.
function M.visible(buf)
  buf = (buf == nil or buf == 0) and vim.api.nvim_get_current_buf() or buf
  local s = M.state[buf]
  return s ~= nil and s.edits ~= nil and s.version == M.version(buf)
end

-- Byte offset of LSP position p in lines (the buffer's lines from row
-- first), and the text those lines make.
local function apply_to_lines(lines, first, edits, enc)
  local text = table.concat(lines, "\n")
  local starts = {}
  local at = 0
  for i, l in ipairs(lines) do
    starts[i] = at
    at = at + #l + 1
  end
  local function offset(p)
    local i = p.line - first + 1
    return starts[i] + pos.byte(lines[i], p.character, enc)
  end
  local sorted = vim.deepcopy(edits)
  table.sort(sorted, function(a, b)
    if a.range.start.line ~= b.range.start.line then
      return a.range.start.line > b.range.start.line
    end
    return a.range.start.character > b.range.start.character
  end)
  for _, e in ipairs(sorted) do
    local s, f = offset(e.range.start), offset(e.range["end"])
    text = text:sub(1, s) .. (e.text or e.newText or "") .. text:sub(f + 1)
  end
  return vim.split(text, "\n", { plain = true })
end

local function key_label(key)
  return key and key ~= "" and key or nil
end

-- Shows edits in buf: the replaced text highlighted, and below the lines
-- they touch, those lines as the edits make them.
local function show(buf, client, edits, version)
  M.clear(buf)
  local enc = client.offset_encoding or "utf-16"
  local count = vim.api.nvim_buf_line_count(buf)
  local first, last = math.huge, -1
  for _, e in ipairs(edits) do
    first = math.min(first, e.range.start.line)
    last = math.max(last, e.range["end"].line)
  end
  if first > last or last >= count + 1 then
    return
  end
  last = math.min(last, count - 1)
  local lines = vim.api.nvim_buf_get_lines(buf, first, last + 1, false)
  local ok, new = pcall(apply_to_lines, lines, first, edits, enc)
  if not ok then
    return
  end
  for _, e in ipairs(edits) do
    local r1, c1 = pos.from_lsp(buf, e.range.start, enc)
    local r2, c2 = pos.from_lsp(buf, e.range["end"], enc)
    if r1 < r2 or c1 < c2 then
      vim.api.nvim_buf_set_extmark(buf, M.ns, r1, c1, { end_row = r2, end_col = c2, hl_group = "GeminiNextEditDelete" })
    end
  end
  local virt_lines = {}
  for _, l in ipairs(new) do
    table.insert(virt_lines, { { l, "GeminiNextEditAdd" } })
  end
  local hint = {}
  local accept, dismiss = key_label(M.config.accept), key_label(M.config.dismiss)
  if accept or dismiss then
    hint = { { "  Gemini: " .. table.concat(vim.tbl_filter(function(x) return x end, {
      accept and (accept .. " accepts") or false, dismiss and (dismiss .. " dismisses") or false,
    }), ", "), "GeminiNextEditHint" } }
  end
  vim.api.nvim_buf_set_extmark(buf, M.ns, last, 0, { virt_lines = virt_lines, virt_text = hint, virt_text_pos = "eol" })
  local s = st(buf)
  s.edits, s.version, s.client = edits, version, client
  s.jump = nil -- the hint's extmark, when the edit is out of view
  -- Out of view: said at the cursor, and the accept key jumps there first.
  local win = vim.fn.bufwinid(buf)
  if win ~= -1 and (first + 1 < vim.fn.line("w0", win) or last + 1 > vim.fn.line("w$", win)) then
    local row = vim.api.nvim_win_get_cursor(win)[1] - 1
    s.jump = vim.api.nvim_buf_set_extmark(buf, M.ns, row, 0, { virt_text = { { "  Gemini: next edit at line " .. (first + 1)
      .. (accept and (", " .. accept .. " jumps there") or ""), "GeminiNextEditHint" } }, virt_text_pos = "eol" })
  end
  -- Keys of normal mode, while it is shown, unless the buffer maps them.
  s.maps = {}
  local function map(lhs, fn, desc)
    if not lhs then
      return
    end
    local existing = vim.fn.maparg(lhs, "n", false, true)
    if type(existing) == "table" and existing.buffer == 1 and not (existing.desc or ""):match("^Gemini:") then
      return
    end
    vim.keymap.set("n", lhs, fn, { buffer = buf, desc = desc })
    table.insert(s.maps, lhs)
  end
  vim.api.nvim_buf_call(buf, function()
    map(accept, function() M.accept(buf) end, "Gemini: accept the next edit")
    map(dismiss, function() M.clear(buf) end, "Gemini: dismiss the next edit")
  end)
end

--- Asks gemini-ls for the next edit in buf at the cursor (or at position,
--- an LSP position); on_done(err, edits) once it is answered (edits nil
--- when the answer was dropped: the buffer changed meanwhile).
function M.request(buf, on_done)
  buf = (buf == nil or buf == 0) and vim.api.nvim_get_current_buf() or buf
  local s = st(buf)
  attached.stop_timer(s)
  attached.cancel_request(s)
  local client = attached.client(buf)
  if not client then
    if on_done then
      on_done({ message = "gemini-ls is not attached to this buffer" })
    end
    return
  end
  local enc = client.offset_encoding or "utf-16"
  local win = vim.fn.bufwinid(buf)
  local position = pos.cursor(buf, enc, win ~= -1 and win or 0)
  -- didChange goes before the request: Neovim flushes the buffer's
  -- changes to the client ahead of a request for it.
  local version = M.version(buf)
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf), version = version }, position = position }
  local id
  local ok, rid = gemini.client_call(client, "request", "gemini/nextEdit", params, function(err, result)
    if s.request ~= id then
      return
    end
    s.request = nil
    if err or type(result) ~= "table" or not vim.api.nvim_buf_is_valid(buf) then
      if on_done then
        on_done(err or { message = "no answer" })
      end
      return
    end
    if M.version(buf) ~= version then
      if on_done then
        on_done(nil, nil) -- the buffer moved on: the edit would not apply
      end
      return
    end
    local edits = result.edits or {}
    if #edits > 0 then
      show(buf, client, edits, version)
    else
      M.clear(buf)
    end
    if on_done then
      on_done(nil, edits)
    end
  end, buf)
  if ok then
    id = rid
    s.request, s.client = rid, client
  end
end

--- Applies the next edit shown in buf (the current one when nil) if the
--- buffer is still at the version it was predicted for, and runs its
--- command; false when there is none or it no longer applies.
function M.accept(buf)
  buf = (buf == nil or buf == 0) and vim.api.nvim_get_current_buf() or buf
  local s = M.state[buf]
  if not s or not s.edits then
    return false
  end
  local win = vim.fn.bufwinid(buf)
  if s.jump and win ~= -1 and s.version == M.version(buf) then
    local row, col = pos.from_lsp(buf, s.edits[1].range.start, s.client.offset_encoding or "utf-16")
    pcall(vim.api.nvim_buf_del_extmark, buf, M.ns, s.jump)
    s.jump = nil
    vim.api.nvim_win_call(win, function()
      vim.cmd("normal! m'")
      vim.api.nvim_win_set_cursor(win, { row + 1, col })
    end)
    return true
  end
  local edits, version, client = s.edits, s.version, s.client
  M.clear(buf)
  if version ~= M.version(buf) then
    require("gemini.say").tell("Gemini: the next edit no longer applies: the buffer changed", vim.log.levels.WARN)
    return false
  end
  local text_edits = {}
  for _, e in ipairs(edits) do
    table.insert(text_edits, { range = e.range, newText = e.text or e.newText or "" })
  end
  vim.lsp.util.apply_text_edits(text_edits, buf, client.offset_encoding or "utf-16")
  attached.run_command(client, edits[1].command)
  return true
end

-- After a change: what was shown no longer applies; a new request waits
-- for the edits to pause.
local function on_change(buf)
  local s = st(buf)
  if s.edits and s.version ~= M.version(buf) then
    M.clear(buf)
  end
  if not M.config.enabled then
    return
  end
  attached.stop_timer(s)
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  s.timer = vim.defer_fn(function()
    s.timer = nil
    if not vim.api.nvim_buf_is_valid(buf) or vim.api.nvim_buf_get_changedtick(buf) ~= tick
      or vim.api.nvim_get_current_buf() ~= buf then
      return
    end
    -- In insert mode a completion shown, or on its way, comes first.
    local complete = require("gemini.complete")
    if vim.api.nvim_get_mode().mode:match("^i") and (complete.visible(buf) or complete.pending(buf)) then
      return
    end
    M.request(buf)
  end, M.config.debounce)
end

--- Sets up next edits in buf.
function M.attach(buf)
  local s = st(buf)
  if s.attached or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  s.attached = true
  local group = vim.api.nvim_create_augroup("gemini_next_edit_" .. buf, { clear = true })
  vim.api.nvim_create_autocmd({ "TextChanged", "TextChangedI" }, {
    group = group,
    buffer = buf,
    callback = function()
      on_change(buf)
    end,
  })
  attached.on_end(group, buf, { "BufLeave" }, M.abort, function(b)
    M.state[b] = nil
  end)
end

function M.setup(main, opts)
  gemini = main
  M.config = vim.tbl_extend("force", M.config, opts or {})
  vim.api.nvim_set_hl(0, "GeminiNextEditDelete", { link = "DiffDelete", default = true })
  vim.api.nvim_set_hl(0, "GeminiNextEditAdd", { link = "DiffAdd", default = true })
  vim.api.nvim_set_hl(0, "GeminiNextEditHint", { link = "Comment", default = true })
end

return M
