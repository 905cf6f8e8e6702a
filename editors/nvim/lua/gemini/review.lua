-- Review of a proposed change: a diff tab with the original text on the
-- left and the proposal on the right, each in a scratch buffer of its own
-- (buftype nofile, named gemini://original/… and gemini://proposed/…).
-- Nothing reaches the file's buffer or the disk before the user's yes: a
-- nofile buffer is never written (:wa, 'autowriteall' and auto-save
-- plugins pass it by) nor attached to a language server (the plugin's
-- attachable, lspconfig and vim.lsp.enable all skip it), so no completion
-- or next edit is asked in it either. Accept (ga) puts the proposal, as
-- the user left it, into the file's buffer and writes it with auto_save;
-- a new file exists only then. The review opens in Normal mode, and the
-- proposal cannot be changed but on purpose (gi, which the tab line then
-- says), as keys meant for the review (ga, gr) typed in Insert mode would
-- otherwise write themselves into it.
local M = {}

M.current = nil -- the review on screen, if any
local queue = {}
local open_step -- defined below; close opens the next queued step

-- The tab line the plugin set while a review is open, to put back the
-- user's (Neovim's own, "") when none is.
local our_tabline = "%!v:lua.require'gemini.review'.tabline()"

local function escape(s)
  return (s:gsub("%%", "%%%%"))
end

-- A tab's label: a review's names it ("Gemini: edit numbers.txt (+1 −1)"),
-- another tab its window's file, as Neovim's own tab line does; where
-- that window is the chat or the prompt area (a review sent with <C-s>
-- comes from there), the tab's first window with a file, so the tab says
-- which file the user was working on, not "prompt".
local function tab_label(tab)
  local ok, label = pcall(vim.api.nvim_tabpage_get_var, tab, "gemini_review")
  if ok and label then
    return label
  end
  local buf = vim.api.nvim_win_get_buf(vim.api.nvim_tabpage_get_win(tab))
  if vim.bo[buf].buftype ~= "" then
    for _, win in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
      local b = vim.api.nvim_win_get_buf(win)
      if vim.bo[b].buftype == "" and vim.api.nvim_buf_get_name(b) ~= "" then
        buf = b
        break
      end
    end
  end
  local name = vim.api.nvim_buf_get_name(buf)
  name = name == "" and "[No Name]" or vim.fn.fnamemodify(name, ":t")
  return (vim.bo[buf].modified and "+ " or "") .. name
end

--- The tab line while a review is open: each tab by its label, and on
--- the review's tab its keys at the right, where no message hides them.
function M.tabline()
  local cur = vim.api.nvim_get_current_tabpage()
  local out = {}
  for i, tab in ipairs(vim.api.nvim_list_tabpages()) do
    table.insert(out, (tab == cur and "%#TabLineSel#" or "%#TabLine#") .. "%" .. i .. "T " .. escape(tab_label(tab)) .. " ")
  end
  table.insert(out, "%#TabLineFill#%T")
  local r = M.current
  if r and r.tab == cur and r.keys then
    table.insert(out, "%=%#TabLine# " .. escape(r.keys) .. " ")
  end
  return table.concat(out)
end

-- Shows the reviews' tab line, unless the user has a tab line of their
-- own (which can show the tab variable gemini_review); reports whether
-- it is shown.
local function show_tabline()
  if vim.o.tabline == "" or vim.o.tabline == our_tabline then
    vim.o.tabline = our_tabline
    return true
  end
  return false
end

-- Runs fn with r's proposal modifiable, which it is not otherwise until
-- the user asks (gi): the review's own changes to it (a hunk dropped or
-- taken).
local function with_modifiable(r, fn)
  if not vim.api.nvim_buf_is_valid(r.buf) then
    return fn()
  end
  local was = vim.bo[r.buf].modifiable
  vim.bo[r.buf].modifiable = true
  local ok, err = pcall(fn)
  if vim.api.nvim_buf_is_valid(r.buf) then
    vim.bo[r.buf].modifiable = was
  end
  if not ok then
    error(err, 0)
  end
end

local function close(r)
  if M.current == r then
    M.current = nil
  end
  if not M.current and #queue == 0 and vim.o.tabline == our_tabline then
    vim.o.tabline = ""
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
  -- Both sides are the review's own scratch buffers, keys and all.
  for _, b in ipairs({ r.orig, r.buf }) do
    if vim.api.nvim_buf_is_valid(b) then
      vim.api.nvim_buf_delete(b, { force = true })
    end
  end
  if r.opts.on_close then
    r.opts.on_close()
  end
  if #queue > 0 then
    local next = table.remove(queue, 1)
    vim.schedule(function()
      open_step(next.step, next.respond, next.opts)
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

--- Accepts the change: the text as the right-hand buffer now holds it,
--- or the file operation (deletion, rename, creation) reviewed. A text
--- whose file changed during the review is not put over it at once: the
--- left side shows the file as it is now, and a second ga decides.
function M.accept(r)
  r = r or M.current
  if not r then
    return
  end
  local ok, why = r.perform()
  if ok == nil then
    return -- the review stays open
  end
  finish(r, ok and { applied = true } or { applied = false, failureReason = why })
end

--- Rejects the whole change: the file's buffer and the disk were never
--- touched; a file operation is not done. The answer carries no
--- failureReason: the user said no, the editor did not fail
--- (docs/protocol.md 8.5).
function M.reject(r)
  r = r or M.current
  if not r then
    return
  end
  finish(r, { applied = false })
end

--- Drops the hunk under the cursor: the proposal's window gets that hunk
--- back from the original.
local diff = (vim.text and vim.text.diff) or vim.diff

-- recount puts in r's label the lines the proposal now adds and removes
-- ("(+1 −1)", as the server counted them for the whole proposal), once
-- the user dropped or took a hunk, so the tab says what ga would write.
local function recount(r)
  local added, removed = 0, 0
  local orig = table.concat(vim.api.nvim_buf_get_lines(r.orig, 0, -1, false), "\n") .. "\n"
  local now = table.concat(vim.api.nvim_buf_get_lines(r.buf, 0, -1, false), "\n") .. "\n"
  for _, h in ipairs(diff(orig, now, { result_type = "indices" })) do
    removed, added = removed + h[2], added + h[4]
  end
  local label, n = r.label:gsub("%(%+%d+ −%d+%)", ("(+%d −%d)"):format(added, removed), 1)
  if n == 0 or label == r.label then
    return
  end
  r.label = label
  vim.api.nvim_tabpage_set_var(r.tab, "gemini_review", label)
  if vim.o.tabline == our_tabline then
    vim.cmd("redrawtabline")
  end
end

function M.drop_hunk(r)
  r = r or M.current
  if not r or r.kind ~= "text" then
    return
  end
  with_modifiable(r, function()
    if vim.api.nvim_get_current_buf() == r.orig then
      vim.cmd("diffput " .. r.buf)
    else
      vim.api.nvim_win_call(r.win, function()
        vim.cmd("diffget " .. r.orig)
      end)
    end
  end)
  vim.cmd("diffupdate")
  recount(r)
end

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
  if not r or r.kind ~= "text" then
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
      with_modifiable(r, function()
        vim.api.nvim_buf_set_lines(r.buf, from, from + ca, false, with)
      end)
      vim.cmd("diffupdate")
      recount(r)
      return true
    end
  end
  require("gemini.say").tell("Gemini: no hunk of the proposal here", vim.log.levels.INFO)
  return false
end

-- The keys of a text review, as the tab line shows them.
local text_keys = "ga accept, gr reject, gx drop hunk, gy take hunk, gi edit, ]c/[c next/previous hunk"

--- Makes the proposal editable, on purpose, and starts Insert mode in it:
--- until then it is not, so that keys typed for the review never land in
--- it. The tab line says it is being edited.
function M.edit_proposal(r)
  r = r or M.current
  if not r or r.kind ~= "text" or not vim.api.nvim_win_is_valid(r.win) then
    return
  end
  vim.bo[r.buf].modifiable = true
  r.keys = "editing the proposal: " .. text_keys:gsub(", gi edit", "")
  vim.api.nvim_set_current_win(r.win)
  vim.cmd("startinsert")
  if vim.o.tabline == our_tabline then
    vim.cmd("redrawtabline")
  else
    vim.api.nvim_echo({ { r.label .. "  — " .. r.keys, "Title" } }, false, {})
  end
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

-- The steps of an edit, each reviewed on its own: a text document's edits
-- (with the CreateFile just before them, if any), a file's creation,
-- deletion or rename, in the edit's order.
local function steps_of(edit)
  local steps = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    local last = steps[#steps]
    if change.kind == "create" then
      table.insert(steps, { kind = "create", uri = change.uri, create = change })
    elseif change.kind == "delete" then
      table.insert(steps, { kind = "delete", uri = change.uri, delete = change })
    elseif change.kind == "rename" then
      table.insert(steps, { kind = "rename", uri = change.oldUri, rename = change })
    elseif change.textDocument and change.edits then
      if last and last.kind == "create" and last.uri == change.textDocument.uri then
        last.kind, last.edits = "text", change.edits
      else
        table.insert(steps, { kind = "text", uri = change.textDocument.uri, edits = change.edits })
      end
    end
  end
  if #steps == 0 then
    for uri, edits in pairs(edit.changes or {}) do
      table.insert(steps, { kind = "text", uri = uri, edits = edits })
    end
  end
  return steps
end

local function exists(path)
  return vim.loop.fs_stat(path) ~= nil
end

-- The loaded buffer of path, if any.
local function buffer_of(path)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) == path then
      return b
    end
  end
end

-- The file operations, as LSP defines them (options included); each
-- returns true, or false and why not.
local operations = {}

function operations.create(change)
  local path = vim.uri_to_fname(change.uri)
  local opts = change.options or {}
  if exists(path) and not opts.overwrite then
    if opts.ignoreIfExists then
      return true
    end
    return false, path .. " already exists"
  end
  vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
  if vim.fn.writefile({}, path) ~= 0 then
    return false, "could not create " .. path
  end
  return true
end

function operations.delete(change)
  local path = vim.uri_to_fname(change.uri)
  local opts = change.options or {}
  local stat = vim.loop.fs_stat(path)
  if not stat then
    if opts.ignoreIfNotExists then
      return true
    end
    return false, path .. " does not exist"
  end
  local flags = stat.type == "directory" and (opts.recursive and "rf" or "d") or ""
  if vim.fn.delete(path, flags) ~= 0 then
    return false, "could not delete " .. path
  end
  -- Its buffer goes too: it would write the file back, and the server
  -- would still see the document open.
  local buf = buffer_of(path)
  if buf then
    vim.api.nvim_buf_delete(buf, { force = true })
  end
  return true
end

function operations.rename(change)
  local old, new = vim.uri_to_fname(change.oldUri), vim.uri_to_fname(change.newUri)
  local opts = change.options or {}
  if not exists(old) then
    return false, old .. " does not exist"
  end
  if exists(new) and not opts.overwrite then
    if opts.ignoreIfExists then
      return true
    end
    return false, new .. " already exists"
  end
  local ok, err = pcall(vim.lsp.util.rename, old, new, { overwrite = opts.overwrite })
  if not ok or exists(old) or not exists(new) then
    return false, "could not rename " .. old .. " to " .. new .. (ok and "" or ": " .. tostring(err))
  end
  return true
end

-- A new tab with buffer on the left; the window the right-hand side goes
-- into, after a vertical split.
local function new_tab(r, left)
  vim.cmd("tabnew")
  r.tab = vim.api.nvim_get_current_tabpage()
  r.orig = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(r.orig, 0, -1, false, left)
  vim.bo[r.orig].buftype = "nofile"
  vim.bo[r.orig].bufhidden = "wipe"
  vim.bo[r.orig].modifiable = false
end

-- A scratch buffer for the right-hand side of a file operation's review.
local function scratch(lines, name)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].modifiable = false
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf
end

local function relative(path)
  return vim.fn.fnamemodify(path, ":~:.")
end

-- Names the two sides of a review in their status lines, "original"
-- and "proposed", since both show the same file's name otherwise (the
-- status line, not the winbar, which Neovim 0.7 lacks).
local function label_sides(left, right, name)
  local safe = name:gsub("%%", "%%%%")
  vim.wo[left].statusline = " original: " .. safe
  vim.wo[right].statusline = " proposed: " .. safe
end

local function lines_of(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

-- Changes buf's lines to want hunk by hunk, so that marks, folds and
-- cursors outside the changed lines stay where they were.
local function set_changed_lines(buf, want)
  local have = lines_of(buf)
  local hunks = diff(table.concat(have, "\n") .. "\n", table.concat(want, "\n") .. "\n", { result_type = "indices" })
  for i = #hunks, 1, -1 do
    local sa, ca, sb, cb = unpack(hunks[i])
    local with = cb > 0 and vim.list_slice(want, sb, sb + cb - 1) or {}
    local from = ca == 0 and sa or sa - 1 -- an insertion goes after line sa
    vim.api.nvim_buf_set_lines(buf, from, from + ca, false, with)
  end
end

-- Sets buf's filetype as if it were the file path, for highlighting:
-- Neovim's own detection, by name and then by content.
local function detect_filetype(buf, path)
  vim.api.nvim_buf_call(buf, function()
    vim.cmd("silent! doautocmd filetypedetect BufRead " .. vim.fn.fnameescape(path))
  end)
end

-- Opens the review of a text document's edits: the proposal, in a
-- scratch buffer of its own, on the right of a copy of the file's text.
-- The file's buffer, when the file exists, is loaded (its text is what
-- the edits apply to) but not changed; a new file has none until the
-- change is accepted.
local function open_text(r, step)
  local path = vim.uri_to_fname(step.uri)
  local name = relative(path)
  r.path = path
  r.file = exists(path) and vim.uri_to_bufnr(step.uri) or buffer_of(path)
  if r.file then
    vim.fn.bufload(r.file)
  end
  r.lines = r.file and lines_of(r.file) or { "" }

  -- nofile: never written, by :wa, 'autowriteall' or an auto-save plugin,
  -- and attached to no language server. Hidden, not wiped, when its tab
  -- is closed by hand, so that :GeminiAccept still finds it.
  r.buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(r.buf, 0, -1, false, r.lines)
  if r.file then
    -- apply_text_edits' end-of-line handling, as in the file's buffer.
    for _, option in ipairs({ "eol", "fixeol", "binary" }) do
      vim.bo[r.buf][option] = vim.bo[r.file][option]
    end
  end
  -- The review is the confirmation the annotations ask for: apply the
  -- edits plain (0.12 refuses annotated ones without their annotations).
  local plain = {}
  for i, e in ipairs(step.edits) do
    plain[i] = { range = e.range, newText = e.newText }
  end
  vim.lsp.util.apply_text_edits(plain, r.buf, r.opts.offset_encoding or "utf-16")
  vim.bo[r.buf].buflisted = false -- apply_text_edits lists it
  vim.bo[r.buf].modified = false
  vim.bo[r.buf].modifiable = false -- but on purpose (gi)
  pcall(vim.api.nvim_buf_set_name, r.buf, "gemini://proposed/" .. name)
  r.proposed = lines_of(r.buf)
  if r.file and vim.bo[r.file].filetype ~= "" then
    vim.bo[r.buf].filetype = vim.bo[r.file].filetype
  else
    detect_filetype(r.buf, path)
  end

  r.perform = function()
    local file = r.file or vim.uri_to_bufnr(step.uri)
    vim.fn.bufload(file)
    r.file = file
    local now = lines_of(file)
    if not vim.deep_equal(now, r.lines) then
      -- Changed since the review opened (by the user, in another tab, or
      -- read again from disk): the proposal would undo that; the left
      -- side shows it now, and ga again decides.
      r.lines = now
      if vim.api.nvim_buf_is_valid(r.orig) then -- its tab closed by hand
        vim.bo[r.orig].modifiable = true
        vim.api.nvim_buf_set_lines(r.orig, 0, -1, false, now)
        vim.bo[r.orig].modifiable = false
        vim.cmd("diffupdate")
      end
      require("gemini.say").tell("Gemini: " .. name .. " changed during the review; the left side shows it as it is now."
        .. " ga puts the proposal over it, gr leaves it.", vim.log.levels.WARN)
      return nil
    end
    local ok, err = pcall(set_changed_lines, file, lines_of(r.buf))
    if not ok then
      return false, "could not change " .. name .. ": " .. tostring(err)
    end
    vim.bo[file].buflisted = true
    local create = step.create and not exists(path)
    if create then
      vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
    end
    if create or r.opts.auto_save then
      vim.api.nvim_buf_call(file, function()
        vim.cmd("silent! write")
      end)
    end
    if create and not exists(path) then
      return false, "could not create " .. path
    end
    return true
  end

  new_tab(r, r.lines)
  local left = vim.api.nvim_get_current_win()
  vim.bo[r.orig].filetype = vim.bo[r.buf].filetype
  pcall(vim.api.nvim_buf_set_name, r.orig, "gemini://original/" .. name)
  vim.cmd("diffthis")
  vim.cmd("rightbelow vsplit")
  r.win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(r.win, r.buf)
  vim.cmd("diffthis")
  label_sides(left, r.win, name)
  return text_keys
end

-- Opens the review of a file operation: for a deletion, the file's text
-- against nothing; for a creation or rename, what is to happen.
local function open_operation(r, step)
  local change = step[step.kind]
  local path = vim.uri_to_fname(step.uri)
  local left, right, what = {}, {}, nil
  if step.kind == "delete" then
    local buf = buffer_of(path)
    if buf then
      left = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    elseif vim.fn.filereadable(path) == 1 then
      left = vim.fn.readfile(path)
    end
    what = "delete " .. relative(path)
  elseif step.kind == "rename" then
    what = "rename " .. relative(path) .. " to " .. relative(vim.uri_to_fname(change.newUri))
    left = { what }
  else
    what = "create " .. relative(path) .. " (empty)"
    left = { what }
  end
  r.path = path
  r.label = r.label .. ": " .. what
  r.perform = function()
    return operations[step.kind](change)
  end
  new_tab(r, left)
  pcall(vim.api.nvim_buf_set_name, r.orig, "gemini://" .. step.kind .. "/" .. relative(path))
  if step.kind == "delete" then
    local keep = vim.api.nvim_get_current_win()
    vim.cmd("diffthis")
    vim.cmd("rightbelow vsplit")
    r.win = vim.api.nvim_get_current_win()
    r.buf = scratch(right, "gemini://deleted/" .. relative(path))
    vim.api.nvim_win_set_buf(r.win, r.buf)
    vim.cmd("diffthis")
    label_sides(keep, r.win, relative(path))
  else
    r.win = vim.api.nvim_get_current_win()
    r.buf = r.orig
  end
  return "ga accept, gr reject"
end

-- Opens the review of one step, or queues it behind the one on screen.
function open_step(step, respond, opts)
  if M.current then
    table.insert(queue, { step = step, respond = respond, opts = opts })
    return
  end
  local r = { id = opts.id, kind = step.kind, respond = respond, opts = opts, label = step.label }
  local keys = step.kind == "text" and open_text(r, step) or open_operation(r, step)
  r.keys = keys
  M.current = r
  vim.api.nvim_tabpage_set_var(r.tab, "gemini_review", r.label)

  local maps = {
    ga = { M.accept, "Gemini: accept the change" },
    gr = { M.reject, "Gemini: reject the change" },
  }
  if r.kind == "text" then
    maps.gx = { M.drop_hunk, "Gemini: drop the hunk under the cursor" }
    maps.gy = { M.take_hunk, "Gemini: take the proposal's hunk under the cursor" }
    maps.gi = { M.edit_proposal, "Gemini: edit the proposal" }
  end
  for _, b in ipairs(r.buf == r.orig and { r.buf } or { r.buf, r.orig }) do
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
  -- The tab names the review and holds its keys; a message would be
  -- gone at the next one.
  if show_tabline() then
    vim.cmd("redrawtabline")
  else
    vim.api.nvim_echo({ { r.label .. "  — " .. keys, "Title" } }, false, {})
  end
  -- A review is read and decided in Normal mode, wherever the user was
  -- typing when it came (the prompt area, sent with <C-s>).
  vim.cmd("stopinsert")
end

-- Reviews the steps of a change one after another and answers once:
-- applied when any was kept, as the server then reads what each file
-- holds.
local function open_each(steps, respond, opts)
  local applied, why = false, nil
  local function step(i)
    if i > #steps then
      respond(applied and { applied = true } or { applied = false, failureReason = why })
      return
    end
    open_step(steps[i], function(result)
      applied = applied or result.applied
      why = why or result.failureReason
      step(i + 1)
    end, opts)
  end
  step(1)
end

--- Opens a review of an annotated workspace edit: each text document and
--- each file operation (create, delete, rename) in turn. respond(result)
--- is called once the user decides.
function M.open(params, respond, opts)
  local label = params.label or "Gemini: edit"
  local steps = steps_of(params.edit or {})
  if #steps == 0 then
    respond({ applied = false, failureReason = "the change has no text edits or file operations" })
    return
  end
  for i, s in ipairs(steps) do
    s.label = #steps > 1 and string.format("%s (file %d of %d)", label, i, #steps) or label
  end
  if #steps == 1 then
    return open_step(steps[1], respond, opts)
  end
  open_each(steps, respond, opts)
end

function M.pending()
  return (M.current and 1 or 0) + #queue
end

return M
