-- script: errorkind.json
-- A failed prompt's fixes are chosen from its kind (errorKind), never its
-- words: the chat names :GeminiFixError and what it offers, and
-- :GeminiFixError offers them with vim.ui.select. An invalid key, a day's
-- quota used up and a connection the model drops, each from the real
-- server against the fake.
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") }, model = "gemini-2.5-flash" })

local function chat_text()
  return table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
end

local function prompt(text)
  local done
  gemini.prompt(text, nil, function(err, result)
    done = { err = err, result = result }
  end)
  wait_for("the prompt to end", function() return done ~= nil end, 30000)
  return done
end

-- offered runs :GeminiFixError with vim.ui.select stubbed: the labels it
-- offered, and a function that chooses one of them.
local function offered()
  local items, on_choice
  local select = vim.ui.select
  vim.ui.select = function(list, opts, cb)
    items, on_choice = list, cb
  end
  vim.cmd("GeminiFixError")
  vim.ui.select = select
  local labels = vim.tbl_map(function(f) return f.label end, items or {})
  return labels, function(label)
    for _, f in ipairs(items) do
      if f.label == label then
        return on_choice(f)
      end
    end
    error("no fix " .. label)
  end
end

describe("a failed prompt's fixes", function()
  it("offers to sign in for a key the API refuses", function()
    vim.cmd("edit notes.txt")
    local done = prompt("hello")
    eq("invalid_api_key", done.result and done.result.errorKind, "the result's kind")
    eq("invalid_api_key", gemini.state.error_kind, "the kind kept")
    assert(chat_text():find("> :GeminiFixError offers: Sign in with Google (:GeminiLogin)", 1, true), chat_text())
    local labels = offered()
    eq({ "Sign in with Google (:GeminiLogin)" }, labels, "fixes of an invalid key")
  end)

  it("offers another model, the quota page and a retry for a quota used up", function()
    local done = prompt("hello again")
    eq("quota", done.result and done.result.errorKind, "the result's kind")
    local labels = offered()
    eq({ "Switch model (:Gemini /model)", "Open the quota page (https://aistudio.google.com/usage)", "Retry the prompt" }, labels, "fixes of a quota")
  end)

  it("offers a retry for a dropped connection, and the retry sends the prompt again", function()
    local done = prompt("once more")
    eq("network", done.result and done.result.errorKind, "the result's kind")
    assert(chat_text():find("> :GeminiFixError offers: Retry the prompt", 1, true), chat_text())
    local labels, choose = offered()
    eq({ "Retry the prompt" }, labels, "fixes of a dropped connection")
    choose("Retry the prompt")
    wait_for("the retried prompt's answer", function() return chat_text():find("Back online.", 1, true) ~= nil end, 30000)
    wait_for("the retried prompt to end", function() return not gemini.state.prompt_running end)
    eq(nil, gemini.state.error_kind, "the kind after a prompt that did not fail")
  end)
end)
