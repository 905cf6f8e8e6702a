-- The model: as the server reports it (gemini/models, then the model and
-- usage updates) for a statusline, and the picker that sets it.
local client_of = require("gemini.client")

local M = {}

-- The plugin's module, required when called: it requires this one.
local function gemini()
  return require("gemini")
end

-- JSON-RPC's MethodNotFound: a server older than the method asked.
local method_not_found = -32601

--- The model for a statusline: "Gemini: Auto", and where an alias was
--- routed, the model that answered: "Gemini: Auto → gemini-3.8-flash";
--- "" until the server has said.
function M.statusline()
  local m = gemini().state.model
  local name = m.name or m.current
  if not name or name == "" then
    return ""
  end
  if m.answered and m.answered ~= "" and m.answered ~= m.current and m.answered ~= name then
    name = name .. " → " .. m.answered
  end
  return "Gemini: " .. name
end

-- Takes what gemini/models answered.
local function adopt_models(result)
  if type(result) ~= "table" then
    return
  end
  gemini().state.model.current = result.current
  gemini().state.model.name = result.currentName
  gemini().state.model.models = result.models or {}
  pcall(vim.cmd, "redrawstatus!")
end

--- Asks the server for the model and the models to choose from
--- (gemini/models); on_done(err, result) after the state took them. An
--- older server without gemini/models leaves the statusline empty.
function M.refresh_models(client, on_done)
  client_of.client_call(client, "request", "gemini/models", vim.empty_dict(), function(err, result)
    if not err then
      adopt_models(result)
    end
    if on_done then
      on_done(err, result)
    end
  end)
end


--- How a model shows in the picker: its name, "(current)", its description.
function M.model_label(m, current)
  local label = m.name or m.id
  if m.id == current then
    label = label .. " (current)"
  end
  if m.description and m.description ~= "" then
    label = label .. " — " .. m.description
  end
  return label
end

--- Lets the user pick the model from the server's list (Gemini CLI 0.61's)
--- and sets it with /model set, for every session; with persist, also for
--- later starts (--persist: model.name in ~/.gemini/settings.json).
function M.pick_model(persist, on_done)
  local client = gemini().client()
  if not client then
    return
  end
  client_of.when_ready(client, function()
    gemini().refresh_models(client, function(err, result)
      if err then
        local msg = err.code == method_not_found and "this gemini-ls cannot list the models (gemini/models); update it" or (err.message or vim.inspect(err))
        require("gemini.say").tell("Gemini: " .. msg, vim.log.levels.ERROR)
        return
      end
      vim.ui.select(result.models or {}, {
        prompt = persist and "Gemini model (remembered for future sessions)" or "Gemini model",
        format_item = function(m)
          return M.model_label(m, result.current)
        end,
      }, function(choice)
        if choice then
          gemini().prompt("/model set " .. choice.id .. (persist and " --persist" or ""), nil, on_done)
        end
      end)
    end)
  end)
end

return M
