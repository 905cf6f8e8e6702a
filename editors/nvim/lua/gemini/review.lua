-- Review of a proposed change: a diff tab with the original text on the
-- left and the real buffer, holding the proposal, on the right.
local M = {}

M.current = nil -- the review on screen, if any
local queue = {}

local function text_edit_of(params)
  for _, change in ipairs(params.edit.documentChanges or {}) do
    if change.textDocument and change.edits then
      return change.textDocument.uri, change.edits
    end
  end
  for uri, edits in pairs(params.edit.changes or {}) do
    return uri, edits
  end
end

local function close(r)
  if M.current == r then
    M.current = nil
  end
  if vim.api.nvim_tabpage_is_valid(r.tab) then
    for _, win in ipairs(vim.api.nvim_tabpage_list_wins(r.tab)) do
      vim.api.nvim_win_call(win, function()
        vim.cmd("diffoff")
      end)
    end
    if #vim.api.nvim_list_tabpages() > 1 then
      vim.cmd("tabclose " .. vim.api.nvim_tabpage_get_number(r.tab))
    end
  end
  if vim.api.nvim_buf_is_valid(r.orig) then
    vim.api.nvim_buf_delete(r.orig, { force = true })
  end
  for _, key in ipairs({ "ga", "gr", "gx", "gy" }) do
    pcall(vim.api.nvim_buf_del_keymap, r.buf, "n", key)
  end
  if r.opts.on_close then
    r.opts.on_close()
  end
  if #queue > 0 then
    local next = table.remove(queue, 1)
    vim.schedule(function()
      M.open(next.params, next.respond, next.opts)
    end)
  end
end

local function finish(r, result)
  if r.done then
    return
  end
  r.done = true
  close(r)
  r.respond(result)
end

--- Accepts the change as the right-hand buffer now holds it.
function M.accept(r)
  r = r or M.current
  if not r then
    return
  end
  if r.opts.auto_save then
    vim.api.nvim_buf_call(r.buf, function()
      vim.cmd("silent! write")
    end)
  end
  finish(r, { applied = true })
end

--- Rejects the whole change: the buffer gets its original text back.
function M.reject(r)
  r = r or M.current
  if not r then
    return
  end
  if vim.api.nvim_buf_is_valid(r.buf) then
    vim.api.nvim_buf_set_lines(r.buf, 0, -1, false, r.lines)
    vim.bo[r.buf].modified = r.modified
  end
  finish(r, { applied = false, failureReason = "the user rejected the change" })
end

--- Drops the hunk under the cursor: the proposal's window gets that hunk
--- back from the original.
function M.drop_hunk(r)
  r = r or M.current
  if not r then
    return
  end
  if vim.api.nvim_get_current_buf() == r.orig then
    vim.cmd("diffput " .. r.buf)
  else
    vim.api.nvim_win_call(r.win, function()
      vim.cmd("diffget " .. r.orig)
    end)
  end
  vim.cmd("diffupdate")
end

local diff = (vim.text and vim.text.diff) or vim.diff

-- The line of b that line (1-based) of a corresponds to, given the
-- line hunks of a against b.
local function map_line(hunks, line)
  local offset = 0
  for _, h in ipairs(hunks) do
    local sa, ca, sb = h[1], h[2], h[3]
    if ca > 0 and line >= sa and line < sa + ca then
      return sb + math.min(line - sa, math.max(h[4] - 1, 0))
    end
    if (ca > 0 and sa + ca <= line) or (ca == 0 and sa < line) then
      offset = offset + h[4] - ca
    end
  end
  return line + offset
end

--- Takes the proposal's version of the hunk under the cursor back, after
--- a drop or an edit of your own.
function M.take_hunk(r)
  r = r or M.current
  if not r then
    return
  end
  local cur = vim.api.nvim_buf_get_lines(r.buf, 0, -1, false)
  local row = vim.api.nvim_win_get_cursor(0)[1]
  if vim.api.nvim_get_current_buf() == r.orig then
    local orig = vim.api.nvim_buf_get_lines(r.orig, 0, -1, false)
    row = map_line(diff(table.concat(orig, "\n") .. "\n", table.concat(cur, "\n") .. "\n", { result_type = "indices" }), row)
  end
  local hunks = diff(table.concat(cur, "\n") .. "\n", table.concat(r.proposed, "\n") .. "\n", { result_type = "indices" })
  for _, h in ipairs(hunks) do
    local sa, ca, sb, cb = h[1], h[2], h[3], h[4]
    local first, last = sa, sa + ca - 1
    if ca == 0 then
      first, last = sa, sa + 1 -- an insertion sits between two lines
    end
    if row >= first and row <= last then
      local with = cb > 0 and vim.list_slice(r.proposed, sb, sb + cb - 1) or {}
      local from = ca == 0 and sa or sa - 1
      vim.api.nvim_buf_set_lines(r.buf, from, from + ca, false, with)
      vim.cmd("diffupdate")
      return true
    end
  end
  vim.notify("Gemini: no hunk of the proposal here", vim.log.levels.INFO)
  return false
end

--- Cancels the review without answering (the server withdrew its request).
function M.cancel(id)
  local r = M.current
  if r and r.id == id then
    r.respond = function() end
    M.reject(r)
  end
  for i, q in ipairs(queue) do
    if q.opts.id == id then
      table.remove(queue, i)
      break
    end
  end
end

-- The text documents edit changes, each as a change of its own, labelled
-- with its place among them.
local function per_document(params)
  local docs = {}
  for _, change in ipairs(params.edit.documentChanges or {}) do
    if change.textDocument and change.edits then
      table.insert(docs, { edit = { documentChanges = { change } } })
    end
  end
  for i, d in ipairs(docs) do
    d.label = string.format("%s (file %d of %d)", params.label or "Gemini: edit", i, #docs)
  end
  return docs
end

-- Reviews a change of several files (a rewind's revert) one file after
-- another and answers once: applied when any file was kept, as the server
-- then reads what each file holds.
local function open_each(docs, respond, opts)
  local applied, why = false, nil
  local function step(i)
    if i > #docs then
      respond(applied and { applied = true } or { applied = false, failureReason = why or "the user rejected the change" })
      return
    end
    M.open(docs[i], function(result)
      applied = applied or result.applied
      why = why or result.failureReason
      step(i + 1)
    end, opts)
  end
  step(1)
end

--- Opens a review of an annotated workspace edit. respond(result) is called
--- once the user decides.
function M.open(params, respond, opts)
  local docs = per_document(params)
  if #docs > 1 then
    return open_each(docs, respond, opts)
  end
  if M.current then
    table.insert(queue, { params = params, respond = respond, opts = opts })
    return
  end
  local uri, edits = text_edit_of(params)
  if not uri then
    respond({ applied = false, failureReason = "the change has no text edits" })
    return
  end
  local buf = vim.uri_to_bufnr(uri)
  vim.fn.bufload(buf)
  vim.bo[buf].buflisted = true
  local r = {
    id = opts.id,
    buf = buf,
    lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
    modified = vim.bo[buf].modified,
    respond = respond,
    opts = opts,
    label = params.label or "Gemini: edit",
  }
  -- The review is the confirmation the annotations ask for: apply the
  -- edits plain (0.12 refuses annotated ones without their annotations).
  local plain = {}
  for i, e in ipairs(edits) do
    plain[i] = { range = e.range, newText = e.newText }
  end
  vim.lsp.util.apply_text_edits(plain, buf, opts.offset_encoding or "utf-16")
  r.proposed = vim.api.nvim_buf_get_lines(buf, 0, -1, false)

  vim.cmd("tabnew")
  r.tab = vim.api.nvim_get_current_tabpage()
  r.orig = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(r.orig, 0, -1, false, r.lines)
  vim.bo[r.orig].buftype = "nofile"
  vim.bo[r.orig].bufhidden = "wipe"
  vim.bo[r.orig].modifiable = false
  vim.bo[r.orig].filetype = vim.bo[buf].filetype
  pcall(vim.api.nvim_buf_set_name, r.orig, "gemini://original/" .. vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":~:."))
  vim.cmd("diffthis")
  vim.cmd("rightbelow vsplit")
  r.win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(r.win, buf)
  vim.cmd("diffthis")
  M.current = r

  local maps = {
    ga = { M.accept, "Gemini: accept the change" },
    gr = { M.reject, "Gemini: reject the change" },
    gx = { M.drop_hunk, "Gemini: drop the hunk under the cursor" },
    gy = { M.take_hunk, "Gemini: take the proposal's hunk under the cursor" },
  }
  for _, b in ipairs({ buf, r.orig }) do
    for key, m in pairs(maps) do
      vim.api.nvim_buf_set_keymap(b, "n", key, "", {
        nowait = true,
        silent = true,
        desc = m[2],
        callback = function()
          m[1](r)
        end,
      })
    end
  end
  vim.api.nvim_echo({ { r.label .. "  — ga accept, gr reject, gx drop hunk, gy take hunk, ]c/[c next/previous hunk", "Title" } }, false, {})
end

function M.pending()
  return (M.current and 1 or 0) + #queue
end

return M
