-- script: mode.json
-- The session's approval mode shows in the chat window's statusline, named
-- as Gemini CLI 0.61 names it, beside the model and the chat's keys, and in
-- gemini.mode(); a switch (enter_plan_mode, confirmed) is noted in the chat.
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })

local function chat_statusline()
  -- As wide as a chat window that has room for every segment.
  vim.o.columns = 200
  local win = gemini.chat.show()
  vim.api.nvim_win_set_width(win, 120)
  return vim.api.nvim_eval_statusline(vim.wo[win].statusline, { winid = win, maxwidth = 120 }).str
end

describe("approval mode", function()
  it("starts in the configured mode and becomes plan on enter_plan_mode", function()
    vim.cmd("edit notes.txt")
    eq("default", gemini.mode(), "mode before")
    wait_for("the model in the statusline", function() return chat_statusline():find("gemini-2.5-pro", 1, true) ~= nil end)
    assert(chat_statusline():find("^Gemini · gemini%-2%.5%-pro · manual +<CR> prompt · <C%-c> cancel · q close $"), chat_statusline())
    local confirms = 0
    vim.ui.select = function(items, _, cb)
      confirms = confirms + 1
      vim.defer_fn(function() cb(items[1], 1) end, 10)
    end
    local done
    gemini.prompt("plan it", nil, function(err, result)
      done = { err = err, result = result }
    end)
    wait_for("the prompt to end", function() return done ~= nil end, 15000)
    eq(nil, done.err, "error")
    eq(1, confirms, "confirmations")
    eq("plan", gemini.mode(), "mode after")
    assert(chat_statusline():find("Gemini · gemini-2.5-pro · plan ", 1, true), chat_statusline())
    local text = table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
    assert(text:find("> Mode: plan", 1, true), text)
  end)

  it("takes a resumed session's mode from the resumeSession result, where it says one", function()
    gemini.resumed("S-PLAN", "planning", nil, { session = { sessionId = "S-PLAN", title = "planning" }, exchanges = {}, mode = "plan" })
    eq("S-PLAN", gemini.state.session_id, "session")
    eq("plan", gemini.mode(), "mode of the session resumed in plan mode")
    assert(chat_statusline():find(" · plan ", 1, true), chat_statusline())
    gemini.resumed("S-EDIT", "editing", nil, { session = { sessionId = "S-EDIT" }, exchanges = {}, mode = "auto_edit" })
    eq("auto_edit", gemini.mode(), "mode of the session resumed in auto_edit mode")
    assert(chat_statusline():find(" · auto-accept edits ", 1, true), chat_statusline())
    gemini.resumed("S-YOLO", "yolo", nil, { session = { sessionId = "S-YOLO" }, exchanges = {}, mode = "yolo" })
    assert(chat_statusline():find(" · YOLO ", 1, true), chat_statusline())
    -- An older server says no mode: the configured one stands.
    gemini.resumed("S-OLD", "old", nil, { session = { sessionId = "S-OLD" }, exchanges = {} })
    eq("default", gemini.mode(), "mode of a session resumed from a server that says none")
  end)
end)
