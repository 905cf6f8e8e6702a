-- script: none.json
-- Without credentials every prompt fails; the user is told once, with
-- what to do, and the chat says it each time.
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

describe("missing API key", function()
  it("is shown once, with what to do", function()
    vim.cmd("edit notes.txt")
    local first = prompt("hello")
    local second = prompt("hello again")
    assert(first.err and second.err, "prompts did not fail: " .. vim.inspect({ first, second }))
    local about = {}
    for _, n in ipairs(notes) do
      if n.msg:find("GEMINI_API_KEY", 1, true) then
        table.insert(about, n)
      end
    end
    eq(1, #about, "notifications about the key " .. vim.inspect(notes))
    assert(about[1].msg:find("export GEMINI_API_KEY", 1, true) or about[1].msg:find("set GEMINI_API_KEY", 1, true) or about[1].msg:find("GEMINI_API_KEY environment variable", 1, true), about[1].msg)
    local chat = table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
    local _, errors = chat:gsub("\nError: ", "")
    eq(2, errors, "errors in the chat:\n" .. chat)
  end)
end)
