-- Deferred answers to server requests.
--
-- Neovim's LSP client answers a server request with whatever the handler
-- returns, at once. A review or a question must be answered only after the
-- user decides, so for gemini-ls's own requests the request id is swapped
-- for a throwaway one as the message is decoded: Neovim answers the
-- throwaway id (the server ignores it) and the plugin answers the real id
-- later through the client's own writer.
local M = {}

local DEFERRED = "__gemini_request_id"
M.DEFERRED = DEFERRED
local seq = 0

local function is_ours(msg)
  if type(msg) ~= "table" or msg.id == nil or type(msg.params) ~= "table" then
    return false
  end
  if msg.method == "gemini/confirm" then
    return true
  end
  if msg.method == "workspace/applyEdit" then
    local edit = msg.params.edit
    local ann = type(edit) == "table" and edit.changeAnnotations
    return type(ann) == "table" and type(ann["gemini.edit"]) == "table" and ann["gemini.edit"].needsConfirmation == true
  end
  return false
end

function M.install()
  if M.installed then
    return
  end
  M.installed = true
  local decode = vim.json.decode
  vim.json.decode = function(...)
    local msg = decode(...)
    if is_ours(msg) then
      seq = seq + 1
      msg.params[DEFERRED] = msg.id
      msg.id = "gemini-deferred-" .. seq
    end
    return msg
  end
end

-- Finds the function that frames and writes a message on the client's
-- stdin, among the upvalues of client.rpc.notify (0.7-0.9) or as a method
-- of the RPC object it closes over (0.10+).
local function find_sender(fn, depth)
  if depth > 3 or type(fn) ~= "function" then
    return nil
  end
  local i = 1
  while true do
    local name, value = debug.getupvalue(fn, i)
    if not name then
      break
    end
    if name == "encode_and_send" and type(value) == "function" then
      return value
    end
    if type(value) == "table" and type(value.encode_and_send) == "function" then
      return function(payload)
        return value:encode_and_send(payload)
      end
    end
    if type(value) == "function" then
      local found = find_sender(value, depth + 1)
      if found then
        return found
      end
    end
    i = i + 1
  end
  return nil
end

-- respond sends {id, result} to the server on client.
function M.respond(client, id, result)
  local send = find_sender(client.rpc.notify, 0)
  if not send then
    vim.notify("gemini: cannot answer the server on this Neovim version", vim.log.levels.ERROR)
    return false
  end
  return send({ jsonrpc = "2.0", id = id, result = result })
end

return M
