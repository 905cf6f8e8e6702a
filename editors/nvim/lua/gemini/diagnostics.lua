-- gemini/diagnostics (docs/protocol.md §9c): the server asks for the
-- diagnostics Neovim shows (vim.diagnostic.get: what the other language
-- servers and linters reported), for the model's get_diagnostics and to
-- tell the model the errors its edit brought.
local pos = require("gemini.pos")

local M = {}

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
--- is named, of every file buffer that has some; positions in encoding.
function M.answer(params, encoding)
  local items = {}
  local uris = type(params) == "table" and params.uris or nil
  if type(uris) == "table" and #uris > 0 then
    for _, uri in ipairs(uris) do
      local buf = buffer_named(vim.uri_to_fname(uri))
      table.insert(items, { uri = uri, diagnostics = buf and of_buffer(buf, encoding) or {} })
    end
    return { items = items }
  end
  local seen = {}
  for _, d in ipairs(vim.diagnostic.get()) do
    local buf = d.bufnr
    if not seen[buf] and vim.api.nvim_buf_is_loaded(buf) and vim.api.nvim_buf_get_name(buf) ~= "" and vim.bo[buf].buftype == "" then
      seen[buf] = true
      table.insert(items, { uri = vim.uri_from_bufnr(buf), diagnostics = of_buffer(buf, encoding) })
    end
  end
  return { items = items }
end

return M
