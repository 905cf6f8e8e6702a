-- script: nextedit.json
-- A next edit out of the window's view: said at the cursor; the accept key
-- first jumps to it, then applies it.
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") }, next_edit = { enabled = false } })

describe("next edit", function()
  it("jumps to an edit out of view before applying it", function()
    local lines = { "def report(items):", "    count = len(items)" }
    for i = 1, 60 do
      table.insert(lines, "    # step " .. i)
    end
    table.insert(lines, "    return count")
    vim.fn.writefile(lines, "report.py")
    vim.cmd("edit report.py")
    local buf = vim.api.nvim_get_current_buf()
    wait_for("gemini-ls ready", function() return gemini.statusline() == "Gemini: gemini-2.5-pro" end)
    vim.api.nvim_win_set_cursor(0, { 2, 4 })
    vim.cmd("normal! ciwtotal")
    vim.cmd("stopinsert")
    local edits, failure
    gemini.nextedit.request(buf, function(err, got) edits, failure = got, err end)
    wait_for("the next edit", function() return edits ~= nil or failure ~= nil end)
    eq(nil, failure, "the request's error")
    eq(1, #edits, "edits")
    eq(62, edits[1].range.start.line, "the edit's line")
    local hint = false
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, gemini.nextedit.ns, { 1, 0 }, { 1, -1 }, { details = true })) do
      local text = m[4].virt_text and m[4].virt_text[1][1] or ""
      hint = hint or text:find("next edit at line 63, <Tab> jumps there", 1, true) ~= nil
    end
    assert(hint, "no hint at the cursor of the edit out of view")
    assert(gemini.nextedit.accept(buf), "the first accept did nothing")
    eq(63, vim.api.nvim_win_get_cursor(0)[1], "the cursor's line after the first accept")
    eq("    return count", vim.api.nvim_buf_get_lines(buf, 62, 63, false)[1], "the line before the second accept")
    assert(gemini.nextedit.accept(buf), "the second accept did nothing")
    eq("    return total", vim.api.nvim_buf_get_lines(buf, 62, 63, false)[1], "the line after the second accept")
  end)
end)
