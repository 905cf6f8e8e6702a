-- gemini/languageFeature (docs/protocol.md §9d): the server asks about
-- code (a definition, the references, a rename's edit) for the model's
-- navigate_code and rename_symbol, and Neovim answers from the language
-- servers it runs: the other clients attached to the file's buffer, never
-- gemini-ls. A file no buffer holds is loaded into a hidden one for the
-- question, so that the user's configuration starts its servers (the
-- FileType autocmds of vim.lsp.enable or nvim-lspconfig), and unloaded
-- after.
--
-- Neovim answers a server's request with what its handler returns, so
-- every wait here is bounded: the answer holds Neovim M.timeout_ms at most.
local pos = require("gemini.pos")

local M = {}

--- The longest one answer holds Neovim, waits for servers included.
M.timeout_ms = 10000
--- How long a file loaded for the question waits for a server able to
--- answer to attach (a configuration may start one asynchronously, after
--- a root search), within M.timeout_ms.
M.attach_timeout_ms = 3000

-- Error codes: no language server for the file (§9d), and a server's own
-- failure, for which Neovim (0.7 and on) knows no better code.
M.NO_SERVER = -32001
local FAILED = -32603
local INVALID_PARAMS = -32602

-- The LSP method of each operation: the call hierarchy's first step.
local methods = {
  definition = "textDocument/definition",
  type_definition = "textDocument/typeDefinition",
  implementation = "textDocument/implementation",
  references = "textDocument/references",
  hover = "textDocument/hover",
  document_symbols = "textDocument/documentSymbol",
  workspace_symbols = "workspace/symbol",
  incoming_calls = "textDocument/prepareCallHierarchy",
  outgoing_calls = "textDocument/prepareCallHierarchy",
  rename = "textDocument/rename",
}

-- The server capability saying a method is answered.
local capabilities = {
  ["textDocument/definition"] = "definitionProvider",
  ["textDocument/typeDefinition"] = "typeDefinitionProvider",
  ["textDocument/implementation"] = "implementationProvider",
  ["textDocument/references"] = "referencesProvider",
  ["textDocument/hover"] = "hoverProvider",
  ["textDocument/documentSymbol"] = "documentSymbolProvider",
  ["workspace/symbol"] = "workspaceSymbolProvider",
  ["textDocument/prepareCallHierarchy"] = "callHierarchyProvider",
  ["textDocument/rename"] = "renameProvider",
}

local function call(client, name, ...)
  return require("gemini").client_call(client, name, ...)
end

local function fail(code, message)
  return nil, { code = code, message = message }
end

local function initialized(client)
  return client.initialized or (client.server_capabilities ~= nil and next(client.server_capabilities) ~= nil)
end

local function supports(client, method)
  local cap = client.server_capabilities and client.server_capabilities[capabilities[method]]
  return cap ~= nil and cap ~= false and cap ~= vim.NIL
end

-- The clients attached to buf, in the order they started, but gemini-ls's:
-- the one asking (self_id), and any other gemini-ls, which would ask this
-- Neovim back. From 0.10 on, those still initializing too; before, Neovim
-- lists only the clients initialized.
local function clients_of(buf, self_id)
  local list = {}
  if vim.lsp.get_clients then
    -- 0.12 leaves out the clients still initializing unless asked.
    list = vim.lsp.get_clients({ bufnr = buf, _uninitialized = true })
  else
    for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
      table.insert(list, c)
    end
  end
  local out = {}
  for _, c in ipairs(list) do
    if c.id ~= self_id and c.name ~= "gemini-ls" then
      table.insert(out, c)
    end
  end
  table.sort(out, function(a, b)
    return a.id < b.id
  end)
  return out
end

-- The loaded buffer named fname, if any.
local function buffer_named(fname)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.api.nvim_buf_get_name(buf) == fname then
      return buf
    end
  end
end

-- The buffers loaded for answers under way.
local hidden = {}

-- Milliseconds left until deadline (a vim.loop.hrtime()), at least 0.
local function left(deadline)
  return math.max(0, math.floor((deadline - vim.loop.hrtime()) / 1e6))
end

-- Waits, bounded, for the clients of buf able to answer method: those
-- initialized and supporting it, once no attached client is still
-- initializing; for a buffer loaded for the question (fresh), once one
-- is there or attach_deadline passed. Returns them, and the clients
-- attached.
local function await_clients(buf, method, self_id, fresh, deadline, attach_deadline)
  local able, all
  local function look()
    all = clients_of(buf, self_id)
    able = {}
    local starting = false
    for _, c in ipairs(all) do
      if not initialized(c) then
        starting = true
      elseif supports(c, method) then
        table.insert(able, c)
      end
    end
    if starting then
      return false
    end
    return #able > 0 or not fresh or vim.loop.hrtime() >= attach_deadline
  end
  vim.wait(left(deadline), look, 20)
  look()
  return able, all
end

-- Sends each job ({client, method, params}) at once and waits, until
-- deadline at most, for every answer; fills in job.err and job.result. A
-- server that did not answer in time has its request cancelled.
local function request_all(jobs, buf, deadline)
  local pending = 0
  for _, job in ipairs(jobs) do
    local ok, id = call(job.client, "request", job.method, job.params, function(err, result)
      if job.done then
        return
      end
      job.done, job.err, job.result = true, err, result
      pending = pending - 1
    end, buf)
    if ok then
      job.id = id
      pending = pending + 1
    else
      job.done, job.err = true, { message = job.client.name .. " has stopped" }
    end
  end
  vim.wait(left(deadline), function()
    return pending <= 0
  end, 10)
  for _, job in ipairs(jobs) do
    if not job.done then
      job.done = true
      job.err = { code = FAILED, message = string.format("%s did not answer %s within %d ms", job.client.name, job.method, M.timeout_ms) }
      pcall(call, job.client, "cancel_request", job.id)
    end
  end
end

-- The error to answer for a server's: its message, and its code when
-- Neovim can send it back and it does not mean "no language server".
local function server_error(err)
  local code = tonumber(err.code)
  local known = code and vim.lsp.protocol.ErrorCodes[code] ~= nil and code ~= M.NO_SERVER
  return { code = known and code or FAILED, message = tostring(err.message or "the language server failed") }
end

local function null(v)
  return v == nil or v == vim.NIL
end

-- A list of v: a list as it is, one item as a list of one, null as none.
local function as_list(v)
  if null(v) then
    return {}
  end
  if (vim.islist or vim.tbl_islist)(v) then
    return v
  end
  return { v }
end

local function lines_of(uri)
  local ok, fname = pcall(vim.uri_to_fname, uri)
  if not ok then
    return {}
  end
  local buf = buffer_named(fname)
  if buf then
    return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  end
  if vim.fn.filereadable(fname) == 1 then
    return vim.fn.readfile(fname)
  end
  return {}
end

-- A function moving an LSP position in the document uri from encoding
-- from to encoding to, reading each document's lines once; nil when the
-- encodings are the same.
local function mover(from, to)
  if from == to then
    return nil
  end
  local cache = {}
  return function(uri, p)
    if type(p) ~= "table" or type(p.line) ~= "number" or type(p.character) ~= "number" then
      return p
    end
    cache[uri] = cache[uri] or lines_of(uri)
    local line = cache[uri][p.line + 1] or ""
    return { line = p.line, character = pos.character(line, pos.byte(line, p.character, from), to) }
  end
end

-- Moves every position of a result in place, move being a mover, each in
-- its document: uri for what is in the document asked about (a hover's
-- range, document symbols) or, for outgoing calls, in the caller's (the
-- item asked about: their fromRanges).
local function convert(operation, result, uri, move)
  local function range(u, r)
    if type(r) == "table" and r.start then
      r.start, r["end"] = move(u, r.start), move(u, r["end"])
    end
  end
  local function location(l)
    if l.targetUri then -- LocationLink
      range(l.targetUri, l.targetRange)
      range(l.targetUri, l.targetSelectionRange)
      range(uri, l.originSelectionRange)
    elseif l.uri then
      range(l.uri, l.range)
    end
  end
  local function symbol(s)
    if type(s.location) == "table" then -- SymbolInformation, WorkspaceSymbol
      location(s.location)
      return
    end
    range(uri, s.range)
    range(uri, s.selectionRange)
    for _, child in ipairs(null(s.children) and {} or s.children) do
      symbol(child)
    end
  end
  local function item(i)
    range(i.uri, i.range)
    range(i.uri, i.selectionRange)
  end
  if operation == "hover" then
    range(uri, result.range)
  elseif operation == "document_symbols" or operation == "workspace_symbols" then
    for _, s in ipairs(result) do
      symbol(s)
    end
  elseif operation == "incoming_calls" then
    for _, c in ipairs(result) do
      item(c.from)
      for _, r in ipairs(c.fromRanges or {}) do
        range(c.from.uri, r)
      end
    end
  elseif operation == "outgoing_calls" then
    for _, c in ipairs(result) do
      item(c.to)
      for _, r in ipairs(c.fromRanges or {}) do
        range(uri, r)
      end
    end
  elseif operation == "rename" then
    for u, edits in pairs(null(result.changes) and {} or result.changes) do
      for _, e in ipairs(edits) do
        range(u, e.range)
      end
    end
    for _, change in ipairs(null(result.documentChanges) and {} or result.documentChanges) do
      if change.textDocument and change.edits then
        for _, e in ipairs(change.edits) do
          range(change.textDocument.uri, e.range)
        end
      end
    end
  else
    for _, l in ipairs(result) do
      location(l)
    end
  end
  return result
end

-- A hover's contents as markdown paragraphs.
local function hover_texts(contents, out)
  if type(contents) == "string" then
    table.insert(out, contents)
  elseif type(contents) == "table" and contents.kind then -- MarkupContent
    table.insert(out, contents.value)
  elseif type(contents) == "table" and contents.language then -- MarkedString
    table.insert(out, "```" .. contents.language .. "\n" .. contents.value .. "\n```")
  elseif type(contents) == "table" then
    for _, c in ipairs(contents) do
      hover_texts(c, out)
    end
  end
  return out
end

-- Several servers' hovers as one: the first as it is, else their texts
-- one after another.
local function merge_hovers(hovers)
  if #hovers <= 1 then
    return hovers[1]
  end
  local texts = {}
  for _, h in ipairs(hovers) do
    hover_texts(h.contents, texts)
  end
  return { contents = { kind = "markdown", value = table.concat(texts, "\n\n---\n\n") }, range = hovers[1].range }
end

-- The params of method for client, the position moved into its encoding.
local function params_for(client, params, buf, encoding)
  local p = {}
  if params.textDocument then
    p.textDocument = { uri = params.textDocument.uri }
  end
  if type(params.position) == "table" then
    local theirs = client.offset_encoding or "utf-16"
    local line = vim.api.nvim_buf_get_lines(buf, params.position.line, params.position.line + 1, false)[1] or ""
    p.position = {
      line = params.position.line,
      character = pos.character(line, pos.byte(line, params.position.character, encoding), theirs),
    }
  end
  return p
end

-- The answer's result, from what each job's client answered in its own
-- encoding; or an error when none answered and one failed.
local function gather(operation, jobs, uri, encoding)
  local out, hovers, first_err, answered = {}, {}, nil, false
  for _, job in ipairs(jobs) do
    if job.err then
      first_err = first_err or server_error(job.err)
    else
      answered = true
      local move = mover(job.client.offset_encoding or "utf-16", encoding)
      local result = job.result
      if operation == "hover" then
        if not null(result) then
          table.insert(hovers, move and convert(operation, result, uri, move) or result)
        end
      else
        local list = as_list(result)
        if move then
          convert(operation, list, operation == "outgoing_calls" and job.params.item.uri or uri, move)
        end
        vim.list_extend(out, list)
      end
    end
  end
  if not answered and first_err then
    return nil, first_err
  end
  if operation == "hover" then
    local h = merge_hovers(hovers)
    return h == nil and vim.NIL or h
  end
  -- None is null: Neovim would send an empty table as {}.
  return #out > 0 and out or vim.NIL
end

-- The call hierarchy: the items each client prepares at the position,
-- then each item's incoming or outgoing calls.
local function calls(operation, clients, params, buf, encoding, deadline)
  local prepares = {}
  for _, c in ipairs(clients) do
    table.insert(prepares, { client = c, method = "textDocument/prepareCallHierarchy", params = params_for(c, params, buf, encoding) })
  end
  request_all(prepares, buf, deadline)
  local method = operation == "incoming_calls" and "callHierarchy/incomingCalls" or "callHierarchy/outgoingCalls"
  local jobs, first_err = {}, nil
  for _, prep in ipairs(prepares) do
    if prep.err then
      first_err = first_err or server_error(prep.err)
    else
      for _, item in ipairs(as_list(prep.result)) do
        table.insert(jobs, { client = prep.client, method = method, params = { item = item } })
      end
    end
  end
  if #jobs == 0 then
    if first_err then
      return nil, first_err
    end
    return vim.NIL
  end
  request_all(jobs, buf, deadline)
  return gather(operation, jobs, params.textDocument.uri, encoding)
end

-- rename: the edit of the first server that proposes one, asked with
-- prepareRename first where it has it; changes nothing.
local function rename(clients, params, buf, encoding, deadline)
  if type(params.newName) ~= "string" or params.newName == "" then
    return fail(INVALID_PARAMS, "rename needs newName")
  end
  local first_err
  for _, c in ipairs(clients) do
    local p = params_for(c, params, buf, encoding)
    local prepare = type(c.server_capabilities.renameProvider) == "table" and c.server_capabilities.renameProvider.prepareProvider
    local refused
    if prepare then
      local job = { client = c, method = "textDocument/prepareRename", params = p }
      request_all({ job }, buf, deadline)
      if job.err then
        refused = server_error(job.err)
      elseif null(job.result) then
        refused = { code = FAILED, message = c.name .. " cannot rename the symbol at this position" }
      end
    end
    if not refused then
      local job = { client = c, method = "textDocument/rename", params = vim.tbl_extend("force", p, { newName = params.newName }) }
      request_all({ job }, buf, deadline)
      if job.err then
        refused = server_error(job.err)
      elseif not null(job.result) then
        local move = mover(c.offset_encoding or "utf-16", encoding)
        return move and convert("rename", job.result, params.textDocument.uri, move) or job.result
      end
    end
    first_err = first_err or refused
  end
  if first_err then
    return nil, first_err
  end
  return vim.NIL
end

local function answer_in(buf, fresh, params, encoding, self_id)
  local operation = params.operation
  local method = methods[operation]
  local start = vim.loop.hrtime()
  local deadline = start + M.timeout_ms * 1e6
  local attach_deadline = start + math.min(M.attach_timeout_ms, M.timeout_ms) * 1e6
  local clients, attached = await_clients(buf, method, self_id, fresh, deadline, attach_deadline)
  if #clients == 0 then
    local names = vim.tbl_map(function(c)
      return c.name
    end, attached)
    local why = #names == 0 and "no language server is attached to it"
      or ("its language servers (" .. table.concat(names, ", ") .. ") do not answer " .. method)
    return fail(M.NO_SERVER, "Neovim cannot answer " .. operation .. " for " .. vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":~:.") .. ": " .. why)
  end
  if operation == "incoming_calls" or operation == "outgoing_calls" then
    return calls(operation, clients, params, buf, encoding, deadline)
  elseif operation == "rename" then
    return rename(clients, params, buf, encoding, deadline)
  end
  local jobs = {}
  for _, c in ipairs(clients) do
    local p = params_for(c, params, buf, encoding)
    if operation == "references" then
      p.context = { includeDeclaration = true }
    elseif operation == "workspace_symbols" then
      p = { query = params.query or "" }
    elseif operation == "document_symbols" then
      p.position = nil
    end
    table.insert(jobs, { client = c, method = method, params = p })
  end
  request_all(jobs, buf, deadline)
  return gather(operation, jobs, params.textDocument.uri, encoding)
end

--- gemini/languageFeature's answer to params: the result (vim.NIL for
--- null), or nil and an error {code, message}. Positions in params and
--- in the result are in encoding, the gemini-ls connection's; self_id is
--- the gemini-ls client asking, never asked.
function M.answer(params, encoding, self_id)
  if type(params) ~= "table" or not methods[params.operation] then
    return fail(INVALID_PARAMS, "unknown operation " .. tostring(type(params) == "table" and params.operation or nil))
  end
  local uri = type(params.textDocument) == "table" and params.textDocument.uri
  if type(uri) ~= "string" then
    return fail(INVALID_PARAMS, params.operation .. " needs textDocument")
  end
  if params.operation ~= "document_symbols" and params.operation ~= "workspace_symbols" and type(params.position) ~= "table" then
    return fail(INVALID_PARAMS, params.operation .. " needs a position")
  end
  local fname = vim.uri_to_fname(uri)
  local buf = buffer_named(fname)
  local loaded_here = false
  if not buf then
    if vim.fn.filereadable(fname) ~= 1 then
      return fail(INVALID_PARAMS, "no such file: " .. fname)
    end
    -- Hidden and unlisted; loading runs the filetype detection, whose
    -- FileType autocmds start and attach the user's servers.
    buf = vim.fn.bufadd(fname)
    vim.fn.bufload(buf)
    loaded_here = true
    hidden[buf] = true
  end
  -- A question that came while another waits for the servers of the
  -- file it loaded (run inside its vim.wait) waits for them too.
  local ok, result, err = pcall(answer_in, buf, hidden[buf] == true, params, encoding, self_id)
  if loaded_here then
    hidden[buf] = nil
    if vim.api.nvim_buf_is_valid(buf) and vim.fn.bufwinid(buf) == -1 then
      -- Gone again: the servers close the document. Its semantic tokens
      -- stopped first: Neovim 0.10 keeps a deleted buffer's highlighter,
      -- whose answer still on its way then fails on the buffer gone
      -- ("Invalid buffer id"), shown to the user.
      if vim.lsp.semantic_tokens and vim.lsp.semantic_tokens.stop then
        for _, c in ipairs(clients_of(buf, nil)) do
          pcall(vim.lsp.semantic_tokens.stop, buf, c.id)
        end
      end
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
  if not ok then
    return fail(FAILED, "gemini.nvim could not answer " .. params.operation .. ": " .. tostring(result))
  end
  return result, err
end

return M
