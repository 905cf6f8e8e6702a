-- The server's requests that wait for the user: an edit to review
-- (workspace/applyEdit), a call to allow (gemini/confirm), the model's
-- question (gemini/ask). They arrive as gemini/request notifications
-- (experimental.gemini.requestNotifications): Neovim answers a real
-- request as soon as its handler returns, and the user takes longer.
local chat = require("gemini.chat")
local question = require("gemini.ask")
local review = require("gemini.review")

local M = {}

-- The plugin's module, required when called: it requires this one.
local function gemini()
  return require("gemini")
end

-- gemini/request id -> true while the user decides.
local waiting = {}
M.waiting = waiting

-- What answers each request that waits for the user, by method.
local asks = {}
M.asks = asks

asks["workspace/applyEdit"] = function(params, respond, id, client)
  review.open(params, respond, {
    id = id,
    auto_save = gemini().config.auto_save,
    offset_encoding = client and client.offset_encoding or "utf-16",
    on_close = gemini().redraw_status,
  })
end

--- What gemini/confirm asks: the question, the choices offered and the
--- outcome each answers.
function M.confirm_question(params)
  local choices = { "Allow once", "Always allow", "Reject" }
  local outcomes = { "proceed_once", "proceed_always", "cancel" }
  if params.kind == "rewind" then
    -- A file changed since the agent's change: revert it anyway or keep
    -- it; "always" means nothing there.
    choices = { "Revert anyway", "Keep my changes" }
    outcomes = { "proceed_once", "cancel" }
  elseif not params.canAllowAlways then
    -- "Always" would not hold (a command it cannot cover): not offered.
    choices = { "Allow once", "Reject" }
    outcomes = { "proceed_once", "cancel" }
  elseif type(params.alwaysPrefixes) == "table" and #params.alwaysPrefixes > 0 then
    -- The narrower "always" of the line's prefix (go test …), before Reject.
    table.insert(choices, 3, "Always allow " .. table.concat(params.alwaysPrefixes, " …, ") .. " …")
    table.insert(outcomes, 3, "proceed_always_prefix")
  end
  return (params.title or "Allow?") .. " " .. (params.details or ""), choices, outcomes
end

-- Whether the chat shows the session that asks: an agent's question
-- stays out of the chat unless the chat shows that agent.
local function in_chat(params)
  return chat.buf and not require("gemini.agents").foreign(params.sessionId)
end

asks["gemini/confirm"] = function(params, respond)
  local prompt, choices, outcomes = M.confirm_question(params)
  -- An agent's question says which agent asks.
  prompt = require("gemini.agents").asker(params.sessionId) .. prompt
  -- As a question: in the chat once (the call's line, or quoted when no
  -- call of the chat asks), and the answer after it.
  if in_chat(params) and not chat.shows_call(params.callId) then
    local lines = { "" }
    for i, line in ipairs(vim.split(prompt, "\n", { plain = true })) do
      table.insert(lines, (i == 1 and "> Question: " or "> ") .. line)
    end
    chat.lines(lines)
  end
  -- On screen before the prompt, which (inputlist) holds the screen still.
  vim.cmd("redraw")
  vim.ui.select(choices, { prompt = prompt }, function(_, idx)
    if in_chat(params) then
      chat.answer(params.callId, "→ " .. (choices[idx] or "(declined)"))
    end
    respond({ outcome = outcomes[idx] or "cancel" })
  end)
end

-- in_short is a question quoted in the chat on screen, as its choices'
-- prompt puts it: its title and its text's first line (the folder trust
-- question's folder), the rest pointed to, not said twice.
local function in_short(params)
  local lines = vim.split(vim.trim(params.text or ""), "\n", { plain = true })
  local title = (params.title and params.title ~= "") and params.title or "Question"
  local more = #lines > 1 and " (the rest is in the chat)" or ""
  return title .. (lines[1] ~= "" and (" " .. lines[1]) or "") .. more
end

asks["gemini/ask"] = function(params, respond)
  -- The question shows once in the chat: as the line of the call that
  -- asks it, or quoted when no call of the chat asks it (the folder trust
  -- question). The answer is recorded after it.
  local quoted = in_chat(params) and not chat.shows_call(params.callId)
  if quoted then
    -- A question of several lines is quoted line by line: a buffer line
    -- holds no line break.
    local lines = { "" }
    for i, line in ipairs(vim.split(question.prompt(params), "\n", { plain = true })) do
      table.insert(lines, (i == 1 and "> Question: " or "> ") .. line)
    end
    chat.lines(lines)
  end
  -- On screen before the prompt, which (inputlist) holds the screen still.
  vim.cmd("redraw")
  -- The plan of a plan approval is open in a window already
  -- (window/showDocument), so its question need not repeat it.
  local shown = params.kind == "plan_approval" and gemini().state.shown_document
  -- An agent's question says which agent asks, in its title.
  local asker = require("gemini.agents").asker(params.sessionId)
  local asked = params
  if asker ~= "" then
    local title = (params.title and params.title ~= "") and (asker .. params.title) or asker:gsub(": $", "")
    asked = vim.tbl_extend("force", params, { title = title })
  end
  question.open(asked, function(result)
    if in_chat(params) then
      chat.answer(params.callId, question.answer_text(params, result), true)
    end
    respond(result)
  end, shown and { prompt = asker .. (params.title or "Plan Approval") .. ": approve the plan in " .. vim.fn.fnamemodify(shown, ":t") .. "?" }
    or (quoted and chat.visible()) and { prompt = in_short(asked) } or nil)
end


--- gemini/request: a request that waits for the user, answered with a
--- gemini/response notification once the user has.
function M.request(_, req, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client or type(req) ~= "table" or req.id == nil then
    return
  end
  local id = req.id
  local function send(answer)
    if not waiting[id] then
      return -- withdrawn, or answered already
    end
    waiting[id] = nil
    answer.id = id
    require("gemini.client").client_call(client, "notify", "gemini/response", answer)
    gemini().redraw_status()
  end
  local ask = asks[req.method]
  waiting[id] = true
  if not ask then
    send({ error = { code = -32601, message = "gemini.nvim cannot answer " .. tostring(req.method) } })
    return
  end
  -- A failure must still answer, or the server waits for ever.
  local ok, err = pcall(ask, req.params or {}, function(result)
    send({ result = result })
  end, id, client)
  if not ok then
    send({ error = { code = -32603, message = "gemini.nvim could not show " .. req.method .. ": " .. tostring(err) } })
    gemini().notify_once("could not show " .. req.method .. ": " .. tostring(err))
  end
  gemini().redraw_status()
end

--- gemini/cancelRequest: the server withdrew a request the user has not
--- answered yet.
function M.cancel_request(_, params)
  if params and params.id ~= nil and waiting[params.id] then
    waiting[params.id] = nil
    review.cancel(params.id)
    gemini().redraw_status()
  end
end

return M
