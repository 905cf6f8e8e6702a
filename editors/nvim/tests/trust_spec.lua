-- script: trust.json
-- In a folder nobody has answered the trust question about, the first
-- prompt asks it, as the model's questions are asked (vim.ui.select):
-- "Trust folder" is recorded as Gemini CLI records it, and that prompt
-- already runs with the project's GEMINI.md; the next is not asked again.
local gemini = require("gemini")

local cwd = vim.loop.cwd()
local trusted = os.getenv("HOME") .. "/.gemini/trustedFolders.json"
os.remove(trusted) -- no answer yet (the runner records one for the others)
local f = assert(io.open(cwd .. "/GEMINI.md", "w"))
f:write("The project's secret word is kumquat.\n")
f:close()

gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })

local function read(path)
  local file = io.open(path)
  if not file then
    return nil
  end
  local text = file:read("*a")
  file:close()
  return text
end

local function prompt(text)
  local done
  gemini.prompt(text, nil, function(err, result)
    done = { err = err, result = result }
  end)
  wait_for("the prompt to end", function() return done ~= nil end, 15000)
  eq(nil, done.err, "error")
  eq("end_turn", done.result.stopReason, "stopReason")
end

describe("folder trust", function()
  it("asks on the first prompt and records the answer", function()
    local asked = {}
    vim.ui.select = function(items, opts, cb)
      local labels = {}
      for _, it in ipairs(items) do
        table.insert(labels, opts.format_item(it))
      end
      table.insert(asked, { prompt = opts.prompt, labels = labels })
      cb(items[1], 1)
    end
    vim.cmd("edit notes.txt")
    prompt("hello")
    eq(1, #asked, "questions")
    assert(asked[1].prompt:find("Do you trust the files in this folder?", 1, true), asked[1].prompt)
    assert(asked[1].prompt:find(cwd, 1, true), asked[1].prompt)
    -- The text shown once: whole in the chat, on screen; the choices'
    -- prompt one line, pointing to it.
    assert(require("gemini.chat").visible(), "the chat is on screen")
    local chat_text = table.concat(vim.api.nvim_buf_get_lines(require("gemini.chat").buf, 0, -1, false), "\n")
    local _, in_chat = chat_text:gsub("Trusting a folder allows", "")
    eq(1, in_chat, "the trust text in the chat; the chat: " .. chat_text)
    eq(nil, asked[1].prompt:find("Trusting a folder allows", 1, true), "the trust text in the prompt: " .. asked[1].prompt)
    eq(nil, asked[1].prompt:find("\n"), "a prompt of one line: " .. asked[1].prompt)
    -- Gemini CLI 0.61's labels, each with what it does as the server
    -- describes it (the descriptions are the server's: dialog).
    local labels = vim.tbl_map(function(l) return (l:gsub(" — .*$", "")) end, asked[1].labels)
    eq({ "Trust folder", "Trust parent folder", "Don't trust", "Decline" }, labels, "choices")
    assert(asked[1].labels[1]:find("^Trust folder — .*remembered$"), asked[1].labels[1])
    assert(asked[1].labels[3]:find("^Don't trust — Restricted mode"), asked[1].labels[3])
    eq('{\n  "' .. cwd .. '": "TRUST_FOLDER"\n}', read(trusted), "trustedFolders.json")
    local first
    for line in io.lines(os.getenv("GEMINI_REQUESTS")) do
      first = first or line
    end
    assert(first:find("kumquat", 1, true), "the first request lacks the project's GEMINI.md: " .. first:sub(1, 2000))
    prompt("again")
    eq(1, #asked, "questions after the second prompt")
  end)
end)
