-- script: diagnostics.json
-- The server's gemini/diagnostics is answered from vim.diagnostic.get: the
-- model's get_diagnostics reads what Neovim shows, and an edit's result
-- tells the errors it brought.
local gemini = require("gemini")
local shown = require("gemini.diagnostics")
-- auto_edit lands the edit without a review; as in Gemini CLI, only in a
-- trusted folder.
vim.env.GEMINI_CLI_TRUST_WORKSPACE = "true"
gemini.setup({ cmd = { os.getenv("GEMINI_LS") }, approval_mode = "auto_edit" })

local ns = vim.api.nvim_create_namespace("gemini-test-lint")

-- A linter, as another language server would be: an error on each line
-- holding "BAD" or "TODO", checked again whenever the buffer changes.
local function lint(buf)
  local found = {}
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    for _, word in ipairs({ "BAD", "TODO" }) do
      local at = line:find(word, 1, true)
      if at then
        table.insert(found, { lnum = i - 1, col = at - 1, severity = vim.diagnostic.severity.ERROR, message = word .. " found", source = "lint", code = "W" .. #word })
      end
    end
  end
  vim.diagnostic.set(ns, buf, found)
end

local function linted(buf)
  lint(buf)
  vim.api.nvim_buf_attach(buf, false, {
    on_lines = function()
      vim.schedule(function() lint(buf) end)
    end,
  })
end

-- The outputs of the tool calls request n (1-based) to the model answered.
local function tool_outputs(n)
  local f = assert(io.open(os.getenv("GEMINI_REQUESTS")))
  local i, req = 0, nil
  for line in f:lines() do
    i = i + 1
    if i == n then
      req = vim.json.decode(line)
    end
  end
  f:close()
  assert(req, "no request " .. n)
  local contents = req.body.contents
  local out = {}
  for _, p in ipairs(contents[#contents].parts) do
    if p.functionResponse then
      table.insert(out, p.functionResponse.response.output or ("error: " .. tostring(p.functionResponse.response.error)))
    end
  end
  return out
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

describe("gemini/diagnostics", function()
  it("is declared", function()
    vim.cmd("edit notes.txt")
    local client = gemini.attach(0)
    eq(true, client.config.capabilities.experimental.gemini.diagnostics, "experimental.gemini.diagnostics")
  end)

  it("answers with vim.diagnostic.get, columns in the connection's encoding", function()
    vim.cmd("edit unicode.txt")
    local buf = vim.api.nvim_get_current_buf()
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "héllo wörld" })
    -- "ö" starts at byte 8, UTF-16 character 7; the line ends at byte 13,
    -- character 11.
    vim.diagnostic.set(ns, buf, { { lnum = 0, col = 8, end_col = 13, severity = vim.diagnostic.severity.WARN, message = "odd", source = "spell", code = 7 } })
    local uri = vim.uri_from_bufnr(buf)
    local elsewhere = vim.uri_from_fname(vim.fn.getcwd() .. "/not-open.txt")
    eq({ items = {
      { uri = uri, diagnostics = { { range = { start = { line = 0, character = 7 }, ["end"] = { line = 0, character = 11 } }, severity = 2, message = "odd", source = "spell", code = 7 } } },
      { uri = elsewhere, diagnostics = {} },
    } }, shown.answer({ uris = { uri, elsewhere } }, "utf-16"), "asked of two files")
    eq(8, shown.answer({ uris = { uri } }, "utf-8").items[1].diagnostics[1].range.start.character, "utf-8")
    eq(nil, vim.fn.bufexists(vim.fn.getcwd() .. "/not-open.txt") == 1 and "a buffer was made" or nil, "no buffer made for a file not open")
    local all = shown.answer(nil, "utf-16").items
    eq({ uri }, vim.tbl_map(function(i) return i.uri end, all), "every buffer with diagnostics")
    vim.diagnostic.reset(ns, buf)
    vim.cmd("bwipeout!")
  end)

  it("is what the model's get_diagnostics reads", function()
    vim.cmd("edit notes.txt")
    linted(vim.api.nvim_get_current_buf())
    prompt("what is wrong?")
    eq({ "notes.txt:\nL1:3 error [lint W4] TODO found\n\nnumbers.txt: no diagnostics.\n\n"
      .. "(An editor has diagnostics only for the files its language servers and linters check, usually those open in it.)" }, tool_outputs(2), "get_diagnostics")
  end)

  it("tells the model the error its edit brought", function()
    vim.cmd("edit numbers.txt")
    linted(vim.api.nvim_get_current_buf())
    prompt("change six")
    eq("BAD six", vim.api.nvim_buf_get_lines(0, 5, 6, false)[1], "buffer")
    local out = tool_outputs(4)
    eq(1, #out, "outputs")
    assert(out[1]:find("The editor now shows 1 new error in numbers.txt that it did not show before this change:\nL6:1 error [lint W3] BAD found", 1, true), out[1])
  end)

  it("takes no diagnostics of a text a language server has not checked yet", function()
    local f = assert(io.open("letters.txt", "w"))
    f:write("a\nb\nc\n")
    f:close()
    vim.cmd("edit letters.txt")
    local buf = vim.api.nvim_get_current_buf()
    local client = gemini.attach(buf)
    local uri = vim.uri_from_bufnr(buf)
    -- A language server of the buffer (played through gemini's client,
    -- which is attached to it), publishing through Neovim's handler.
    local function publish(version, diagnostics)
      vim.lsp.handlers["textDocument/publishDiagnostics"](nil, { uri = uri, version = version, diagnostics = diagnostics }, { client_id = client.id, method = "textDocument/publishDiagnostics" }, {})
    end
    local checked = vim.lsp.util.buf_versions[buf]
    publish(checked, {})
    eq(nil, shown.answer({ uris = { uri } }, "utf-16").items[1].pending, "pending once checked")
    -- After the edit lands, the server publishes an error of the text
    -- before it (one it saw halfway), then, 700 ms later (more than two
    -- of gemini-ls' asks), none of the last text.
    local generation, pending_seen = 0, nil
    vim.api.nvim_buf_attach(buf, false, {
      on_lines = function()
        generation = generation + 1
        local mine = generation
        vim.schedule(function()
          publish(checked, { { range = { start = { line = 1, character = 0 }, ["end"] = { line = 1, character = 1 } }, severity = 1, message = "halfway", source = "fake" } })
          pending_seen = shown.answer({ uris = { uri } }, "utf-16").items[1].pending
        end)
        vim.defer_fn(function()
          if mine == generation then
            publish(vim.lsp.util.buf_versions[buf], {})
          end
        end, 700)
      end,
    })
    prompt("capital b")
    eq("B", vim.api.nvim_buf_get_lines(buf, 1, 2, false)[1], "buffer")
    eq(true, pending_seen, "pending before the server checked the last text")
    eq({ "Successfully modified file: " .. vim.fn.getcwd() .. "/letters.txt (1 replacements)." }, tool_outputs(6), "replace's result")
  end)

  it("counts a server that does not publish again as pending for a while only", function()
    vim.cmd("edit letters.txt")
    local buf = vim.api.nvim_get_current_buf()
    local client = gemini.attach(buf)
    local uri = vim.uri_from_bufnr(buf)
    local checked = vim.lsp.util.buf_versions[buf]
    vim.lsp.handlers["textDocument/publishDiagnostics"](nil, { uri = uri, version = checked, diagnostics = {} }, { client_id = client.id, method = "textDocument/publishDiagnostics" }, {})
    vim.api.nvim_buf_set_lines(buf, 0, 1, false, { "A" })
    local was = shown.pending_ms
    shown.pending_ms = 300
    local function pending()
      return shown.answer({ uris = { uri } }, "utf-16").items[1].pending
    end
    eq(true, pending(), "pending once the text changed")
    vim.wait(400, function() return false end)
    eq(nil, pending(), "pending past pending_ms")
    shown.pending_ms = was
  end)
end)
