-- The user's commands (gemini/commands) for completing a prompt's "/name":
-- custom commands, MCP prompts and whatever else the server lists. The
-- list is kept briefly, as completion asks for it on every <Tab>.
local M = {}

-- How long a fetched list is used before it is asked for again: new
-- command files and MCP servers that start later show up after this.
M.ttl_ms = 10000
-- How long a completion waits for the list when it has none fresh.
M.sync_timeout_ms = 1000

local cache = { client_id = nil, at = nil, commands = {} }

local function now()
  return vim.loop.now()
end

local function fresh(client)
  return cache.at ~= nil and cache.client_id == client.id and now() - cache.at < M.ttl_ms
end

-- Keeps a gemini/commands result; its skipped command files are told once.
local function store(client, result, notify_once)
  cache.client_id, cache.at = client.id, now()
  cache.commands = (type(result) == "table" and result.commands) or {}
  for _, e in ipairs((type(result) == "table" and result.errors) or {}) do
    notify_once(e, vim.log.levels.WARN)
  end
end

-- A failed listing leaves the last list (an older server has none) and is
-- not asked again until the list would be stale.
local function failed(client)
  cache.client_id, cache.at = client.id, now()
end

--- Fetches the list in the background unless it is fresh; on_done() after.
function M.refresh(gemini, client, on_done)
  if fresh(client) then
    if on_done then on_done() end
    return
  end
  gemini.when_ready(client, function()
    gemini.client_call(client, "request", "gemini/commands", vim.empty_dict(), function(err, result)
      if err then
        failed(client)
      else
        store(client, result, gemini.notify_once)
      end
      if on_done then on_done() end
    end)
  end)
end

-- The list now: fresh from the cache, else asked for and waited on (a
-- completion must answer at once), else the stale one.
local function list(gemini)
  local client = gemini.client()
  if not client then
    return {}
  end
  if fresh(client) then
    return cache.commands
  end
  local ready = client.initialized or (client.server_capabilities and next(client.server_capabilities))
  if ready then
    local resp = gemini.client_call(client, "request_sync", "gemini/commands", vim.empty_dict(), M.sync_timeout_ms)
    if resp and resp.result then
      store(client, resp.result, gemini.notify_once)
    elseif resp and resp.err then
      failed(client)
    end
  end
  if not fresh(client) then
    M.refresh(gemini, client)
  end
  return cache.commands
end

--- The "/name" completions of lead, the text typed so far: none unless it
--- is a "/" and part of a name.
function M.matches(lead)
  if not lead:match("^/[^%s]*$") then
    return {}
  end
  local out = {}
  for _, c in ipairs(list(require("gemini"))) do
    local word = "/" .. c.name
    if word:sub(1, #lead) == lead then
      table.insert(out, word)
    end
  end
  return out
end

--- :Gemini's completion: "/name" as the first argument.
function M.complete_command(lead, line, pos)
  local before = line:sub(1, pos)
  -- The arguments so far, after the (ranged, abbreviated, banged) name.
  local args = before:match("^.-Gem%a*!?%s+(.*)$")
  if not args or args ~= lead then
    return {}
  end
  return M.matches(lead)
end

--- The prompt input's completion (input()'s customlist): the whole text
--- typed is the lead.
function M.complete_input(_, line, pos)
  return M.matches(line:sub(1, pos))
end

return M
