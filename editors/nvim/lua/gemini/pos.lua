-- Positions between Neovim (0-based rows, byte columns) and the LSP (lines
-- and characters in the client's offset encoding), on every supported
-- Neovim: vim.str_utfindex and vim.str_byteindex changed their arguments
-- in 0.11.
local M = {}

local new_api = vim.fn.has("nvim-0.11") == 1

-- The LSP character of byte column col (0-based) in line.
function M.character(line, col, encoding)
  col = math.min(col, #line)
  if encoding == "utf-8" then
    return col
  end
  if new_api then
    return vim.str_utfindex(line, encoding, col, false)
  end
  local utf32, utf16 = vim.str_utfindex(line, col)
  return encoding == "utf-32" and utf32 or utf16
end

-- The byte column (0-based) of LSP character character in line.
function M.byte(line, character, encoding)
  if encoding == "utf-8" then
    return math.min(character, #line)
  end
  if new_api then
    return vim.str_byteindex(line, encoding, character, false)
  end
  local ok, b = pcall(vim.str_byteindex, line, character, encoding ~= "utf-32")
  return ok and b or #line
end

local function line_of(buf, row)
  return vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ""
end

--- The LSP position of (row, col) in buf.
function M.to_lsp(buf, row, col, encoding)
  return { line = row, character = M.character(line_of(buf, row), col, encoding) }
end

--- The (row, col) of the LSP position pos in buf.
function M.from_lsp(buf, pos, encoding)
  return pos.line, M.byte(line_of(buf, pos.line), pos.character, encoding)
end

--- The LSP position of the cursor of window win (0: the current one).
function M.cursor(buf, encoding, win)
  local c = vim.api.nvim_win_get_cursor(win or 0)
  return M.to_lsp(buf, c[1] - 1, c[2], encoding)
end

return M
