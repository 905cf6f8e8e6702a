-- script: workflow.json
-- The rest of what a user does: prompts with a range, diagnostics, Explain
-- and Fix; cancelling while working and while reviewing; taking a hunk back;
-- rejecting a shell command; the statusline state.
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })
local review = gemini.review

local function chat_text()
  return table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
end

-- The text of the user turn the model got last, from fakegemini's record.
local function last_prompt()
  local f = assert(io.open(os.getenv("GEMINI_REQUESTS")))
  local last
  for line in f:lines() do
    last = vim.json.decode(line)
  end
  f:close()
  local contents = last.body.contents
  local texts = {}
  for _, p in ipairs(contents[#contents].parts) do
    table.insert(texts, p.text or "")
  end
  return table.concat(texts, "\n")
end

local function has(haystack, needle, what)
  if not haystack:find(needle, 1, true) then
    error(string.format("%s: %q not in:\n%s", what, needle, haystack), 2)
  end
end

-- Waits for the prompt the command started to end, through the statusline.
local function wait_idle()
  wait_for("the prompt to end", function() return not gemini.state.prompt_running end, 15000)
end

local function run(cmd)
  vim.cmd(cmd)
  wait_for("the prompt to start", function() return gemini.state.prompt_running end)
  wait_idle()
end

describe("workflow", function()
  it(":'<,'>Gemini sends the selected lines as context", function()
    vim.cmd("edit numbers.txt")
    run("2,3Gemini what are these")
    local sent = last_prompt()
    has(sent, "what are these", "prompt")
    has(sent, "numbers.txt", "file")
    -- The editor context is JSON, as Gemini CLI's IDE context.
    has(sent, '"selectedText": "two\\nthree"', "selection")
    has(chat_text(), "Lines two and three.", "answer")
    -- A turn that simply ended says nothing of the protocol's stop reason.
    assert(not chat_text():find("end_turn", 1, true), "the chat shows end_turn:\n" .. chat_text())
  end)

  it(":GeminiExplain asks to explain the code at the cursor", function()
    vim.api.nvim_win_set_cursor(0, { 5, 0 })
    run("GeminiExplain")
    local sent = last_prompt()
    has(sent, "Explain this code.", "prompt")
    has(sent, "numbers.txt", "file")
    has(chat_text(), "It counts to ten.", "answer")
  end)

  it(":GeminiFix sends the file's diagnostics", function()
    local ns = vim.api.nvim_create_namespace("gemini-test")
    vim.diagnostic.set(ns, 0, { { lnum = 6, col = 0, end_col = 5, severity = vim.diagnostic.severity.ERROR, message = "seven is unlucky", source = "numcheck" } })
    run("GeminiFix")
    local sent = last_prompt()
    has(sent, "Fix the diagnostics here.", "prompt")
    has(sent, "seven is unlucky", "diagnostic")
    vim.diagnostic.reset(ns, 0)
  end)

  it(":GeminiCancel stops a prompt while the model works, and the statusline follows", function()
    eq("", gemini.status(), "status before")
    vim.cmd("Gemini think it over")
    wait_for("the streamed text", function() return chat_text():find("Thinking it over...", 1, true) ~= nil end)
    eq("Gemini: working", gemini.status(), "status while working")
    eq("Gemini: working", vim.g.gemini_status, "g:gemini_status while working")
    vim.cmd("GeminiCancel")
    wait_idle()
    has(chat_text(), "\nCancelled.", "chat")
    eq("", gemini.status(), "status after")
  end)

  it(":GeminiCancel during a review closes it, the file's buffer untouched", function()
    local tabs = #vim.api.nvim_list_tabpages()
    vim.cmd("Gemini make four loud")
    wait_for("the diff tab", function() return review.current ~= nil end)
    local r = review.current
    eq("FOUR", vim.api.nvim_buf_get_lines(r.buf, 3, 4, false)[1], "proposal")
    eq("Gemini: reviewing", gemini.status(), "status while reviewing")
    vim.cmd("GeminiCancel")
    wait_idle()
    wait_for("the review to close", function() return review.current == nil end)
    eq(tabs, #vim.api.nvim_list_tabpages(), "tabs")
    eq("four", vim.api.nvim_buf_get_lines(r.file, 3, 4, false)[1], "the file's buffer")
    eq(false, vim.bo[r.file].modified, "the file's buffer unmodified")
    eq(false, vim.api.nvim_buf_is_valid(r.buf), "the proposal's buffer left behind")
    eq("one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n", read_file("numbers.txt"), "disk")
    has(chat_text(), "\nCancelled.", "chat")
    eq("", gemini.status(), "status after")
  end)

  it("gy takes back a hunk that gx dropped", function()
    vim.cmd("Gemini change one and nine")
    wait_for("the diff tab", function() return review.current ~= nil end)
    local r = review.current
    vim.api.nvim_set_current_win(r.win)
    vim.api.nvim_win_set_cursor(r.win, { 9, 0 })
    vim.api.nvim_feedkeys("gx", "mx", false)
    eq("nine", vim.api.nvim_buf_get_lines(r.buf, 8, 9, false)[1], "dropped")
    vim.api.nvim_feedkeys("gy", "mx", false)
    eq("NINE", vim.api.nvim_buf_get_lines(r.buf, 8, 9, false)[1], "taken back")
    -- From the original's side too: drop the first hunk there, take it back.
    vim.api.nvim_set_current_win(vim.fn.win_getid(vim.fn.bufwinnr(r.orig)))
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    vim.api.nvim_feedkeys("gx", "mx", false)
    eq("one", vim.api.nvim_buf_get_lines(r.buf, 0, 1, false)[1], "dropped from the left")
    vim.api.nvim_feedkeys("gy", "mx", false)
    eq("ONE", vim.api.nvim_buf_get_lines(r.buf, 0, 1, false)[1], "taken back from the left")
    vim.api.nvim_feedkeys("ga", "mx", false)
    wait_idle()
    eq("ONE\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nNINE\nten\n", read_file("numbers.txt"), "disk")
    has(chat_text(), "Changed one and nine.", "answer")
  end)

  it("one gemini-ls serves every buffer", function()
    vim.cmd("edit notes.txt")
    vim.cmd("edit numbers.txt")
    -- Attached once the events' other autocommands ran (filetype
    -- detection): on the next turn of the loop.
    vim.wait(100)
    local ours = {}
    for _, c in ipairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
      if c.name == "gemini-ls" then
        table.insert(ours, c.id)
      end
    end
    eq(1, #ours, "gemini-ls clients")
    for _, name in ipairs({ "notes.txt", "numbers.txt" }) do
      eq(true, vim.lsp.buf_is_attached(vim.fn.bufnr(name), ours[1]), name .. " attached")
    end
  end)

  it("Reject at the shell question keeps the command from running", function()
    vim.ui.select = function(items, _, cb)
      vim.defer_fn(function() cb(items[3], 3) end, 10)
    end
    run("Gemini touch it")
    eq(0, vim.fn.filereadable("rejected.txt"), "file made by the command")
    has(chat_text(), "(rejected)", "tool line")
    has(chat_text(), "Not run.", "answer")
  end)

  it("a review that cannot open answers with an error instead of leaving the server waiting", function()
    local open = review.open
    review.open = function()
      error("no room for a tab")
    end
    local notes = {}
    local notify = vim.notify
    vim.notify = function(msg) table.insert(notes, msg) end
    run("Gemini make five loud")
    review.open, vim.notify = open, notify
    has(chat_text(), "The review failed.", "answer after the failed review")
    has(chat_text(), "(error)", "tool line")
    eq("", gemini.status(), "status after")
    has(table.concat(notes, "\n"), "no room for a tab", "notification")
    eq("ONE\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nNINE\nten\n", read_file("numbers.txt"), "disk as the gy test left it")
  end)
end)
