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
      "  - codebase_investigator {{{",
      "    > thought: Looking",
      "    - ✓ SearchText 'TODO' (ok)",
      "",
      "    Found one",
      "    in notes.txt.",
      "    **Error:** the subagent ran out of turns",
      "",
      "    **Report:**",
      "",
      "    The TODO is in notes.txt:1.",
      "  }}}",
      "- ✓ ReadFile notes.txt (ok)",
      "Done.",
    }, "\n"), chat_text(), "chat")
    -- The statusline's model is the main agent's, and the subagent's
    -- error is in its fold only.
    eq(nil, gemini.state.model.answered, "the model that answered")
    eq(0, #notified, "notifications: " .. table.concat(notified, "; "))
    -- The fold is closed, as a thought's is: one line for the run.
    vim.api.nvim_win_call(win, function()
      eq(3, vim.fn.foldclosed(4), "the subagent's fold starts on its line, closed")
    end)
  end)
end)
