-- script: toolcall.json
-- A tool call's row says what the call is about: the file and line it
-- reads or edits (an edit's line is where its change starts in the
-- editor's text), on a line of its own that gf follows to that line, its
-- kind as a tag; write_todos's list is the chat's plan, one block that
-- each list replaces in place.
local gemini = require("gemini")
-- auto_edit lands the edit without a review; a folder the user has not
-- trusted runs in the default mode whatever is asked, so trust it.
vim.env.GEMINI_CLI_TRUST_WORKSPACE = "true"
gemini.setup({ cmd = { os.getenv("GEMINI_LS") }, approval_mode = "auto_edit" })
local chat = gemini.chat

local function chat_lines()
  return vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
end

-- The 0-based row of the first chat line that starts with prefix.
local function row_of(prefix)
  for i, l in ipairs(chat_lines()) do
    if l:sub(1, #prefix) == prefix then
      return i - 1
    end
  end
  error("no line starts with " .. prefix .. ":\n" .. table.concat(chat_lines(), "\n"))
end

local function count(text, needle)
  local n, from = 0, 1
  while true do
    local at = text:find(needle, from, true)
    if not at then
      return n
    end
    n, from = n + 1, at + 1
  end
end

describe("tool calls", function()
  local plans = {}
  it("show the file and line of each call, its kind, and the to-do list as one plan updated in place", function()
    -- notes.txt's TODO is on line 1 on disk and on line 3 in the editor,
    -- unsaved: the edit's line is the editor's.
    vim.cmd("edit notes.txt")
    local notes = vim.api.nvim_get_current_buf()
    vim.api.nvim_buf_set_lines(notes, 0, 0, false, { "# Notes", "" })
    vim.cmd("hide edit numbers.txt")
    wait_for("notes.txt open in the server", function()
      return gemini.client_id ~= nil and vim.lsp.buf_is_attached(notes, gemini.client_id)
    end)
    -- The plan as it stands after each write_todos call.
    local handle = chat.handlers.toolCall
    chat.handlers.toolCall = function(u)
      handle(u)
      if u.name == "write_todos" then
        local first, last = chat.plan_rows()
        table.insert(plans, vim.api.nvim_buf_get_lines(chat.buf, first, last + 1, false))
      end
    end
    local done
    gemini.prompt("read and fix", gemini.context(0), function(err, result)
      done = { err = err, result = result }
    end)
    wait_for("the prompt to end", function() return done ~= nil end, 15000)
    chat.handlers.toolCall = handle
    eq(nil, done.err, "error")
    local text = table.concat(chat_lines(), "\n")
    assert(text:find("- ✓ ReadFile numbers.txt (lines 3-4) (ok)\n  → numbers.txt:3\n", 1, true), text)
    assert(text:find("- ✓ Edit notes.txt (ok)\n  → notes.txt:3\n", 1, true), text)
    local tags = chat.kind_tags()
    eq("[read]", tags[row_of("- ✓ ReadFile")], "the read's kind")
    eq("[edit]", tags[row_of("- ✓ Edit")], "the edit's kind")
    eq({ "> Plan:", "> ◐ Read the numbers", "> ○ Fix the note" }, plans[1], "the first plan")
    eq({ "> Plan:", "> ✓ Read the numbers", "> ✓ Fix the note" }, plans[2], "the plan after the second list")
    eq(1, count(text, "> Plan:"), "plans in the chat:\n" .. text)
    -- The plan stays where the first list put it, above the later calls.
    assert(row_of("> Plan:") < row_of("- ✓ Edit"), text)
    eq({ "> ✓ Read the numbers", "> ✓ Fix the note" }, vim.api.nvim_buf_get_lines(chat.buf, row_of("> Plan:") + 1, row_of("> Plan:") + 3, false), "the plan in the chat")
  end)

  it("opens the file of a call at its line with gf, from its location line or its own line, an edit's where it changed", function()
    local win = chat.show()
    vim.api.nvim_set_current_win(win)
    -- The read's output is folded under its line: open the folds to
    -- reach its location line.
    vim.cmd("normal! zR")
    vim.api.nvim_win_set_cursor(win, { row_of("  → numbers.txt:3") + 1, 0 })
    vim.api.nvim_feedkeys("gf", "mx", false)
    assert(vim.api.nvim_get_current_win() ~= win, "gf stayed in the chat")
    eq(vim.fn.resolve(vim.fn.getcwd() .. "/numbers.txt"), vim.fn.resolve(vim.api.nvim_buf_get_name(0)), "the file gf opened")
    eq(3, vim.api.nvim_win_get_cursor(0)[1], "the line gf went to")
    vim.api.nvim_set_current_win(win)
    vim.api.nvim_win_set_cursor(win, { row_of("- ✓ Edit") + 1, 0 })
    vim.api.nvim_feedkeys("gf", "mx", false)
    eq(vim.fn.resolve(vim.fn.getcwd() .. "/notes.txt"), vim.fn.resolve(vim.api.nvim_buf_get_name(0)), "the edited file gf opened")
    eq(3, vim.api.nvim_win_get_cursor(0)[1], "the line of the edit gf went to")
    eq("done here", vim.api.nvim_get_current_line(), "the edited line")
  end)
end)
