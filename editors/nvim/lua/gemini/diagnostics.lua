-- gemini/diagnostics (docs/protocol.md §9c): the server asks for the
-- diagnostics Neovim shows (vim.diagnostic.get: what the other language
-- servers and linters reported), for the model's get_diagnostics and to
-- tell the model the errors its edit brought.
local pos = require("gemini.pos")

local M = {}

-- The document version each language server last published diagnostics
-- of, by file name, then client id: a buffer holding a later text than
-- one of its servers checked is pending. A server may publish the
-- diagnostics of a text it saw halfway through an edit (a rename's files
-- landing one by one) after the edit landed; they show until it checks
-- the last text.
local published = {}
-- When each server was first seen behind a buffer's text, by file name,
-- then client id: a server that does not publish again when its
-- diagnostics did not change (it need not) is pending for pending_ms at
-- most, not for good.
local behind_since = {}

--- How long a server seen behind a buffer's text counts as pending, ms.
M.pending_ms = 5000

--- Records the version each publishDiagnostics names, passing it on to the
--- handler Neovim had (vim.lsp.handlers'; a server's own handler, set in
--- its configuration, is not watched, and its files are never pending).
function M.track()
  if M.tracking then
    return
  end
  M.tracking = true
  local method = "textDocument/publishDiagnostics"
  local inner = vim.lsp.handlers[method]
  vim.lsp.handlers[method] = function(err, result, ctx, config)
    if type(result) == "table" and type(result.uri) == "string" and type(ctx) == "table" and ctx.client_id then
      local ok, fname = pcall(vim.uri_to_fname, result.uri)
      if ok then
        published[fname] = published[fname] or {}
        published[fname][ctx.client_id] = type(result.version) == "number" and result.version or nil
        if behind_since[fname] then
          behind_since[fname][ctx.client_id] = nil
        end
      end
    end
    return inner(err, result, ctx, config)
  end
end

-- Whether a language server attached to buf last published diagnostics
-- of an older text than buf holds (vim.lsp.util.buf_versions: the
-- version the servers are sent, which a write does not change), since
-- less than M.pending_ms.
local function pending(buf)
  local fname = vim.api.nvim_buf_get_name(buf)
  local by_client = published[fname]
  local now = vim.lsp.util.buf_versions[buf]
  if not by_client or type(now) ~= "number" then
    return false
  end
  local ms = (vim.uv or vim.loop).now()
  for id, version in pairs(by_client) do
    if version < now and vim.lsp.buf_is_attached(buf, id) then
      behind_since[fname] = behind_since[fname] or {}
      local since = behind_since[fname][id] or ms
      behind_since[fname][id] = since
      if ms - since < M.pending_ms then
        return true
      end
    end
  end
  return false
end

-- The loaded buffer named fname, if any: never a new one.
local function buffer_named(fname)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.api.nvim_buf_get_name(buf) == fname then
      return buf
    end
  end
end

-- The diagnostics of buf as LSP Diagnostic[], positions in encoding.
local function of_buffer(buf, encoding)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out, {
      range = {
        start = pos.to_lsp(buf, d.lnum, d.col or 0, encoding),
        ["end"] = pos.to_lsp(buf, d.end_lnum or d.lnum, d.end_col or d.col or 0, encoding),
      },
      severity = d.severity,
      message = d.message,
      source = d.source,
      code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code),
    })
  end
  return out
end

--- gemini/diagnostics' result for params: the diagnostics of the buffer
--- of each URI asked about (none when no buffer holds it), or, when none
--- is named, of every file buffer that has some; positions in encoding;
--- pending where a language server has not yet checked the buffer's text.
function M.answer(params, encoding)
  local items = {}
  local uris = type(params) == "table" and params.uris or nil
  if type(uris) == "table" and #uris > 0 then
    for _, uri in ipairs(uris) do
      local buf = buffer_named(vim.uri_to_fname(uri))
      table.insert(items, { uri = uri, diagnostics = buf and of_buffer(buf, encoding) or {}, pending = buf and pending(buf) or nil })
    end
    return { items = items }
  end
  local seen = {}
  for _, d in ipairs(vim.diagnostic.get()) do
    local buf = d.bufnr
    if not seen[buf] and vim.api.nvim_buf_is_loaded(buf) and vim.api.nvim_buf_get_name(buf) ~= "" and vim.bo[buf].buftype == "" then
      seen[buf] = true
      table.insert(items, { uri = vim.uri_from_bufnr(buf), diagnostics = of_buffer(buf, encoding), pending = pending(buf) or nil })
    end
  end
  return { items = items }
end

return M
