-- Completion as you type: ghost text from gemini-ls's
-- textDocument/inlineCompletion.
--
-- On Neovim 0.12 and newer the built-in vim.lsp.inline_completion shows it,
-- enabled for the gemini-ls client in each buffer it attaches to. Before
-- that (0.10, 0.11; 0.7 to 0.9 with overlay text) the plugin shows it
-- itself: it asks as the user types (debounced, triggerKind 2) or on a key
-- (triggerKind 1), cancels the request before, drops an answer for a buffer
-- that changed, shows the suggestion as virtual text at the cursor and
-- virtual lines below, tells the server what it showed
-- (textDocument/didShowCompletion) and what was taken (the item's command,
-- textDocument/didPartiallyAcceptCompletion).
local attached = require("gemini.attached")
local pos = require("gemini.pos")

local M = {}

M.ns = vim.api.nvim_create_namespace("gemini_completion")

M.config = {
  enabled = true, -- ghost text as you type
  builtin = true, -- Neovim 0.12+: vim.lsp.inline_completion shows it
  debounce = 75, -- ms of quiet after a keystroke before asking (own ghost text)
  accept = "<Tab>", -- insert mode: accept the suggestion (or the next edit); false: no mapping
  accept_word = { "<M-w>", "<C-Right>" }, -- accept the suggestion's next word
  trigger = "<M-\\>", -- ask now (triggerKind 1)
}

-- buf -> { timer, request (id), client, item (the server's), anchor {row, col}
-- (where item's range starts), text (item's insertText), shown (what the
-- ghost text shows), accepted (characters taken so far) }
M.state = {}

local gemini -- the plugin's main module, set by setup

local function has(v)
  return vim.fn.has("nvim-" .. v) == 1
end

--- Whether Neovim's built-in inline completion is the one used.
function M.uses_builtin()
  return M.config.builtin and vim.lsp.inline_completion ~= nil and vim.lsp.inline_completion.get ~= nil
end

local function encoding(client)
  return client.offset_encoding or "utf-16"
end

local function st(buf)
  M.state[buf] = M.state[buf] or {}
  return M.state[buf]
end

--- Hides the ghost text of buf and forgets its suggestion.
function M.clear(buf)
  buf = (buf == nil or buf == 0) and vim.api.nvim_get_current_buf() or buf
  local s = M.state[buf]
  if s then
    s.item, s.text, s.shown, s.anchor, s.accepted = nil, nil, nil, nil, nil
  end
  if vim.api.nvim_buf_is_valid(buf) then
    vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  end
end

--- Stops everything under way for buf: the timer, the request, the ghost text.
function M.abort(buf)
  local s = M.state[buf]
  if s then
    attached.stop_timer(s)
    attached.cancel_request(s)
  end
  M.clear(buf)
end

-- The cursor of buf's window, {row, col} 0-based, when buf is current.
local function cursor(buf)
  if vim.api.nvim_get_current_buf() ~= buf then
    return nil
  end
  local c = vim.api.nvim_win_get_cursor(0)
  return c[1] - 1, c[2]
end

-- What of s.text the buffer does not hold yet: the text between the
-- anchor and the cursor, typed (or taken word by word) since, must be its
-- start. nil when the cursor left the suggestion.
local function remaining(buf, s)
  local row, col = cursor(buf)
  if not row or not s.text or row ~= s.anchor[1] or col < s.anchor[2] then
    return nil
  end
  local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ""
  local typed = line:sub(s.anchor[2] + 1, col)
  if s.text:sub(1, #typed) ~= typed then
    return nil
  end
  local rest = s.text:sub(#typed + 1)
  if rest == "" then
    return nil
  end
  return rest, #typed
end

-- Draws rest (the part of the suggestion not typed) at the cursor.
local function draw(buf, rest)
  vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  local row, col = cursor(buf)
  local lines = vim.split(rest, "\n", { plain = true })
  local virt_lines = {}
  for i = 2, #lines do
    table.insert(virt_lines, { { lines[i], "GeminiSuggestion" } })
  end
  local opts = { hl_mode = "combine" }
  if #virt_lines > 0 then
    opts.virt_lines = virt_lines
  end
  if has("0.10") then
    opts.virt_text = { { lines[1], "GeminiSuggestion" } }
    opts.virt_text_pos = "inline"
  else
    -- No inline virtual text before 0.10: the suggestion and the rest of
    -- the line drawn over the rest of the line, shifted.
    local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ""
    opts.virt_text = { { lines[1], "GeminiSuggestion" }, { line:sub(col + 1), "Normal" } }
    opts.virt_text_pos = "overlay"
  end
  vim.api.nvim_buf_set_extmark(buf, M.ns, row, col, opts)
end

local function notify(client, method, params)
  gemini.client_call(client, "notify", method, params)
end

-- Shows item, the server's answer, at its range in buf.
local function show(buf, client, item)
  local text = item.insertText
  if type(text) == "table" then
    text = text.value -- a snippet: shown and inserted as written
  end
  if type(text) ~= "string" or text == "" then
    return
  end
  local s = st(buf)
  local row, col
  if item.range then
    row, col = pos.from_lsp(buf, item.range.start, encoding(client))
  else
    row, col = cursor(buf)
  end
  local prev_shown = s.shown
  s.item, s.text, s.anchor, s.client, s.accepted = item, text, { row, col }, client, 0
  -- Where the range ends, and the cursor then, to move the end by what
  -- is typed before accepting.
  local crow, ccol = cursor(buf)
  s.finish, s.shown_at = { crow, ccol }, ccol
  if item.range then
    s.finish = { pos.from_lsp(buf, item.range["end"], encoding(client)) }
  end
  local rest = remaining(buf, s)
  if not rest then
    M.clear(buf)
    return
  end
  draw(buf, rest)
  s.shown = rest
  if rest ~= prev_shown then
    notify(client, "textDocument/didShowCompletion", { item = item })
  end
end

--- Asks gemini-ls for a suggestion at the cursor of buf (triggerKind kind:
--- 1 asked by the user, 2 as they typed); shown unless the buffer changed,
--- the cursor moved or insert mode ended meanwhile.
function M.request(buf, kind)
  buf = (buf == nil or buf == 0) and vim.api.nvim_get_current_buf() or buf
  local s = st(buf)
  attached.stop_timer(s)
  attached.cancel_request(s)
  local client = attached.client(buf)
  if not client or cursor(buf) == nil then
    return
  end
  local row, col = cursor(buf)
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = pos.to_lsp(buf, row, col, encoding(client)),
    context = { triggerKind = kind or 2 },
  }
  local diags = gemini.lsp_diagnostics(buf, row + 1 - 10, row + 1 + 10)
  if #diags > 0 then
    params.diagnostics = diags
  end
  local id
  local ok, rid = gemini.client_call(client, "request", "textDocument/inlineCompletion", params, function(err, result)
    if s.request ~= id then
      return -- superseded (or cancelled) meanwhile
    end
    s.request = nil
    if err or type(result) ~= "table" or not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    local r2, c2 = cursor(buf)
    if vim.api.nvim_buf_get_changedtick(buf) ~= tick or r2 ~= row or c2 ~= col
      or not vim.api.nvim_get_mode().mode:match("^i") then
      return -- for a buffer (or a cursor) that has moved on
    end
    local items = result.items or result
    if items[1] then
      show(buf, client, items[1])
    else
      M.clear(buf)
    end
  end, buf)
  if ok then
    id = rid
    s.request, s.client = rid, client
  end
end

--- Whether a suggestion for buf is being asked (the plugin's own ghost text).
function M.pending(buf)
  local s = M.state[buf]
  return s ~= nil and (s.request ~= nil or s.timer ~= nil)
end

--- Whether buf shows a suggestion.
function M.visible(buf)
  buf = (buf == nil or buf == 0) and vim.api.nvim_get_current_buf() or buf
  if M.uses_builtin() then
    return #vim.api.nvim_buf_get_extmarks(buf, vim.api.nvim_create_namespace("nvim.lsp.inline_completion"), 0, -1, { limit = 1 }) > 0
  end
  local s = M.state[buf]
  return s ~= nil and s.shown ~= nil and remaining(buf, s) ~= nil
end

--- Accepts the whole suggestion shown in the current buffer: inserts it
--- and runs its command. false when none is shown.
function M.accept()
  local buf = vim.api.nvim_get_current_buf()
  local s = M.state[buf]
  local rest = s and s.shown and remaining(buf, s)
  if not rest then
    return false
  end
  local item, client = s.item, s.client
  local srow, scol = s.anchor[1], s.anchor[2]
  local row, col = cursor(buf)
  local erow, ecol = row, col
  local r, c = s.finish[1], s.finish[2]
  if r == row then
    c = c + (col - s.shown_at) -- moved by what was typed since
  end
  if r > erow or (r == erow and c > ecol) then
    erow, ecol = r, c
  end
  local lines = vim.split(s.text, "\n", { plain = true })
  M.abort(buf)
  vim.api.nvim_buf_set_text(buf, srow, scol, erow, ecol, lines)
  local last_row = srow + #lines - 1
  local last_col = (#lines == 1 and scol or 0) + #lines[#lines]
  vim.api.nvim_win_set_cursor(0, { last_row + 1, last_col })
  attached.run_command(client, item.command)
  return true
end

-- The next word of text: spaces, then a word or a run of other characters
-- (a line break and its indentation count as one).
local function next_word(text)
  return text:match("^\n[ \t]*") or text:match("^[ \t]*[%w_]+") or text:match("^[ \t]*[^%w_%s]+") or text:match("^%s+") or text
end

--- Accepts the next word of the suggestion shown in the current buffer,
--- and tells the server how much of it was taken. false when none is shown.
function M.accept_word()
  local buf = vim.api.nvim_get_current_buf()
  local s = M.state[buf]
  local rest = s and s.shown and remaining(buf, s)
  if not rest then
    return false
  end
  local word = next_word(rest)
  local row, col = cursor(buf)
  local lines = vim.split(word, "\n", { plain = true })
  attached.stop_timer(s)
  attached.cancel_request(s)
  vim.api.nvim_buf_set_text(buf, row, col, row, col, lines)
  local nrow, ncol = row + #lines - 1, (#lines == 1 and col or 0) + #lines[#lines]
  vim.api.nvim_win_set_cursor(0, { nrow + 1, ncol })
  s.accepted = (s.accepted or 0) + vim.fn.strchars(word)
  notify(s.client, "textDocument/didPartiallyAcceptCompletion", { item = s.item, acceptedLength = s.accepted })
  local left = rest:sub(#word + 1)
  if left == "" then
    attached.run_command(s.client, s.item.command)
    M.clear(buf)
    return true
  end
  -- What is left, anchored at the cursor.
  s.text, s.anchor, s.finish, s.shown_at = left, { nrow, ncol }, { nrow, ncol }, ncol
  draw(buf, left)
  s.shown = left
  s.skip_change = vim.api.nvim_buf_get_changedtick(buf)
  return true
end

-- After a change in insert mode: the ghost text follows what was typed
-- into it (or goes), and a new request waits for the typing to pause.
local function on_change(buf)
  local s = st(buf)
  if s.shown then
    local rest = remaining(buf, s)
    if rest then
      draw(buf, rest)
      s.shown = rest
    else
      M.clear(buf)
    end
  end
  attached.stop_timer(s)
  attached.cancel_request(s)
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  s.timer = vim.defer_fn(function()
    s.timer = nil
    if vim.api.nvim_buf_is_valid(buf) and vim.api.nvim_buf_get_changedtick(buf) == tick
      and vim.api.nvim_get_mode().mode:match("^i") then
      M.request(buf, 2)
    end
  end, M.config.debounce)
end

local function map_keys(buf)
  for _, lhs in ipairs(type(M.config.accept_word) == "table" and M.config.accept_word or { M.config.accept_word }) do
    if lhs then
      vim.keymap.set("i", lhs, function()
        if M.visible(buf) then
          return "<Cmd>lua require('gemini.complete').accept_word()<CR>"
        end
        return lhs
      end, { buffer = buf, expr = true, desc = "Gemini: accept the suggestion's next word" })
    end
  end
  if M.config.trigger then
    vim.keymap.set("i", M.config.trigger, function()
      M.request(buf, 1)
    end, { buffer = buf, desc = "Gemini: suggest now" })
  end
end

-- The plugin's own ghost text in buf (before 0.12, or builtin = false).
local function attach_own(buf)
  local group = vim.api.nvim_create_augroup("gemini_completion_" .. buf, { clear = true })
  vim.api.nvim_create_autocmd({ "TextChangedI", "InsertEnter" }, {
    group = group,
    buffer = buf,
    callback = function(a)
      local s = st(buf)
      local skip = a.event == "TextChangedI" and s.skip_change == vim.api.nvim_buf_get_changedtick(buf)
      s.skip_change = nil
      if skip then
        return -- a word just taken: the rest is shown already
      end
      on_change(buf)
    end,
  })
  vim.api.nvim_create_autocmd("CursorMovedI", {
    group = group,
    buffer = buf,
    callback = function()
      local s = M.state[buf]
      if s and s.shown and not remaining(buf, s) then
        M.clear(buf)
      end
    end,
  })
  attached.on_end(group, buf, { "InsertLeave", "BufLeave" }, M.abort, function(b)
    M.state[b] = nil
  end)
  map_keys(buf)
end

-- What the built-in does not do, done on the client's connection: its
-- requests take the diagnostics near the cursor along, and gemini-ls hears
-- of the suggestion it shows (textDocument/didShowCompletion).
local wrapped = {}
local builtin_ns
local function wrap_builtin_requests(client)
  if wrapped[client.id] then
    return
  end
  wrapped[client.id] = true
  builtin_ns = builtin_ns or vim.api.nvim_create_namespace("nvim.lsp.inline_completion")
  local rpc = client.rpc
  local request = rpc.request
  rpc.request = function(method, params, callback, ...)
    if method ~= "textDocument/inlineCompletion" or type(params) ~= "table" or type(params.textDocument) ~= "table"
      or type(callback) ~= "function" then
      return request(method, params, callback, ...)
    end
    local buf = vim.uri_to_bufnr(params.textDocument.uri)
    local line = params.position and params.position.line or 0
    if params.diagnostics == nil then
      local diags = gemini.lsp_diagnostics(buf, line + 1 - 10, line + 1 + 10)
      if #diags > 0 then
        params.diagnostics = diags
      end
    end
    return request(method, params, function(err, result, ...)
      local ret = callback(err, result, ...)
      local items = type(result) == "table" and (result.items or result) or {}
      if not err and items[1] then
        -- After the built-in's handler (scheduled too): shown or not.
        vim.schedule(function()
          if vim.api.nvim_buf_is_valid(buf)
            and #vim.api.nvim_buf_get_extmarks(buf, builtin_ns, 0, -1, { limit = 1 }) > 0 then
            notify(client, "textDocument/didShowCompletion", { item = items[1] })
          end
        end)
      end
      return ret
    end, ...)
  end
end

-- The built-in's get() accepts in a callback it schedules, so that it can be
-- mapped with <expr>, and leaving insert mode drops its item: keys typed
-- with the accept key (<Tab><Esc>, <Tab>x) would run before it, the
-- suggestion lost or put after them. The keys settle_keys returns come
-- first among those typed and wait for that callback.
local scheduled = 0
function M.settle()
  vim.wait(1000, function()
    return scheduled == 0
  end, 1)
end
local function settle_keys()
  scheduled = scheduled + 1
  vim.schedule(function()
    scheduled = scheduled - 1
  end)
  return "<Cmd>lua require('gemini.complete').settle()<CR>"
end

-- Neovim 0.12's inline completion for the gemini-ls client in buf, and a
-- word accepted by taking the built-in's item.
local function attach_builtin(buf, client)
  wrap_builtin_requests(client)
  vim.lsp.inline_completion.enable(true, { bufnr = buf, client_id = client.id })
  for _, lhs in ipairs(type(M.config.accept_word) == "table" and M.config.accept_word or { M.config.accept_word }) do
    if lhs then
      vim.keymap.set("i", lhs, function()
        local took = vim.lsp.inline_completion.get({
          bufnr = buf,
          on_accept = function(item)
            if item.client_id ~= client.id or type(item.insert_text) ~= "string" then
              return item
            end
            -- The item's text from the cursor on: its first word goes in;
            -- the built-in asks again, and gemini-ls answers the rest
            -- from its cache.
            local row, col = cursor(buf)
            local srow, scol = row, col
            if item.range then
              srow, scol = item.range:to_extmark()
            end
            local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ""
            local typed = srow == row and line:sub(scol + 1, col) or ""
            local rest = item.insert_text:sub(#typed + 1)
            local word = next_word(rest)
            local lines = vim.split(word, "\n", { plain = true })
            vim.api.nvim_buf_set_text(buf, row, col, row, col, lines)
            vim.api.nvim_win_set_cursor(0, { row + #lines, (#lines == 1 and col or 0) + #lines[#lines] })
            notify(client, "textDocument/didPartiallyAcceptCompletion", {
              item = { insertText = item.insert_text, command = item.command },
              acceptedLength = vim.fn.strchars(typed .. word),
            })
            if word == rest then
              attached.run_command(client, item.command)
            end
            return nil
          end,
        })
        if not took then
          return lhs
        end
        return settle_keys()
      end, { buffer = buf, expr = true, desc = "Gemini: accept the suggestion's next word" })
    end
  end
end

-- The user's own mapping of key in insert mode (buffer-local, else global),
-- as maparg gives it; nil when there is none or it is ours.
local function user_mapping(buf, key)
  local m
  vim.api.nvim_buf_call(buf, function()
    m = vim.fn.maparg(key, "i", false, true)
  end)
  if type(m) ~= "table" or vim.tbl_isempty(m) or (m.desc and m.desc:match("^Gemini:")) then
    return nil
  end
  if m.callback ~= nil and type(m.callback) ~= "function" then
    -- Neovim 0.7's maparg gives a Lua callback as a number; the keymap
    -- list gives the function.
    local list = m.buffer == 1 and vim.api.nvim_buf_get_keymap(buf, "i") or vim.api.nvim_get_keymap("i")
    m.callback = nil
    for _, k in ipairs(list) do
      if k.lhs == m.lhs and type(k.callback) == "function" then
        m.callback = k.callback
      end
    end
  end
  return m
end

-- What key does without us: the user's mapping, else the key itself.
local function fallback(key, prev)
  if not prev then
    return key
  end
  if prev.callback then
    local out = prev.callback()
    return prev.expr == 1 and (out or "") or ""
  end
  local rhs = prev.rhs or ""
  if prev.expr == 1 then
    rhs = vim.api.nvim_eval(rhs)
  end
  if prev.noremap == 1 then
    return rhs
  end
  -- A mapping that maps again: its keys go through the mappings.
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(rhs, true, false, true), "m", false)
  return ""
end

--- Maps the accept key in insert mode for buf: the suggestion, else the
--- next edit shown, else whatever the key did before.
local function map_accept(buf)
  local key = M.config.accept
  if not key then
    return
  end
  local prev = user_mapping(buf, key)
  vim.keymap.set("i", key, function()
    if M.config.enabled then
      if M.uses_builtin() then
        if vim.lsp.inline_completion.get({ bufnr = buf }) then
          return settle_keys()
        end
      elseif M.visible(buf) then
        return "<Cmd>lua require('gemini.complete').accept()<CR>"
      end
    end
    local nextedit = require("gemini.nextedit")
    if nextedit.visible(buf) then
      return "<Cmd>lua require('gemini.nextedit').accept()<CR>"
    end
    return fallback(key, prev)
  end, { buffer = buf, expr = true, desc = "Gemini: accept the suggestion" })
end

--- Sets up completion in buf, to which the gemini-ls client is attached
--- (or being attached).
function M.attach(buf, client)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  local s = st(buf)
  if not s.mapped then
    s.mapped = true
    map_accept(buf)
    vim.api.nvim_create_autocmd("BufWipeout", {
      buffer = buf,
      once = true,
      callback = function()
        M.state[buf] = nil
      end,
    })
  end
  if not M.config.enabled then
    return
  end
  if M.uses_builtin() then
    -- Only once the server said it completes (initialized) and the client
    -- is attached to buf: LspAttach, not before.
    if client and client.initialized and client.attached_buffers and client.attached_buffers[buf]
      and client:supports_method("textDocument/inlineCompletion") and s.builtin ~= client.id then
      s.builtin = client.id -- a restarted gemini-ls is a new client
      attach_builtin(buf, client)
    end
  elseif not s.own then
    s.own = true
    attach_own(buf)
  end
end

function M.setup(main, opts)
  gemini = main
  M.config = vim.tbl_extend("force", M.config, opts or {})
  vim.api.nvim_set_hl(0, "GeminiSuggestion", { link = "Comment", default = true })
end

return M
