-- What the user must know of gemini-ls outside a prompt: its warnings and
-- errors (window/showMessage of type 1 or 2: a settings file ignored, an
-- MCP server that did not start, a hook that cannot run) and credentials
-- it lacks (gemini/authStatus). Each is told in the chat, where the user
-- reads what Gemini says, once; Neovim's own handler put them on the
-- command line, where the next message hides them (or, at start-up, one
-- wider than the line stops for Enter). With the chat not on screen, one
-- line, cut to fit and kept out of :messages, says where to look.
local chat = require("gemini.chat")
local client_of = require("gemini.client")

local M = {}

-- The plugin's module, required when called: it requires this one.
local function gemini()
  return require("gemini")
end

-- First lines told since the chat was last on screen, and the chat's
-- showings (chat.showings) when that list was begun: problems that come
-- apart (a slow start sends the missing key after the settings file) are
-- counted together until the user opens the chat.
local unseen, begun_at = {}, nil
local pointing = false

--- The line pointing to the chat for the first lines in unseen, within
--- width cells: the pointer is never what is cut.
function M.pointer(lines, width)
  local fit = require("gemini.say").fit
  if #lines > 1 then
    return fit(("Gemini: %d problems to know of, in the chat (:Gemini)"):format(#lines), width)
  end
  local suffix = " (in the chat: :Gemini)"
  return fit(lines[1], width - vim.fn.strdisplaywidth(suffix)) .. suffix
end

-- Points to the chat, once for the problems told together (a server's
-- start-up sends several): one echo, as two in a row would stop for Enter.
local function point_to_chat()
  if pointing then
    return
  end
  pointing = true
  vim.defer_fn(function()
    pointing = false
    if #unseen == 0 or chat.visible() then
      return
    end
    vim.api.nvim_echo({ { M.pointer(unseen, vim.v.echospace), "WarningMsg" } }, false, {})
  end, 50)
end

--- Tells text in the chat as level ("Warning", "Error", "No credentials"),
--- once; points to the chat when it is not on screen.
function M.tell(text, level)
  if not chat.notice(text, level) then
    return
  end
  if chat.visible() or begun_at ~= chat.showings then
    unseen, begun_at = {}, chat.showings
  end
  if not chat.visible() then
    local first = vim.split(vim.trim(text), "\n", { plain = true })[1]
    table.insert(unseen, "Gemini: " .. first:gsub("^Gemini: ", ""))
    point_to_chat()
  end
end

local levels = { [1] = "Error", [2] = "Warning" }

--- window/showMessage: a warning or an error to the chat; other messages
--- in one line (gemini.say): Neovim's own handler stops at "Press ENTER"
--- for a message wider than the screen (a background agent's end, with
--- its pull request and worktree), and the screen stops updating with it.
function M.show_message(_, params)
  local level = params and levels[params.type]
  if not level then
    return require("gemini.say").tell(params and params.message or "", vim.log.levels.INFO)
  end
  M.tell(params.message or "", level)
end

--- Takes gemini/authStatus's result (or gemini/login's auth): the chat
--- status says when there are no credentials, and the chat tells why.
function M.adopt_auth(auth)
  if type(auth) ~= "table" then
    return
  end
  gemini().state.auth = auth
  pcall(vim.cmd, "redrawstatus!")
  if auth.usable == false then
    M.tell((auth.problem or "") .. "\nIn Neovim, :GeminiLogin signs in with Google.", "No credentials")
  end
end

--- Asks the server whether it can reach the model (gemini/authStatus);
--- an older server without the method says nothing.
function M.check_auth(client)
  client_of.client_call(client, "request", "gemini/authStatus", vim.empty_dict(), function(err, result)
    if not err then
      M.adopt_auth(result)
    end
  end)
end

return M
