-- script: model.json
-- The statusline shows the model as the server reports it, from the start;
-- :Gemini model offers the server's list (Gemini CLI 0.61's) and sets the
-- one picked with /model set, which the next prompt goes to.
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })

local function last_request_model()
  local last
  for line in io.lines(os.getenv("GEMINI_REQUESTS")) do
    last = vim.json.decode(line)
  end
  return last and last.model
end

describe("model", function()
  it("shows the model the server starts with", function()
    vim.cmd("edit notes.txt")
    -- run.sh names gemini-2.5-pro (GEMINI_MODEL).
    wait_for("the model in the statusline", function() return gemini.statusline() == "Gemini: gemini-2.5-pro" end)
  end)

  it("picks from the server's list and sets the model with /model set", function()
    local offered, labels
    vim.ui.select = function(items, opts, cb)
      offered, labels = items, {}
      for _, item in ipairs(items) do
        table.insert(labels, opts.format_item(item))
      end
      for i, item in ipairs(items) do
        if item.id == "gemini-3.8-flash" then
          vim.defer_fn(function() cb(item, i) end, 10)
        end
      end
    end
    vim.cmd("Gemini model")
    wait_for("the model to change", function() return gemini.statusline() == "Gemini: gemini-3.8-flash" end)
    eq(6, #offered, "models offered")
    eq("auto", offered[1].id, "first model")
    assert(labels[1]:find("^Auto — Picks the model for each prompt"), labels[1])
    eq("gemini-3.1-pro-preview", labels[2], "the custom-tools Pro's label")
    eq("gemini-2.5-pro (current)", labels[4], "the current model's label")
    -- The model notification that changes the statusline comes before
    -- the command's answer reaches the chat.
    local function chat_text()
      return table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
    end
    wait_for("the command's answer in the chat", function()
      return chat_text():find("Model set to gemini-3.8-flash", 1, true) ~= nil
    end)

    local done
    gemini.prompt("hi", nil, function(err, result) done = { err = err, result = result } end)
    wait_for("the prompt to end", function() return done ~= nil end, 15000)
    eq(nil, done.err, "error")
    eq("gemini-3.8-flash", last_request_model(), "the prompt's model")
    eq("Gemini: gemini-3.8-flash", gemini.statusline(), "statusline after the answer")
  end)

  it("shows where an alias was routed", function()
    gemini.state.model = { current = "auto", name = "Auto" }
    eq("Gemini: Auto", gemini.statusline(), "before an answer")
    gemini.state.model.answered = "gemini-3.8-flash"
    eq("Gemini: Auto → gemini-3.8-flash", gemini.statusline(), "after an answer")
  end)
end)
