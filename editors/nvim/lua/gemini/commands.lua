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

--- Drops the list kept (the server read its commands again: /commands
--- reload), so the next completion or refresh asks for it; until then
--- the last list stands in, as a stale one does.
function M.invalidate()
  cache.at = nil
end

--- Fetches the list in the background unless it is fresh.
function M.refresh(gemini, client)
  if fresh(client) then
    return
  end
  gemini.when_ready(client, function()
    gemini.client_call(client, "request", "gemini/commands", vim.empty_dict(), function(err, result)
      if err then
        failed(client)
      else
        store(client, result, gemini.notify_once)
      end
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

--- The commands whose "/name" starts with lead, with their descriptions
--- (the prompt area's completion shows both).
function M.items(lead)
  local out = {}
  for _, c in ipairs(list(require("gemini"))) do
    if ("/" .. c.name):sub(1, #lead) == lead then
      table.insert(out, c)
    end
  end
  return out
end

-- The completion menu of the command line shows names only: while
-- "/name" is being typed (before <Tab> opens that menu) a float lists the
-- matching commands with their descriptions.
local float = { win = nil, buf = nil }

-- Set by the plugin while its prompt input is open, so input()'s
-- command line ("@") is known to be a Gemini prompt.
M.input_open = false

local function close_float()
  if float.win and vim.api.nvim_win_is_valid(float.win) then
    vim.api.nvim_win_close(float.win, true)
  end
  float.win = nil
end

--- On CmdlineLeave: closes the descriptions; an input() left (even with
--- <C-c>, which calls no callback) is no longer the prompt input.
function M.left_cmdline()
  close_float()
  if vim.v.event.cmdtype == "@" then
    M.input_open = false
  end
end

local function show_float(lines)
  if not (float.buf and vim.api.nvim_buf_is_valid(float.buf)) then
    float.buf = vim.api.nvim_create_buf(false, true)
  end
  -- As many as fit in half the screen: the built-ins and the user's
  -- commands together are thirty or more. A cut list says so on its
  -- last row, so that a command below it is not taken for missing.
  local height = math.min(#lines, math.max(1, math.floor((vim.o.lines - vim.o.cmdheight - 2) / 2)))
  if #lines > height and height > 1 then
    local more = #lines - height + 1
    lines = vim.list_slice(lines, 1, height - 1)
    table.insert(lines, string.format("… %d more: type more of the name, or <Tab> for all", more))
  end
  vim.api.nvim_buf_set_lines(float.buf, 0, -1, false, lines)
  local width = 1
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width, vim.o.columns)
  local config = {
    relative = "editor",
    -- Above the status line over the command line, at the right, clear
    -- of the completion menu that opens at the typed word.
    row = math.max(0, vim.o.lines - vim.o.cmdheight - 1 - height),
    col = vim.o.columns - width,
    width = width,
    height = height,
    style = "minimal",
    focusable = false,
    zindex = 250,
  }
  if float.win and vim.api.nvim_win_is_valid(float.win) then
    vim.api.nvim_win_set_config(float.win, config)
  else
    float.win = vim.api.nvim_open_win(float.buf, false, config)
  end
  vim.cmd("redraw")
end

-- The "/name" being typed as a prompt's first word, or nil: in the prompt
-- input or after :Gemini.
local function typed()
  local kind, line = vim.fn.getcmdtype(), vim.fn.getcmdline()
  if kind == "@" and M.input_open then
    return line:match("^(/%S*)$")
  elseif kind == ":" then
    return line:match("^[^%a]*Gemini!?%s+(/%S*)$")
  end
end

--- On CmdlineChanged: shows the descriptions of the commands matching
--- the "/name" typed, or closes them. While <Tab> cycles through the
--- completions Neovim's own menu lists them, so this list closes: the
--- commands are never shown twice.
function M.describe_typed()
  local lead = typed()
  if vim.fn.wildmenumode() == 1 then
    close_float()
    return
  end
  local names = lead and M.matches(lead) or {}
  if #names == 0 then
    close_float()
    return
  end
  local descriptions, width = {}, 0
  for _, c in ipairs(cache.commands) do
    descriptions["/" .. c.name] = (c.description or ""):gsub("%s+", " ")
  end
  for _, name in ipairs(names) do
    width = math.max(width, #name)
  end
  local lines = {}
  for _, name in ipairs(names) do
    table.insert(lines, string.format(" %-" .. width .. "s  %s ", name, descriptions[name]))
  end
  show_float(lines)
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
