-- script: none.json
-- The plugin against the wire schema (docs/protocol.schema.json, which
-- `go generate .` writes from the server's types): every update kind has a
-- handler in the chat's dispatch and each kind's example is handled by the
-- client's gemini/update handler, every confirmation kind gets a question,
-- and every method the plugin handles is one the server sends. Each check
-- is also run on a doctored copy of the schema, to show it would fail.
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })
local chat = require("gemini.chat")
local confirm = require("gemini.confirm")
local handlers = require("gemini.handlers").handlers

local repo = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h:h:h")
local schema = vim.fn.json_decode(read_file(repo .. "/docs/protocol.schema.json"))

-- The update kinds of schema s, in its order, each with its first example.
local function update_kinds(s)
  local kinds = {}
  for _, ref in ipairs(s["$defs"].Update.oneOf) do
    local def = s["$defs"][ref["$ref"]:match("[^/]+$")]
    table.insert(kinds, { kind = def.properties.kind.const, example = (def.examples or {})[1] })
  end
  return kinds
end

-- The kinds of s without a handler, and the handlers of no kind of s.
local function handler_mismatch(s)
  local kinds, unhandled, unknown = {}, {}, {}
  for _, k in ipairs(update_kinds(s)) do
    kinds[k.kind] = true
    if not chat.handlers[k.kind] then
      table.insert(unhandled, k.kind)
    end
  end
  for kind in pairs(chat.handlers) do
    if not kinds[kind] then
      table.insert(unknown, kind)
    end
  end
  table.sort(unknown)
  return { unhandled = unhandled, unknown = unknown }
end

-- The methods the plugin handles (its client's handlers, and the requests
-- tunneled through gemini/request) that s does not list as the server's.
local function stale_methods(s)
  local stale = {}
  local function check(method)
    local m = s["x-methods"][method]
    if not m or (m.direction ~= "server-to-client" and m.direction ~= "both") then
      table.insert(stale, method)
    end
  end
  for method in pairs(handlers) do
    check(method)
  end
  for method in pairs(confirm.asks) do
    check(method)
  end
  table.sort(stale)
  return stale
end

local function doctored(doctor)
  local copy = vim.deepcopy(schema)
  doctor(copy)
  return copy
end

local function chat_text()
  return table.concat(vim.api.nvim_buf_get_lines(chat.ensure(), 0, -1, false), "\n")
end

-- Counts the client's gemini/commands requests, as the "/" completion sends them.
local commands_asked = 0
local function count_commands(client)
  local sync = client.request_sync
  client.request_sync = function(...)
    local args = { ... }
    local method = args[1] == client and args[2] or args[1]
    if method == "gemini/commands" then
      commands_asked = commands_asked + 1
    end
    return sync(...)
  end
end

describe("the wire schema", function()
  it("has update kinds and confirmation kinds to check", function()
    assert(#update_kinds(schema) >= 13, "update kinds: " .. #update_kinds(schema))
    assert(#schema["$defs"].ConfirmParams.properties.kind.enum > 0, "no confirmation kinds")
  end)

  it("has a handler for every update kind, and none for a kind it lacks", function()
    eq({ unhandled = {}, unknown = {} }, handler_mismatch(schema), "the schema")
    local added = doctored(function(s)
      s["$defs"].FakeUpdate = { properties = { kind = { const = "fake" } }, examples = { { sessionId = "S1", kind = "fake" } } }
      table.insert(s["$defs"].Update.oneOf, { ["$ref"] = "#/$defs/FakeUpdate" })
    end)
    eq({ unhandled = { "fake" }, unknown = {} }, handler_mismatch(added), "a kind without a handler")
    local removed = doctored(function(s)
      s["$defs"].Update.oneOf = vim.tbl_filter(function(r)
        return not r["$ref"]:match("/TopicUpdate$")
      end, s["$defs"].Update.oneOf)
    end)
    eq({ unhandled = {}, unknown = { "topic" } }, handler_mismatch(removed), "a handler without a kind")
  end)

  vim.cmd("edit notes.txt")
  local client = gemini.attach(0)
  wait_for("the server", function()
    return client and (client.initialized or (client.server_capabilities and next(client.server_capabilities))) and true or false
  end)
  count_commands(client)
  -- Kept for long: only a commands update may make the list stale.
  gemini.commands.ttl_ms = 600000
  -- What shows nothing in the chat: the statusline's and the "/" list's.
  local silent = { usage = true, model = true, commands = true }

  for _, k in ipairs(update_kinds(schema)) do
    it("handles the example of a " .. k.kind .. " update through the client's gemini/update handler", function()
      assert(k.example, "the schema has no example of " .. k.kind)
      gemini.commands.matches("/")
      local asked = commands_asked
      chat.clear()
      -- An error is also told with vim.notify (once), here to no one.
      local notify = vim.notify
      vim.notify = function() end
      handlers["gemini/update"](nil, vim.deepcopy(k.example), { client_id = client.id, method = "gemini/update" })
      vim.notify = notify
      local text = chat_text()
      if silent[k.kind] then
        eq("", text, k.kind .. " shows nothing in the chat")
      else
        assert(text ~= "", k.kind .. " shows nothing in the chat")
      end
      if k.kind == "topic" then
        assert(text:find("> Topic: Serving files — Start a web server.\n> Start the server and check it serves.", 1, true), text)
      elseif k.kind == "model" then
        eq(k.example.model, gemini.state.model.current, "the model")
      elseif k.kind == "mode" then
        eq(k.example.mode, gemini.state.modes[k.example.sessionId], "the mode")
      end
      gemini.commands.matches("/")
      eq(k.kind == "commands" and asked + 1 or asked, commands_asked, "gemini/commands asked after " .. k.kind)
    end)
  end

  it("asks a question for every confirmation kind", function()
    local select = vim.ui.select
    for _, kind in ipairs(schema["$defs"].ConfirmParams.properties.kind.enum) do
      -- No title nor details: the question must not rest on the server's words alone.
      local params = { sessionId = "S1", callId = "call_" .. kind, kind = kind, canAllowAlways = true }
      local question, choices, answer
      vim.ui.select = function(items, opts, cb)
        question, choices = opts.prompt, items
        cb(nil, nil)
      end
      confirm.asks["gemini/confirm"](params, function(result)
        answer = result
      end)
      assert(question and vim.trim(question) ~= "", kind .. ": no question")
      assert(choices and #choices > 0, kind .. ": no choices")
      eq({ outcome = "cancel" }, answer, kind .. ": the answer when dismissed")
    end
    vim.ui.select = select
  end)

  it("handles only methods the server sends", function()
    eq({}, stale_methods(schema), "the schema")
    local renamed = doctored(function(s)
      s["x-methods"]["gemini/ask-renamed"] = s["x-methods"]["gemini/ask"]
      s["x-methods"]["gemini/ask"] = nil
    end)
    eq({ "gemini/ask" }, stale_methods(renamed), "a method the server no longer sends")
  end)
end)
