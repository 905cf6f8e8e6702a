-- script: none.json
-- Without credentials every prompt fails. The chat says so as soon as
-- gemini-ls starts (gemini/authStatus), once, with how to sign in, and its
-- status line says it; each prompt's failure is in the chat, where the
-- user looks, and no notification repeats it there.
vim.env.GEMINI_API_KEY = nil
local gemini = require("gemini")
local notes = {}
vim.notify = function(msg, level)
  table.insert(notes, { msg = msg, level = level })
end
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })

local function prompt(text)
  local done
  gemini.prompt(text, nil, function(err, result)
    done = { err = err, result = result }
  end)
  wait_for("the prompt to fail", function() return done ~= nil end)
  return done
end

local function chat_text()
  return table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
end

describe("missing API key", function()
  it("is told in the chat once as gemini-ls starts, with how to sign in", function()
    vim.cmd("edit notes.txt")
    wait_for("the chat to tell the missing key", function()
      return gemini.chat.buf ~= nil and chat_text():find("> No credentials: GEMINI_API_KEY", 1, true) ~= nil
    end)
    assert(chat_text():find("> In Neovim, :GeminiLogin signs in with Google.", 1, true), chat_text())
    eq(false, gemini.state.auth.usable, "auth usable")
    assert(gemini.chat_status():find("no credentials: :GeminiLogin", 1, true), gemini.chat_status())
  end)

  it("fails each prompt in the chat, with no notification beside it", function()
    local first = prompt("hello")
    local second = prompt("hello again")
    assert(first.err and second.err, "prompts did not fail: " .. vim.inspect({ first, second }))
    local about = vim.tbl_filter(function(n) return n.msg:find("GEMINI_API_KEY", 1, true) end, notes)
    eq({}, about, "notifications about the key, with the chat on screen")
    local _, errors = chat_text():gsub("\nError: ", "")
    eq(2, errors, "errors in the chat:\n" .. chat_text())
    local _, told = chat_text():gsub("> No credentials:", "")
    eq(1, told, "the missing key told in the chat")
  end)
end)
