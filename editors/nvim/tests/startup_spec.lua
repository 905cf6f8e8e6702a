-- script: none.json
-- The server's warnings and errors outside a prompt (window/showMessage
-- of type 1 or 2) go to the chat, once each, the "Gemini: " they start
-- with dropped and each line quoted; the chat is made for them when
-- there is none. Other messages go to Neovim's own handler.
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

  it("leaves other messages to Neovim's own handler", function()
    local shown = {}
    local default = vim.lsp.handlers["window/showMessage"]
    vim.lsp.handlers["window/showMessage"] = function(_, params) table.insert(shown, params.message) end
    handler(nil, { type = 3, message = "Gemini: now using gemini-2.5-flash." }, { client_id = 0 }, {})
    vim.lsp.handlers["window/showMessage"] = default
    eq({ "Gemini: now using gemini-2.5-flash." }, shown, "shown by Neovim's handler")
    eq(nil, chat_text():find("now using", 1, true), "the chat holds the info message")
  end)
end)
