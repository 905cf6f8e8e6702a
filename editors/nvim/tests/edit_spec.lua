-- script: edit.json
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })
local review = gemini.review

local messages = {}
vim.notify = function(msg, level)
  table.insert(messages, { msg = msg, level = level })
end

local function requests()
  local out = {}
  for line in io.lines(os.getenv("GEMINI_REQUESTS")) do
    local r = vim.json.decode(line)
    if r.body and r.body.contents then
      table.insert(out, r.body)
    end
  end
  return out
end

-- The text the model was sent in request i (from 1).
local function sent(i)
  local r = requests()[i]
  local parts = {}
  for _, c in ipairs(r.contents or {}) do
    for _, p in ipairs(c.parts or {}) do
      table.insert(parts, p.text or "")
    end
  end
  return table.concat(parts, "\n"), r
end

local function last_message()
  return messages[#messages] and messages[#messages].msg
end

local function await_message(want)
  wait_for("the message " .. want, function() return last_message() == want end, 15000)
end

describe(":GeminiEdit", function()
  it("rewrites the lines of a range, reviewed and accepted with ga, without the chat", function()
    vim.cmd("edit numbers.txt")
    vim.cmd("1,2GeminiEdit make them capitals")
    wait_for("the review tab", function() return review.current ~= nil end, 15000)
    local r = review.current
    eq({ "one", "two" }, vim.api.nvim_buf_get_lines(r.orig, 0, 2, false), "original on the left")
    eq({ "ONE", "TWO", "three" }, vim.api.nvim_buf_get_lines(r.buf, 0, 3, false), "proposal on the right")
    vim.api.nvim_set_current_win(r.win)
    vim.api.nvim_feedkeys("ga", "mx", false)
    await_message("Gemini edited the selection in numbers.txt.")
    eq("ONE\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n", read_file("numbers.txt"), "disk after ga")
    local text, req = sent(1)
    assert(text:find("File: numbers.txt", 1, true) and text:find("The selection is lines 1-2.", 1, true), text)
    assert(text:find("<selection>one\ntwo\n</selection>three", 1, true), text)
    assert(text:find("Instruction: make them capitals", 1, true), text)
    eq(nil, req.tools, "tools sent with the edit")
    eq(nil, gemini.chat.buf, "the chat opened")
    eq(nil, gemini.state.session_id, "a session")
  end)

  it("rejected with gr, leaves the buffer as it was and says so", function()
    vim.cmd("4,5GeminiEdit shout")
    wait_for("the review tab", function() return review.current ~= nil end, 15000)
    local r = review.current
    eq({ "FOUR", "FIVE" }, vim.api.nvim_buf_get_lines(r.buf, 3, 5, false), "the fence taken off the proposal")
    vim.api.nvim_set_current_win(r.win)
    vim.api.nvim_feedkeys("gr", "mx", false)
    await_message("Gemini's edit of numbers.txt was rejected; nothing changed.")
    eq({ "four", "five" }, vim.api.nvim_buf_get_lines(r.file, 3, 5, false), "the file's buffer")
    eq("ONE\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n", read_file("numbers.txt"), "disk unchanged")
  end)

  it("takes a characterwise selection exactly", function()
    vim.api.nvim_win_set_cursor(0, { 7, 0 })
    vim.cmd("normal! v4l\27") -- "seven" selected, then left
    vim.cmd("'<,'>GeminiEdit add a half")
    wait_for("the review tab", function() return review.current ~= nil end, 15000)
    local r = review.current
    eq("seven and a half", vim.api.nvim_buf_get_lines(r.buf, 6, 7, false)[1], "the word replaced, the line kept")
    local text = sent(3)
    assert(text:find("six\n<selection>seven</selection>\neight", 1, true), text)
    review.accept()
    await_message("Gemini edited the selection in numbers.txt.")
  end)

  it("asks for the instruction when none is given, and rewrites the cursor's line without a range", function()
    vim.ui.input = function(opts, cb)
      eq("Gemini edit: ", opts.prompt, "the question")
      cb("capitals")
    end
    vim.api.nvim_win_set_cursor(0, { 9, 0 })
    vim.cmd("GeminiEdit")
    wait_for("the review tab", function() return review.current ~= nil end, 15000)
    local r = review.current
    eq({ "eight", "NINE", "TEN" }, vim.api.nvim_buf_get_lines(r.buf, 7, 10, false), "line 9 rewritten")
    local text = sent(4)
    assert(text:find("The selection is on line 9.", 1, true) and text:find("<selection>nine\n</selection>ten", 1, true), text)
    review.reject()
    await_message("Gemini's edit of numbers.txt was rejected; nothing changed.")
  end)
end)
