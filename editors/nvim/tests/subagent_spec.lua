-- script: none.json
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })

local function chat_text()
  return table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
end

describe("subagent", function()
  it("shows a subagent's calls, text and report in a fold under its invoke_agent call", function()
    local sub = { parentCallId = "call_1", agentName = "codebase_investigator" }
    local function subagent(u)
      return vim.tbl_extend("force", u, sub)
    end
    -- Through the client's handler, as the server's notifications come.
    local client = gemini.client()
    local update = client.handlers["gemini/update"]
    local notified = {}
    vim.notify = function(msg)
      table.insert(notified, msg)
    end
    local win = gemini.chat.show()
    for _, u in ipairs({
      { kind = "text", text = "Let me delegate." },
      { kind = "toolCall", callId = "call_1", name = "invoke_agent", title = "Delegate to codebase_investigator" },
      { kind = "toolCall", callId = "call_2", name = "read_file", title = "ReadFile notes.txt" },
      subagent({ kind = "thought", subject = "Looking", description = "for TODOs" }),
      subagent({ kind = "toolCall", callId = "call_1", name = "grep_search", title = "SearchText 'TODO'" }),
      subagent({ kind = "text", text = "Found one" }),
      subagent({ kind = "text", text = "\nin notes.txt." }),
      subagent({ kind = "usage", model = "gemini-2.5-flash-lite", totalTokens = 9 }),
      subagent({ kind = "error", message = "the subagent ran out of turns" }),
      { kind = "toolResult", callId = "call_2", name = "read_file", status = "ok", display = "" },
      subagent({ kind = "toolResult", callId = "call_1", name = "grep_search", status = "ok", display = "" }),
      { kind = "toolResult", callId = "call_1", name = "invoke_agent", status = "ok", display = "The TODO is in notes.txt:1." },
      { kind = "text", text = "Done." },
    }) do
      u.sessionId = "s1"
      update(nil, u, { client_id = client.id })
    end
    eq(table.concat({
      "Let me delegate.",
      "- ✓ Delegate to codebase_investigator (ok)",
      "    > Thought: Looking",
      "    - ✓ SearchText 'TODO' (ok)",
      "",
      "    Found one",
      "    in notes.txt.",
      "    Error: the subagent ran out of turns",
      "  The TODO is in notes.txt:1.",
      "- ✓ ReadFile notes.txt (ok)",
      "Done.",
    }, "\n"), chat_text(), "chat")
    -- The statusline's model is the main agent's, and the subagent's
    -- error is under its call only.
    eq(nil, gemini.state.model.answered, "the model that answered")
    eq(0, #notified, "notifications: " .. table.concat(notified, "; "))
    -- The run is folded under the call's line, closed, with no fold
    -- markers; the report, prose, stays open below it.
    vim.api.nvim_win_call(win, function()
      eq(2, vim.fn.foldclosed(3), "the subagent's fold starts on its call's line, closed")
      eq(8, vim.fn.foldclosedend(3), "the subagent's fold ends at its last line")
      eq(-1, vim.fn.foldclosed(9), "the report is not folded")
      eq("- ✓ Delegate to codebase_investigator (ok)  (6 more lines)", vim.fn.foldtextresult(2), "fold text")
    end)
  end)

  it("shows a structured report's summary as prose, its details folded", function()
    local client = gemini.client()
    local update = client.handlers["gemini/update"]
    local win = gemini.chat.show()
    gemini.chat.clear()
    local report = vim.fn.json_encode({
      SummaryOfFindings = "The project is one file, numbers.txt.",
      ExplorationTrace = { "Listed the project root.", "Read numbers.txt." },
      RelevantLocations = { { FilePath = "numbers.txt", Reasoning = "The only file.", KeySymbols = {} } },
    })
    for _, u in ipairs({
      { kind = "toolCall", callId = "c9", name = "invoke_agent", title = "Delegating to agent 'codebase_investigator'" },
      { kind = "toolCall", callId = "s1", name = "read_file", title = "ReadFile numbers.txt", parentCallId = "c9", agentName = "codebase_investigator" },
      { kind = "toolResult", callId = "s1", name = "read_file", status = "ok", display = "", parentCallId = "c9", agentName = "codebase_investigator" },
      { kind = "toolResult", callId = "c9", name = "invoke_agent", status = "ok", display = "```json\n" .. report .. "\n```" },
    }) do
      u.sessionId = "s1"
      update(nil, u, { client_id = client.id })
    end
    eq(table.concat({
      "- ✓ Delegating to agent 'codebase_investigator' (ok)",
      "    - ✓ ReadFile numbers.txt (ok)",
      "  The project is one file, numbers.txt.",
      "  Details: Exploration trace, Relevant locations",
      "    Exploration trace:",
      "      - Listed the project root.",
      "      - Read numbers.txt.",
      "    Relevant locations:",
      "      - File path: numbers.txt",
      "        Key symbols: none",
      "        Reasoning: The only file.",
    }, "\n"), chat_text(), "chat")
    assert(not chat_text():find("{", 1, true), "JSON in the chat:\n" .. chat_text())
    vim.api.nvim_win_call(win, function()
      eq(1, vim.fn.foldclosed(2), "the run is folded")
      eq(-1, vim.fn.foldclosed(3), "the summary is prose, not folded")
      eq(4, vim.fn.foldclosed(5), "the details are folded")
      eq(11, vim.fn.foldclosedend(5), "the details' fold ends with them")
      eq("  Details: Exploration trace, Relevant locations  (7 more lines)", vim.fn.foldtextresult(4), "details' fold text")
    end)
  end)
end)
