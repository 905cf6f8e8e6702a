-- script: usage.json
-- The chat window's status line says what the session has cost: its
-- tokens, those the model's context cache served, and how full the
-- model's context window was at the last request (gemini-2.5-pro's is
-- 1,048,576 tokens, of which the answer's 52,000 are 5%).
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })

local function chat_statusline()
  local win = gemini.chat.show()
  return vim.api.nvim_eval_statusline(vim.wo[win].statusline, { winid = win, maxwidth = 160 }).str
end

describe("the session's usage", function()
  it("shows tokens, cached tokens and context fill after an answer", function()
    vim.cmd("edit notes.txt")
    wait_for("the model in the statusline", function() return chat_statusline():find("gemini-2.5-pro", 1, true) ~= nil end)
    assert(not chat_statusline():find("tokens", 1, true), "tokens before any answer: " .. chat_statusline())
    local done
    gemini.prompt("count", nil, function(err, result)
      done = { err = err, result = result }
    end)
    wait_for("the prompt to end", function() return done ~= nil end, 15000)
    eq(nil, done.err, "error")
    local line = chat_statusline()
    assert(line:find("^Gemini · gemini%-2%.5%-pro · manual · 52k tokens, 40k cached · context 5%% +<CR> prompt"), line)
  end)

  it("writes counts as people read them", function()
    local usage = require("gemini.usage")
    eq("950", usage.short(950), "under a thousand")
    eq("12.3k", usage.short(12345), "thousands")
    eq("1.05M", usage.short(1048576), "millions")
    eq("2M", usage.short(2000000), "round millions")
  end)
end)
