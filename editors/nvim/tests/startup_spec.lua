-- script: none.json
-- The server's warnings and errors outside a prompt (window/showMessage
-- of type 1 or 2) go to the chat, once each, the "Gemini: " they start
-- with dropped and each line quoted; the chat is made for them when
-- there is none. Other messages are told in one line (gemini.say).
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })
local handler = require("gemini.handlers").handlers["window/showMessage"]

local function chat_text()
  return gemini.chat.buf and table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n") or ""
end

describe("window/showMessage", function()
  it("puts a warning or an error in the chat, once each, the chat made for it", function()
    eq(nil, gemini.chat.buf, "a chat before any message")
    handler(nil, { type = 2, message = "Gemini: settings file /h/.gemini/settings.json:3:3: a comma missing; the file was ignored" }, { client_id = 0 }, {})
    handler(nil, { type = 1, message = "Gemini: a hook cannot run\nits command is missing" }, { client_id = 0 }, {})
    handler(nil, { type = 2, message = "Gemini: settings file /h/.gemini/settings.json:3:3: a comma missing; the file was ignored" }, { client_id = 0 }, {})
    local want = "> Warning: settings file /h/.gemini/settings.json:3:3: a comma missing; the file was ignored\n\n"
      .. "> Error: a hook cannot run\n> its command is missing"
    assert(chat_text():find(want, 1, true), chat_text())
    local _, n = chat_text():gsub("settings file", "")
    eq(1, n, "the warning told")
  end)

  it("says other messages in one line, never in the chat", function()
    local shown = {}
    local notify = vim.notify
    vim.notify = function(msg, level) table.insert(shown, { msg, level }) end
    handler(nil, { type = 3, message = "Gemini: now using gemini-2.5-flash." }, { client_id = 0 }, {})
    handler(nil, { type = 4, message = "Gemini: background agent done\n  its work is in .gemini/worktrees/x" }, { client_id = 0 }, {})
    vim.notify = notify
    eq({
      { "Gemini: now using gemini-2.5-flash.", vim.log.levels.INFO },
      { "Gemini: background agent done | its work is in .gemini/worktrees/x", vim.log.levels.INFO },
    }, shown, "told in one line each")
    eq(nil, chat_text():find("now using", 1, true), "the chat holds the info message")
  end)
end)

describe("the line pointing to the chat", function()
  -- What the plugin echoes, caught; the chat shown and closed first, so
  -- the warnings the tests above told are seen.
  local echoed = {}
  local function told(message)
    handler(nil, { type = 2, message = message }, { client_id = 0 }, {})
  end
  local function next_echo()
    local n = #echoed
    assert(vim.wait(2000, function() return #echoed > n end), "no line pointing to the chat")
    return echoed[#echoed]
  end
  local function seen()
    vim.api.nvim_win_close(gemini.chat.show(), true)
  end
  local echo = vim.api.nvim_echo
  vim.api.nvim_echo = function(chunks, history, opts)
    table.insert(echoed, chunks[1][1])
    return echo(chunks, history, opts)
  end

  it("keeps the pointer when the problem is cut to the line's width", function()
    seen()
    told("Gemini: " .. string.rep("a long warning ", 12))
    local line = next_echo()
    assert(line:find(" %(in the chat: :Gemini%)$"), line)
    assert(vim.fn.strdisplaywidth(line) <= vim.v.echospace, line)
  end)

  it("counts every problem told since the chat was last on screen, when they come apart", function()
    seen()
    told("Gemini: the first problem")
    eq("Gemini: the first problem (in the chat: :Gemini)", next_echo())
    told("Gemini: the second problem")
    eq("Gemini: 2 problems to know of, in the chat (:Gemini)", next_echo())
  end)
end)
