-- script: none.json
-- gemini/languageFeature answered from Neovim's other language servers
-- (gopls here, started by the FileType autocmd a user's configuration
-- has): each operation's LSP request, positions moved between the
-- connection's encoding and the server's, files no buffer holds loaded
-- hidden, gemini-ls never asked, and every wait bounded.
local gemini = require("gemini")
local lf = require("gemini.languagefeature")
local gopls = require("gopls")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })
gopls.write_module()
gopls.configure()

local main, greet = gopls.uri("main.go"), gopls.uri("greet/greet.go")

local function answer(params, encoding, self_id)
  local result, err = lf.answer(params, encoding or "utf-16", self_id)
  return result, err
end

-- A result's locations as "file line:character" (file relative).
local function where(uri, range)
  return vim.fn.fnamemodify(vim.uri_to_fname(uri), ":.") .. " " .. range.start.line .. ":" .. range.start.character
end

local function locations(result)
  assert(type(result) == "table", "no locations: " .. vim.inspect(result))
  return vim.tbl_map(function(l)
    return where(l.uri, l.range)
  end, result)
end

local function sorted(list)
  table.sort(list)
  return list
end

local function loaded(name)
  local buf = vim.fn.bufnr(vim.fn.getcwd() .. "/" .. name)
  return buf ~= -1 and vim.api.nvim_buf_is_loaded(buf)
end

-- While on, client's answers to method are replaced by fake(result), or
-- dropped when fake is false; off() puts the client back.
local function intercept(client, method, fake)
  local rpc = client.rpc
  local request, notify = rpc.request, rpc.notify
  local sent, cancelled = {}, {}
  rpc.request = function(m, params, callback, ...)
    if m ~= method then
      return request(m, params, callback, ...)
    end
    local ok, id = request(m, params, function(err, result, ...)
      if fake then
        callback(err, fake(result), ...)
      end
    end, ...)
    table.insert(sent, id)
    return ok, id
  end
  rpc.notify = function(m, params, ...)
    -- Neovim cancels requests of its own too (0.12: semantic tokens).
    if m == "$/cancelRequest" and vim.tbl_contains(sent, params.id) then
      table.insert(cancelled, params.id)
    end
    return notify(m, params, ...)
  end
  return {
    sent = sent,
    cancelled = cancelled,
    off = function()
      rpc.request, rpc.notify = request, notify
    end,
  }
end

describe("gemini/languageFeature", function()
  it("is declared", function()
    vim.cmd("edit notes.txt")
    local client = gemini.attach(0)
    eq(true, client.config.capabilities.experimental.gemini.languageFeatures, "experimental.gemini.languageFeatures")
  end)

  it("answers two questions at once about a file no buffer holds, while its server starts", function()
    local answers = {}
    for i = 1, 2 do
      -- As Neovim runs two requests of the server: the second inside the
      -- first's wait.
      vim.schedule(function()
        local result, err = answer({ operation = "references", textDocument = { uri = greet }, position = { line = 3, character = 5 } })
        answers[i] = err or sorted(locations(result))
      end)
    end
    wait_for("both answers", function() return answers[1] and answers[2] end)
    local refs = { "greet/greet.go 17:8", "greet/greet.go 3:5", "main.go 9:26" }
    eq({ refs, refs }, answers, "answers")
    eq(false, loaded("greet/greet.go"), "greet.go loaded after")
  end)

  it("answers from the servers of a file no buffer holds: loaded hidden, unloaded after", function()
    eq(false, loaded("greet/greet.go"), "greet.go loaded before")
    vim.v.errmsg = ""
    local result, err = answer({ operation = "references", textDocument = { uri = greet }, position = { line = 3, character = 5 } })
    eq(nil, err, "error")
    eq({ "greet/greet.go 17:8", "greet/greet.go 3:5", "main.go 9:26" }, sorted(locations(result)), "references, the declaration included")
    eq(false, loaded("greet/greet.go"), "greet.go loaded after")
    -- What gopls still sends about the buffer gone (its semantic tokens,
    -- on Neovim 0.10) is dropped quietly, not reported to the user as
    -- "Invalid buffer id". A definition of main.go, open, lets those
    -- answers arrive first: gopls answers in order.
    answer({ operation = "definition", textDocument = { uri = main }, position = { line = 9, character = gopls.greet_in_main["utf-16"] } })
    vim.wait(500, function()
      return vim.v.errmsg ~= ""
    end)
    eq("", vim.v.errmsg, "an error shown after the hidden buffer went")
  end)

  it("is answered by the plugin's handler, in gemini-ls's encoding, errors as LSP errors", function()
    vim.cmd("edit notes.txt")
    local client = gemini.attach(0)
    local handler = (client.handlers or client.config.handlers)["gemini/languageFeature"]
    local ctx = { method = "gemini/languageFeature", client_id = client.id }
    local result, err = handler(nil, { operation = "hover", textDocument = { uri = vim.uri_from_bufnr(0) }, position = { line = 0, character = 0 } }, ctx)
    eq(nil, result, "result")
    eq({ -32001, "Neovim cannot answer hover for notes.txt: no language server is attached to it" }, { err.code, err.message }, "error")
    local col = gopls.greet_in_main[client.offset_encoding]
    result = handler(nil, { operation = "definition", textDocument = { uri = main }, position = { line = 9, character = col } }, ctx)
    eq({ "greet/greet.go 3:5" }, locations(result), "definition")
  end)

  it("takes and gives positions in the connection's encoding, whatever the server's", function()
    for _, enc in ipairs({ "utf-8", "utf-16", "utf-32" }) do
      local col = gopls.greet_in_main[enc]
      local result, err = answer({ operation = "references", textDocument = { uri = main }, position = { line = 9, character = col } }, enc)
      eq(nil, err, enc .. " error")
      eq({ "greet/greet.go 17:8", "greet/greet.go 3:5", "main.go 9:" .. col }, sorted(locations(result)), enc .. " references")
      for _, l in ipairs(result) do
        if l.uri == main then
          eq(col + 5, l.range["end"].character, enc .. " end of Greet")
        end
      end
    end
  end)

  it("asks each operation's LSP request", function()
    local at_greet = { uri = greet }
    local function ask(operation, doc, line, character, extra)
      local params = vim.tbl_extend("force", { operation = operation, textDocument = doc }, extra or {})
      if line then
        params.position = { line = line, character = character }
      end
      local result, err = answer(params, "utf-32")
      eq(nil, err, operation .. " error")
      return result
    end
    eq({ "greet/greet.go 3:5" }, locations(ask("definition", { uri = main }, 9, 25)), "definition")
    eq({ "greet/greet.go 8:5" }, locations(ask("type_definition", { uri = main }, 10, 5)), "type_definition of g")
    eq({ "greet/greet.go 13:5" }, locations(ask("implementation", at_greet, 8, 5)), "implementation of Greeter")
    local hover = ask("hover", at_greet, 3, 5)
    assert(hover.contents.value:find("func Greet(name string) string", 1, true), vim.inspect(hover))
    eq(vim.NIL, ask("hover", at_greet, 1, 0), "hover over nothing")
    local symbols = ask("document_symbols", at_greet)
    eq({ "Greet", "Greeter", "English", "(English).Hello" }, vim.tbl_map(function(s) return s.name end, symbols), "document_symbols")
    eq({ "Hello" }, vim.tbl_map(function(s) return s.name end, symbols[2].children), "Greeter's children")
    local found = {}
    for _, s in ipairs(ask("workspace_symbols", at_greet, nil, nil, { query = "Greet" })) do
      found[s.name] = where(s.location.uri, s.location.range)
    end
    eq("greet/greet.go 3:5", found.Greet, "workspace_symbols' Greet")
    local incoming = {}
    for _, c in ipairs(ask("incoming_calls", at_greet, 3, 5)) do
      incoming[c.from.name] = where(c.from.uri, c.fromRanges[1])
    end
    eq({ Hello = "greet/greet.go 17:8", main = "main.go 9:25" }, incoming, "incoming_calls: the callers, where they call")
    local outgoing = {}
    for _, c in ipairs(ask("outgoing_calls", { uri = main }, 8, 5)) do
      outgoing[c.to.name] = where(c.to.uri, c.to.selectionRange) .. " from " .. where(main, c.fromRanges[1])
    end
    eq("greet/greet.go 3:5 from main.go 9:25", outgoing.Greet, "outgoing_calls' Greet")
    eq("greet/greet.go 9:1 from main.go 11:15", outgoing.Hello, "outgoing_calls' Hello")
  end)

  it("answers rename with the server's edit, changing nothing", function()
    local before = { read_file("main.go"), read_file("greet/greet.go") }
    local result, err = answer({ operation = "rename", textDocument = { uri = main }, position = { line = 9, character = 25 }, newName = "Hi" }, "utf-32")
    eq(nil, err, "error")
    local edits = {}
    for _, change in ipairs(result.documentChanges or {}) do
      for _, e in ipairs(change.edits) do
        table.insert(edits, where(change.textDocument.uri, e.range) .. " " .. e.newText)
      end
    end
    for uri, list in pairs(result.changes or {}) do
      for _, e in ipairs(list) do
        table.insert(edits, where(uri, e.range) .. " " .. e.newText)
      end
    end
    eq({ "greet/greet.go 17:8 Hi", "greet/greet.go 2:3 Hi", "greet/greet.go 3:5 Hi", "main.go 9:25 Hi" }, sorted(edits), "the edits")
    eq(before, { read_file("main.go"), read_file("greet/greet.go") }, "files")
    eq(false, loaded("main.go") or loaded("greet/greet.go"), "a buffer left")
  end)

  it("passes a refused rename's reason back, not as 'no server'", function()
    local _, err = answer({ operation = "rename", textDocument = { uri = greet }, position = { line = 3, character = 5 }, newName = "1x" })
    eq({ code = -32603, message = 'invalid identifier to rename: "1x"' }, err, "the server's error")
    -- gopls' prepareRename answers null on a built-in type.
    _, err = answer({ operation = "rename", textDocument = { uri = greet }, position = { line = 3, character = 16 }, newName = "str" })
    eq({ code = -32603, message = "gopls cannot rename the symbol at this position" }, err, "prepareRename's null")
  end)

  it("says -32001 when no server of the file answers", function()
    vim.cmd("edit notes.txt")
    local _, err = answer({ operation = "references", textDocument = { uri = vim.uri_from_bufnr(0) }, position = { line = 0, character = 0 } })
    eq({ code = -32001, message = "Neovim cannot answer references for notes.txt: no language server is attached to it" }, err, "a buffer without servers")
    -- A file loaded for the question waits a while for a server to attach.
    local attach = lf.attach_timeout_ms
    lf.attach_timeout_ms = 200
    _, err = answer({ operation = "hover", textDocument = { uri = gopls.uri("numbers.txt") }, position = { line = 0, character = 0 } })
    lf.attach_timeout_ms = attach
    eq({ code = -32001, message = "Neovim cannot answer hover for numbers.txt: no language server is attached to it" }, err, "a file no buffer holds")
    eq(false, loaded("numbers.txt"), "numbers.txt loaded after")
    _, err = answer({ operation = "hover", textDocument = { uri = gopls.uri("absent.go") }, position = { line = 0, character = 0 } })
    eq(-32602, err and err.code, "a file that does not exist")
  end)

  it("never asks the gemini-ls asking, nor another gemini-ls", function()
    vim.cmd("edit main.go")
    local id = gopls.client().id
    local _, err = answer({ operation = "hover", textDocument = { uri = main }, position = { line = 9, character = 26 } }, "utf-16", id)
    eq(-32001, err and err.code, "gopls as the client asking")
    local client = gopls.client()
    client.name = "gemini-ls"
    _, err = answer({ operation = "hover", textDocument = { uri = main }, position = { line = 9, character = 26 } })
    client.name = "gopls"
    eq(-32001, err and err.code, "gopls named gemini-ls")
  end)

  it("bounds the wait for a server that does not answer, and cancels its request", function()
    vim.cmd("edit main.go")
    local client = gopls.client()
    local dropped = intercept(client, "textDocument/references", false)
    local timeout = lf.timeout_ms
    lf.timeout_ms = 300
    local _, err = answer({ operation = "references", textDocument = { uri = main }, position = { line = 9, character = 26 } })
    lf.timeout_ms = timeout
    dropped.off()
    eq({ code = -32603, message = "gopls did not answer textDocument/references within 300 ms" }, err, "error")
    eq(dropped.sent, dropped.cancelled, "the requests cancelled")
    eq(1, #dropped.sent, "requests")
  end)

  it("moves the positions of every shape a server may answer", function()
    vim.cmd("edit main.go")
    local client = gopls.client()
    local theirs = gopls.greet_in_main[client.offset_encoding]
    local function at(c)
      return { start = { line = 9, character = c }, ["end"] = { line = 9, character = c + 5 } }
    end
    local fakes = {
      ["textDocument/definition"] = { { targetUri = main, targetRange = at(theirs), targetSelectionRange = at(theirs), originSelectionRange = at(theirs) } },
      ["workspace/symbol"] = { { name = "Greet", kind = 12, location = { uri = main, range = at(theirs) } } },
      ["textDocument/rename"] = { changes = { [main] = { { range = at(theirs), newText = "Hi" } } } },
    }
    local fake = {}
    for method, result in pairs(fakes) do
      table.insert(fake, intercept(client, method, function()
        return vim.deepcopy(result)
      end))
    end
    local ours = at(gopls.greet_in_main["utf-32"])
    local p = { textDocument = { uri = main }, position = { line = 9, character = 25 } }
    local defs = answer(vim.tbl_extend("force", p, { operation = "definition" }), "utf-32")
    local syms = answer(vim.tbl_extend("force", p, { operation = "workspace_symbols", query = "Greet" }), "utf-32")
    local edit = answer(vim.tbl_extend("force", p, { operation = "rename", newName = "Hi" }), "utf-32")
    for i = #fake, 1, -1 do
      fake[i].off()
    end
    eq({ { targetUri = main, targetRange = ours, targetSelectionRange = ours, originSelectionRange = ours } }, defs, "LocationLink")
    eq(ours, syms[1].location.range, "SymbolInformation")
    eq({ [main] = { { range = ours, newText = "Hi" } } }, edit.changes, "WorkspaceEdit.changes")
  end)

  it("waits for a server still starting, then concatenates the servers' answers, merging hovers", function()
    vim.cmd("edit main.go")
    local id = gopls.attach(vim.api.nvim_get_current_buf(), "gopls-2")
    local one = { "greet/greet.go 17:8", "greet/greet.go 3:5", "main.go 9:26" }
    local both = { "greet/greet.go 17:8", "greet/greet.go 17:8", "greet/greet.go 3:5", "greet/greet.go 3:5", "main.go 9:26", "main.go 9:26" }
    local params = { operation = "references", textDocument = { uri = main }, position = { line = 9, character = 26 } }
    local result, err = answer(params)
    eq(nil, err, "error")
    -- Neovim lists the clients still initializing from 0.10 on.
    eq(vim.lsp.get_clients and both or one, sorted(locations(result)), "references asked while gopls-2 starts")
    wait_for("gopls-2 to start", function() return vim.lsp.get_client_by_id(id).initialized end)
    eq(both, sorted(locations(answer(params))), "both servers' references")
    local hover = answer({ operation = "hover", textDocument = { uri = main }, position = { line = 9, character = 26 } })
    eq("markdown", hover.contents.kind, "kind")
    local _, n = hover.contents.value:gsub("func greet%.Greet%(name string%) string", "")
    eq(2, n, "both servers' hovers in " .. hover.contents.value)
  end)
end)
