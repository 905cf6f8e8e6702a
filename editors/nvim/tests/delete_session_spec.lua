-- script: delete_session.json
-- :GeminiSessions delete deletes the session the user picks once they
-- confirm (gemini/deleteSession): it is gone from the list, also after a
-- restart; declining deletes nothing; deleting the chat's session starts
-- a new one, as VS Code's Show Sessions does.
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })

local function chat_text()
  return table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
end

local function prompt(text)
  local done
  gemini.prompt(text, nil, function(err, result)
    done = { err = err, result = result }
  end)
  wait_for("the prompt to end", function() return done ~= nil end, 15000)
  eq(nil, done.err, "error")
  return done.result
end

-- What vim.ui.select offered (titled what), as the rows' labels; picks the
-- row whose label starts with pick, or none.
local offered
local function pick_row(pick)
  offered = nil
  vim.ui.select = function(items, opts, cb)
    offered = { prompt = opts.prompt, labels = {} }
    local choice
    for _, s in ipairs(items) do
      local label = opts.format_item(s)
      table.insert(offered.labels, label)
      if pick and vim.startswith(label, pick) then
        choice = s
      end
    end
    cb(choice)
  end
end

-- The confirmation's question, and answer (1: Delete, 2: Cancel).
local asked
local function answer_confirm(answer)
  asked = nil
  vim.fn.confirm = function(msg, choices, default)
    asked = { msg = msg, choices = choices, default = default }
    return answer
  end
end

local notes = {}
vim.notify = function(msg, level)
  table.insert(notes, { msg = msg, level = level })
end

-- The labels :GeminiSessions offers now.
local function listed()
  pick_row(nil)
  vim.cmd("GeminiSessions")
  wait_for("the sessions list", function() return offered ~= nil end)
  return offered.labels
end

-- Runs :GeminiSessions delete, picking the row starting with pick and
-- answering the confirmation with answer; returns what the user was told
-- (once told, when answer is Delete).
local function delete(pick, answer)
  pick_row(pick)
  answer_confirm(answer)
  notes = {}
  vim.cmd("GeminiSessions delete")
  wait_for("the confirmation", function() return asked ~= nil end)
  if answer == 1 then
    wait_for("the deletion", function() return #notes > 0 end)
  end
  return notes
end

describe("delete session", function()
  local first, second
  it("completes delete after :GeminiSessions", function()
    eq({ "delete" }, vim.fn.getcompletion("GeminiSessions ", "cmdline"), ":GeminiSessions ")
    eq({ "delete" }, vim.fn.getcompletion("GeminiSessions de", "cmdline"), ":GeminiSessions de")
    eq({}, vim.fn.getcompletion("GeminiSessions x", "cmdline"), ":GeminiSessions x")
  end)

  it("deletes nothing when the confirmation is declined", function()
    vim.cmd("edit notes.txt")
    first = prompt("first topic").sessionId
    gemini.new_session()
    second = prompt("second topic").sessionId
    assert(first ~= second, "one session")

    eq({}, delete("first topic", 2), "told")
    eq("Delete a Gemini session", offered.prompt, "picker")
    eq("Delete the session “first topic”?\nIts conversation and its saved file are deleted for good.", asked.msg, "question")
    eq("&Delete\n&Cancel", asked.choices, "choices")
    eq(2, asked.default, "Cancel is the default")
    eq({ "second topic (1 prompt, just now)", "first topic (1 prompt, just now)" }, listed(), "sessions")
  end)

  it("deletes a saved session once confirmed: it leaves the list, also after a restart", function()
    -- Restart: both sessions are now saved ones, not live in the server.
    local old = gemini.client_id
    vim.lsp.stop_client(old, true)
    wait_for("gemini-ls to stop", function() return vim.lsp.get_client_by_id(old) == nil end)
    gemini.attach(0)
    eq({ "second topic (1 prompt, just now, saved)", "first topic (1 prompt, just now, saved)" }, listed(), "before")

    eq({ { msg = "Gemini: deleted the session “first topic”" } }, delete("first topic", 1), "told")
    eq({ "second topic (1 prompt, just now, saved)" }, listed(), "after")
    eq(second, gemini.state.session_id, "the chat's session stays")
    assert(chat_text():find("noted: second", 1, true), chat_text())

    old = gemini.client_id
    vim.lsp.stop_client(old, true)
    wait_for("gemini-ls to stop", function() return vim.lsp.get_client_by_id(old) == nil end)
    gemini.attach(0)
    eq({ "second topic (1 prompt, just now, saved)" }, listed(), "after a restart")
  end)

  it("starts a new session when the chat's own session is deleted", function()
    eq(second, gemini.state.session_id, "the chat's session")
    eq({ { msg = "Gemini: deleted the session “second topic”" } }, delete("second topic", 1), "told")
    eq(nil, gemini.state.session_id, "a new session")
    eq("", vim.trim(chat_text()), "an empty chat")
    notes = {}
    pick_row(nil)
    vim.cmd("GeminiSessions")
    wait_for("the answer", function() return #notes > 0 end)
    eq("Gemini: no sessions yet", notes[1].msg, "none left")
  end)

  it("says why a session could not be deleted", function()
    answer_confirm(1)
    notes = {}
    gemini.delete_picked_session(gemini.client(), { sessionId = "NOSUCHSESSION", title = "gone" })
    wait_for("the answer", function() return #notes > 0 end)
    eq(1, #notes, "told once")
    eq(vim.log.levels.ERROR, notes[1].level, "an error")
    assert(notes[1].msg:find('Gemini: could not delete the session “gone”: ', 1, true), notes[1].msg)
    assert(notes[1].msg:find('unknown session "NOSUCHSESSION"', 1, true), notes[1].msg)
  end)
end)
