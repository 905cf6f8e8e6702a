-- Questions the model puts to the user (gemini/ask, protocol §9b): a
-- vim.ui.select of the options, "Other…" for the user's own words when the
-- question allows them, and "Decline". A question of several answers is
-- a select repeated until "Done", each pick ticking or unticking an option.
local M = {}

local DONE, OTHER, DECLINE = {}, {}, {}

local function declined()
  return { declined = true }
end

-- The answer, with the chosen ids and the words only when there are some
-- (an empty Lua table would go as the JSON object {}).
local function answer(chosen, text)
  local a = { declined = false }
  if #chosen > 0 then
    a.chosen = chosen
  end
  if text and text ~= "" then
    a.text = text
  end
  return a
end

local function prompt_of(params)
  local title = params.title and params.title ~= "" and (params.title .. ": ") or ""
  return title .. (params.text or "")
end
--- The question as asked: its title, then its text.
M.prompt = prompt_of

--- The user's answer as the chat records it after the question, as Gemini
--- CLI 0.61 shows answers: "Database → SQLite".
function M.answer_text(params, result)
  local head = (params.title and params.title ~= "") and (params.title .. " → ") or "→ "
  if not result or result.declined then
    return head .. "(declined)"
  end
  local said = {}
  for _, id in ipairs(result.chosen or {}) do
    local name = id
    for _, o in ipairs(params.options or {}) do
      if o.id == id then
        name = o.label or id
      end
    end
    table.insert(said, name)
  end
  if result.text and result.text ~= "" then
    table.insert(said, result.text)
  end
  if #said == 0 then
    return head .. "(submitted without answering)"
  end
  return head .. table.concat(said, ", ")
end

local function label(o, ticked)
  local s = o.label or o.id
  if o.description and o.description ~= "" then
    s = s .. " — " .. o.description
  end
  if ticked ~= nil then
    s = (ticked and "[x] " or "[ ] ") .. s
  end
  return s
end

local function read_text(prompt, cb)
  vim.ui.input({ prompt = prompt .. " " }, function(input)
    cb(input)
  end)
end

local function ask_one(params, respond)
  local items = vim.list_extend({}, params.options or {})
  if params.freeText then
    table.insert(items, OTHER)
  end
  table.insert(items, DECLINE)
  vim.ui.select(items, {
    prompt = prompt_of(params),
    format_item = function(item)
      if item == OTHER then
        return "Other… (answer in your own words)"
      elseif item == DECLINE then
        return "Decline"
      end
      return label(item)
    end,
  }, function(choice)
    if choice == nil or choice == DECLINE then
      respond(declined())
    elseif choice == OTHER then
      read_text(prompt_of(params), function(text)
        respond(text and answer({}, text) or declined())
      end)
    else
      respond(answer({ choice.id }))
    end
  end)
end

local function ask_many(params, respond)
  local ticked, text = {}, ""
  local function again()
    local items = vim.list_extend({}, params.options or {})
    table.insert(items, DONE)
    if params.freeText then
      table.insert(items, OTHER)
    end
    table.insert(items, DECLINE)
    vim.ui.select(items, {
      prompt = prompt_of(params) .. " (pick to tick, then Done)",
      format_item = function(item)
        if item == DONE then
          return "Done"
        elseif item == OTHER then
          return text == "" and "Other… (add your own words)" or ("Other: " .. text)
        elseif item == DECLINE then
          return "Decline"
        end
        return label(item, ticked[item.id] == true)
      end,
    }, function(choice)
      if choice == nil or choice == DECLINE then
        respond(declined())
      elseif choice == DONE then
        -- Done with nothing ticked answers nothing, as Gemini CLI's Done
        -- does; only Decline (or Esc) declines.
        local chosen = {}
        for _, o in ipairs(params.options or {}) do
          if ticked[o.id] then
            table.insert(chosen, o.id)
          end
        end
        respond(answer(chosen, text))
      elseif choice == OTHER then
        read_text(prompt_of(params), function(input)
          text = input or text
          again()
        end)
      else
        ticked[choice.id] = not ticked[choice.id] or nil
        again()
      end
    end)
  end
  again()
end

--- Asks the question of params; respond(result) gets the answer. opts:
--- prompt, said instead of the question (whose text is on the screen
--- already).
function M.open(params, respond, opts)
  if opts and opts.prompt then
    params = vim.tbl_extend("force", params, { title = "", text = opts.prompt })
  end
  if #(params.options or {}) == 0 and params.freeText then
    read_text(prompt_of(params), function(text)
      respond(text and answer({}, text) or declined())
    end)
  elseif params.multiple then
    ask_many(params, respond)
  else
    ask_one(params, respond)
  end
end

return M
