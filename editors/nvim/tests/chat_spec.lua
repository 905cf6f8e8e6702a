-- script: chat.json
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })

describe("chat", function()
  it("streams the answer, the thought and the tool call into the chat buffer", function()
    vim.cmd("edit notes.txt")
    local done
    gemini.prompt("find the TODOs", gemini.context(0), function(err, result)
      done = { err = err, result = result }
    end)
    wait_for("the prompt to end", function() return done ~= nil end)
    eq(nil, done.err, "error")
    eq("end_turn", done.result.stopReason, "stopReason")
    local text = table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
    eq("markdown", vim.bo[gemini.chat.buf].filetype, "filetype")
    assert(text:find("> Thought: Looking for TODOs\n> I'll search the workspace.", 1, true), "thought missing:\n" .. text)
    assert(not text:find("{{{", 1, true) and not text:find("}}}", 1, true), "fold markers in the chat:\n" .. text)
    assert(text:find("Let me search for TODO markers.", 1, true), "first text missing:\n" .. text)
    assert(text:find("- ✓ ", 1, true) and text:find("(ok)", 1, true), "tool line not updated to ok:\n" .. text)
    assert(not text:find("(running)", 1, true), "tool line still running:\n" .. text)
    assert(text:find("That grep_search call found the TODO markers", 1, true), "answer missing:\n" .. text)
    assert(gemini.state.session_id, "no session id kept")
  end)

  it("wraps at words, under the indent, with the thought and the tool's output in closed folds that say what they hide", function()
    local win = gemini.chat.show()
    eq({ true, true, true }, { vim.wo[win].wrap, vim.wo[win].linebreak, vim.wo[win].breakindent }, "wrap, linebreak, breakindent")
    local lines = vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false)
    local thought, tool
    for i, l in ipairs(lines) do
      thought = thought or (l:find("^> Thought: ") and i)
      tool = tool or (l:find("^%- ✓ ") and i)
    end
    assert(thought and tool, table.concat(lines, "\n"))
    vim.api.nvim_win_call(win, function()
      eq(thought, vim.fn.foldclosed(thought + 1), "the thought's fold, closed")
      eq("> Thought: Looking for TODOs  (1 more line)", vim.fn.foldtextresult(thought), "the thought's fold text")
      eq(tool, vim.fn.foldclosed(tool + 1), "the tool's output folded under its line")
      assert(vim.fn.foldtextresult(tool):find('^%- ✓ SearchText "TODO".* %(%d+ more lines?%)$'), vim.fn.foldtextresult(tool))
    end)
    -- A window that shows the chat later has the same folds.
    vim.api.nvim_win_close(win, true)
    win = gemini.chat.show()
    vim.api.nvim_win_call(win, function()
      eq(thought, vim.fn.foldclosed(thought + 1), "the thought's fold in a new window")
      eq(tool, vim.fn.foldclosed(tool + 1), "the tool's fold in a new window")
    end)
  end)

  it("lists the session in :GeminiSessions and continues the chosen one", function()
    local sid = gemini.state.session_id
    vim.cmd("GeminiNewSession")
    eq(nil, gemini.state.session_id, "session after :GeminiNewSession")
    local offered
    vim.ui.select = function(items, opts, cb)
      offered = items
      cb(items[1], 1)
    end
    vim.cmd("GeminiSessions")
    wait_for("the sessions list", function() return offered ~= nil end)
    eq("find the TODOs", offered[1].title, "title")
    wait_for("the session to be continued", function() return gemini.state.session_id ~= nil end)
    eq(sid, gemini.state.session_id, "continued session")
  end)

  it("asks from the chat window with <CR> through vim.ui.input (input = \"ui\") and closes it with q", function()
    gemini.config.input = "ui"
    local win = gemini.chat.show()
    vim.api.nvim_set_current_win(win)
    vim.ui.input = function(_, cb)
      cb("one more question")
    end
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<CR>", true, false, true), "mx", false)
    wait_for("the answer", function()
      return table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n"):find("Asked from the chat.", 1, true) ~= nil
    end)
    wait_for("the prompt to end", function() return not gemini.state.prompt_running end)
    local text = table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
    assert(text:find("## Prompt\n\none more question", 1, true), text)
    vim.api.nvim_set_current_win(win)
    vim.api.nvim_feedkeys("q", "mx", false)
    eq(false, vim.api.nvim_win_is_valid(win), "chat window open")
  end)
end)
