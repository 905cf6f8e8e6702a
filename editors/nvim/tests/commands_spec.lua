-- script: commands.json
-- "/" at the start of a prompt completes the user's commands from
-- gemini/commands: a custom command in this run's own HOME, whose
-- workspace is trusted (an untrusted one loads no custom commands).
local gemini = require("gemini")

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end
local home = os.getenv("HOME") .. "/.gemini"

-- The built-in commands, as "/name", from the wire schema the server's
-- own list is written to (docs/protocol.schema.json's x-builtinCommands):
-- a command added to the server is expected here without a list to edit.
local repo = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h:h:h")
local function builtins(...)
  local names = {}
  for _, c in ipairs(vim.fn.json_decode(read_file(repo .. "/docs/protocol.schema.json"))["x-builtinCommands"]) do
    table.insert(names, "/" .. c.name)
  end
  vim.list_extend(names, { ... })
  return names
end
vim.fn.mkdir(home .. "/commands", "p")
write(home .. "/commands/review.toml", 'description = "Review a file for bugs"\nprompt = "Please review {{args}} line by line."\n')
write(home .. "/trustedFolders.json", vim.json.encode({ [vim.loop.cwd()] = "TRUST_FOLDER" }))

gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })

-- The text of the last request's last user turn, as the model got it.
local function last_prompt()
  local last
  for line in io.lines(os.getenv("GEMINI_REQUESTS")) do
    last = vim.json.decode(line)
  end
  local contents = last.body.contents
  local texts = {}
  for _, p in ipairs(contents[#contents].parts) do
    table.insert(texts, p.text or "")
  end
  return table.concat(texts, "\n")
end

local function chat_text()
  return table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
end

-- Types keys as the user does, the prompt's <Tab> included.
local function type_keys(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), "tx", false)
end

describe("commands", function()
  it("completes /name in :Gemini from gemini/commands, and not past the first word", function()
    vim.cmd("edit notes.txt")
    wait_for("the server", function()
      local c = gemini.client()
      return c and c.initialized or (c and c.server_capabilities and next(c.server_capabilities) ~= nil)
    end)
    eq({ "/review" }, vim.fn.getcompletion("Gemini /rev", "cmdline"), ":Gemini /rev")
    -- The built-ins, then the user's commands.
    eq(builtins("/review"),
      vim.fn.getcompletion("'<,'>Gemini /", "cmdline"), ":'<,'>Gemini /")
    eq({}, vim.fn.getcompletion("Gemini /x", "cmdline"), ":Gemini /x")
    eq({}, vim.fn.getcompletion("Gemini please /re", "cmdline"), "a later word")
    eq({}, vim.fn.getcompletion("Gemini re", "cmdline"), "no slash")
  end)

  it("completes /rev<Tab> in the prompt input and sends the command's expansion", function()
    local win = gemini.chat.show()
    vim.api.nvim_set_current_win(win)
    -- With input = "ui", <CR> in the chat asks with vim.ui.input (input()),
    -- where <Tab> completes.
    gemini.config.input = "ui"
    type_keys("<CR>/rev<Tab> notes.txt<CR>")
    wait_for("the answer", function()
      return chat_text():find("Reviewed from the prompt input.", 1, true) ~= nil
    end)
    wait_for("the prompt to end", function() return not gemini.state.prompt_running end)
    assert(chat_text():find("## Prompt\n\n/review notes.txt", 1, true), chat_text())
    local sent = last_prompt()
    assert(sent:find("Please review notes.txt line by line.", 1, true), "model got: " .. sent)
    gemini.config.input = "buffer"
    vim.cmd("wincmd p")
  end)

  it("completes /rev<Tab> on :Gemini's command line and sends the expansion", function()
    type_keys(":Gemini /rev<Tab> numbers.txt<CR>")
    wait_for("the answer", function()
      return chat_text():find("Reviewed from the command line.", 1, true) ~= nil
    end)
    wait_for("the prompt to end", function() return not gemini.state.prompt_running end)
    local sent = last_prompt()
    assert(sent:find("Please review numbers.txt line by line.", 1, true), "model got: " .. sent)
  end)

  it("completes a command file added since as soon as /commands reload says the list changed", function()
    -- Kept for long: only the reload's commands update can make it stale.
    local ttl = gemini.commands.ttl_ms
    gemini.commands.ttl_ms = 600000
    eq({ "/review" }, gemini.commands.matches("/rev"), "before")
    write(home .. "/commands/deploy.toml", 'description = "Deploy"\nprompt = "Deploy it."\n')
    eq({}, gemini.commands.matches("/dep"), "the list kept, before the reload")
    local done
    gemini.prompt("/commands reload", nil, function(err)
      done = { err = err }
    end)
    wait_for("the reload", function() return done ~= nil end)
    eq(nil, done.err, "reload error")
    eq({ "/deploy" }, gemini.commands.matches("/dep"), "after the reload")
    gemini.commands.ttl_ms = ttl
  end)
end)

-- The specs after this one share the run's HOME.
vim.fn.delete(home, "rf")
