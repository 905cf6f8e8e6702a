-- script: review.json
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })
local review = gemini.review

local function run(prompt)
  local done
  gemini.prompt(prompt, gemini.context(0), function(err, result)
    done = { err = err, result = result }
  end)
  return function()
    wait_for("the prompt to end", function() return done ~= nil end, 15000)
    eq(nil, done.err, "error")
    return done.result
  end
end

local function chat_text()
  return table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
end

-- The function responses of the model's last request, as JSON.
local function last_request_text()
  local last
  for line in io.lines(os.getenv("GEMINI_REQUESTS")) do
    last = line
  end
  return vim.json.decode(last).body and vim.json.encode(vim.json.decode(last).body.contents) or ""
end

local function on_disk()
  return read_file("numbers.txt")
end

describe("review", function()
  it("accepting with ga keeps the proposal and saves it", function()
    vim.cmd("edit numbers.txt")
    local finish = run("change two")
    wait_for("the diff tab", function() return review.current ~= nil end)
    local r = review.current
    eq(2, #vim.api.nvim_tabpage_list_wins(0), "windows in the review tab")
    eq(true, vim.wo.diff, "diff on")
    eq("two", vim.api.nvim_buf_get_lines(r.orig, 1, 2, false)[1], "original on the left")
    eq("TWO", vim.api.nvim_buf_get_lines(r.buf, 1, 2, false)[1], "proposal on the right")
    -- The proposal is a scratch buffer of its own: the file's buffer is
    -- untouched, and a :wa with 'autowriteall' writes nothing.
    eq("gemini://proposed/numbers.txt", vim.api.nvim_buf_get_name(r.buf), "the proposal's name")
    eq("nofile", vim.bo[r.buf].buftype, "the proposal's buftype")
    eq(false, vim.bo[r.buf].buflisted, "the proposal listed")
    eq(false, vim.lsp.buf_is_attached(r.buf, gemini.client_id), "gemini-ls attached to the proposal")
    eq(vim.fn.bufnr("numbers.txt"), r.file, "the file's buffer")
    eq("two", vim.api.nvim_buf_get_lines(r.file, 1, 2, false)[1], "the file's buffer during the review")
    eq(false, vim.bo[r.file].modified, "the file's buffer modified during the review")
    vim.o.autowriteall = true
    vim.cmd("silent! wall")
    vim.o.autowriteall = false
    eq("one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n", on_disk(), "disk before accepting")
    -- The tab names the review and holds its keys, which a message
    -- printed since does not take away.
    vim.api.nvim_echo({ { "a later message" } }, false, {})
    local tabline = vim.api.nvim_eval_statusline(vim.o.tabline, { use_tabline = true, maxwidth = 200 }).str
    assert(tabline:find(" Gemini: edit numbers.txt (+1 −1) ", 1, true), tabline)
    assert(tabline:find("ga accept, gr reject, gx drop hunk, gy take hunk, gi edit, ]c/[c next/previous hunk", 1, true), tabline)
    assert(not tabline:find("2+ numbers.txt", 1, true), tabline)
    eq("Gemini: edit numbers.txt (+1 −1)", vim.t.gemini_review, "the tab's variable, for a tab line of the user's")
    -- Not editable but on purpose.
    eq(false, vim.bo[r.buf].modifiable, "the proposal modifiable")
    vim.api.nvim_set_current_win(r.win)
    vim.api.nvim_feedkeys("ga", "mx", false)
    local result = finish()
    eq("TWO", vim.api.nvim_buf_get_lines(r.file, 1, 2, false)[1], "the file's buffer after accepting")
    eq(false, vim.bo[r.file].modified, "the file's buffer modified after accepting (auto_save)")
    eq(false, vim.api.nvim_buf_is_valid(r.buf), "the proposal's buffer left behind")
    eq(false, vim.api.nvim_buf_is_valid(r.orig), "the original's buffer left behind")
    eq("end_turn", result.stopReason, "stopReason")
    eq(nil, review.current, "review closed")
    eq("", vim.o.tabline, "Neovim's own tab line back once the review closed")
    eq("one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n", on_disk(), "disk after accepting")
    assert(chat_text():find("- ✓ Edit numbers.txt (ok)", 1, true), chat_text())
  end)

  it("rejecting with gr leaves the file's buffer and the file alone", function()
    local finish = run("change three")
    wait_for("the diff tab", function() return review.current ~= nil end)
    local r = review.current
    eq("THREE", vim.api.nvim_buf_get_lines(r.buf, 2, 3, false)[1], "proposal on the right")
    vim.api.nvim_set_current_win(r.win)
    vim.api.nvim_feedkeys("gr", "mx", false)
    finish()
    eq("three", vim.api.nvim_buf_get_lines(r.file, 2, 3, false)[1], "the file's buffer")
    eq(false, vim.bo[r.file].modified, "the file's buffer modified")
    eq("one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n", on_disk(), "disk unchanged")
    assert(chat_text():find("(rejected)", 1, true), chat_text())
    -- The user's no, not the editor's failure: the answer had no failureReason.
    local told = last_request_text()
    assert(told:find("This change was not applied: the user declined the edit.", 1, true), told)
  end)

  it("dropping a hunk keeps the other hunks, and the chat says accepted in part", function()
    -- Two changes four lines apart: lines 1 and 6.
    local finish = run("change one and six")
    wait_for("the diff tab", function() return review.current ~= nil end)
    local r = review.current
    eq("Gemini: edit numbers.txt (+2 −2)", vim.t.gemini_review, "the label before gx")
    eq("SIX", vim.api.nvim_buf_get_lines(r.buf, 5, 6, false)[1], "proposal on the right")
    vim.api.nvim_set_current_win(r.win)
    vim.api.nvim_win_set_cursor(r.win, { 6, 0 })
    vim.api.nvim_feedkeys("gx", "mx", false)
    eq("six", vim.api.nvim_buf_get_lines(r.buf, 5, 6, false)[1], "hunk dropped")
    eq("ONE", vim.api.nvim_buf_get_lines(r.buf, 0, 1, false)[1], "the other hunk kept")
    -- The tab's counts are what ga would now write.
    eq("Gemini: edit numbers.txt (+1 −1)", vim.t.gemini_review, "the label after gx")
    vim.api.nvim_feedkeys("gy", "mx", false)
    eq("Gemini: edit numbers.txt (+2 −2)", vim.t.gemini_review, "the label after gy")
    vim.api.nvim_feedkeys("gx", "mx", false)
    review.accept()
    local result = finish()
    eq("end_turn", result.stopReason, "stopReason")
    eq("ONE\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n", on_disk(), "disk: first hunk only")
    assert(chat_text():find("- ✓ WriteFile numbers.txt (accepted in part: 1 of 2 changes)", 1, true), chat_text())
    local told = last_request_text()
    assert(told:find("The user accepted 1 of the 2 separate changes you proposed", 1, true), told)
  end)

  it("a file changed during the review is shown before ga puts the proposal over it", function()
    local finish = run("change ten")
    wait_for("the diff tab", function() return review.current ~= nil end)
    local r = review.current
    -- The user changes line five of the file's buffer meanwhile.
    vim.api.nvim_buf_set_lines(r.file, 4, 5, false, { "5" })
    local told = {}
    local notify = vim.notify
    vim.notify = function(msg, level)
      table.insert(told, { msg, level })
    end
    vim.api.nvim_set_current_win(r.win)
    vim.api.nvim_feedkeys("ga", "mx", false)
    vim.notify = notify
    eq(r, review.current, "the review after the first ga")
    eq({ { "Gemini: numbers.txt changed during the review; the left side shows it as it is now."
      .. " ga puts the proposal over it, gr leaves it.", vim.log.levels.WARN } }, told, "what the user was told")
    eq("5", vim.api.nvim_buf_get_lines(r.orig, 4, 5, false)[1], "the left side")
    eq("five", vim.api.nvim_buf_get_lines(r.buf, 4, 5, false)[1], "the proposal")
    -- The user keeps their line (gx on it), then accepts.
    vim.api.nvim_win_set_cursor(r.win, { 5, 0 })
    vim.api.nvim_feedkeys("gx", "mx", false)
    vim.api.nvim_feedkeys("ga", "mx", false)
    finish()
    eq(nil, review.current, "review closed")
    eq("ONE\nTWO\nthree\nfour\n5\nsix\nseven\neight\nnine\nTEN\n", on_disk(), "disk after accepting")
  end)

  it("asks before a shell command and runs it when allowed", function()
    local asked
    vim.ui.select = function(items, opts, cb)
      asked = { items = items, prompt = opts.prompt }
      vim.defer_fn(function() cb(items[1], 1) end, 10)
    end
    local finish = run("touch the marker")
    finish()
    eq({ "Allow once", "Always allow", "Reject" }, asked and asked.items, "choices")
    assert(asked.prompt:find("touch marker.txt", 1, true), asked.prompt)
    eq(1, vim.fn.filereadable("marker.txt"), "marker file")
    -- The question shows once, as the call's line, and the answer after it.
    local text = chat_text()
    local row
    for i, l in ipairs(vim.split(text, "\n", { plain = true })) do
      row = row or (l:find("^%- ✓ Shell touch marker%.txt") and i)
    end
    assert(row, text)
    eq("  → Allow once", vim.api.nvim_buf_get_lines(gemini.chat.buf, row, row + 1, false)[1], "the answer under the call:\n" .. text)
    local _, times = text:gsub("touch marker%.txt", "")
    eq(1, times, "the command's times in the chat:\n" .. text)
  end)
end)
