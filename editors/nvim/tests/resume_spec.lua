-- script: resume.json
-- A session outlives the server: after a restart (as after quitting
-- Neovim) :GeminiSessions lists the saved session, continuing it shows the
-- earlier conversation, and the next prompt goes on with it.
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })

local function chat_text()
  return table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
end

local function has(haystack, needle, what)
  if not haystack:find(needle, 1, true) then
    error(string.format("%s: %q not in:\n%s", what, needle, haystack), 2)
  end
end

-- The contents of the last request that reached the model, as "role: text"
-- with each content's last text (the editor context comes before the prompt).
local function last_contents()
  local f = assert(io.open(os.getenv("GEMINI_REQUESTS")))
  local last
  for line in f:lines() do
    last = vim.json.decode(line)
  end
  f:close()
  local out = {}
  for _, c in ipairs(last.body.contents) do
    local text = ""
    for _, p in ipairs(c.parts) do
      text = p.text or text
    end
    table.insert(out, c.role .. ": " .. text)
  end
  return out
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

-- Stops gemini-ls and forgets the plugin's session and chat, as a new
-- Neovim would start.
local function restart()
  local old = gemini.client_id
  vim.lsp.stop_client(old, true)
  wait_for("gemini-ls to stop", function() return vim.lsp.get_client_by_id(old) == nil end)
  gemini.state.session_id = nil
  vim.api.nvim_buf_delete(gemini.chat.buf, { force = true })
  gemini.chat.buf = nil
  gemini.attach(0)
  assert(gemini.client_id ~= old, "the same client after the restart")
end

describe("resume", function()
  local first
  it("continues a session saved by an earlier gemini-ls, showing its conversation", function()
    vim.cmd("edit notes.txt")
    first = prompt("remember 42")
    eq("end_turn", first.stopReason, "first stopReason")
    restart()

    local offered, labels
    vim.ui.select = function(items, opts, cb)
      offered, labels = items, {}
      for _, s in ipairs(items) do
        table.insert(labels, opts.format_item(s))
      end
      cb(items[1], 1)
    end
    vim.cmd("GeminiSessions")
    wait_for("the sessions list", function() return offered ~= nil end)
    eq(1, #offered, "sessions offered")
    eq(first.sessionId, offered[1].sessionId, "session offered")
    eq("remember 42 (1 prompt, just now, saved)", labels[1], "label")
    wait_for("the earlier conversation", function()
      return gemini.chat.buf and chat_text():find("noted: 42", 1, true) ~= nil
    end)
    local text = chat_text()
    has(text, "_(continuing: remember 42)_", "chat")
    has(text, "## Prompt\n\nremember 42\n\n## Gemini\n\nnoted: 42", "chat")
    eq(first.sessionId, gemini.state.session_id, "session continued")
  end)

  it("sends the next prompt to the resumed session, which the model sees whole", function()
    local res = prompt("what was it?")
    eq("end_turn", res.stopReason, "stopReason")
    eq(first.sessionId, res.sessionId, "session")
    eq({ "user: remember 42", "model: noted: 42", "user: what was it?" }, last_contents(), "the model's request")
    local text = chat_text()
    has(text, "it was 42", "answer")
    -- The fake answered 429 first: the wait shows as a status line.
    has(text, "> The model is rate-limited (429 RESOURCE_EXHAUSTED); retrying in 0.1 s (attempt 1)", "retry")
  end)

  it("says plainly when the session to continue is unknown", function()
    local done
    gemini.resume("NOSUCHSESSION", nil, function(err)
      done = { err = err }
    end)
    wait_for("the answer", function() return done ~= nil end)
    has(chat_text(), 'Error: could not continue the session: ', "chat")
    has(chat_text(), 'unknown session "NOSUCHSESSION"', "chat")
    eq(first.sessionId, gemini.state.session_id, "session kept")
  end)

  it("tells when a session was last used", function()
    local now = os.time({ year = 2026, month = 11, day = 22, hour = 12, min = 0, sec = 0 })
    local function iso(t) return os.date("!%Y-%m-%dT%H:%M:%S.123Z", t) end
    eq("just now", gemini.ago(iso(now - 5), now), "5 s")
    eq("5 min ago", gemini.ago(iso(now - 300), now), "5 min")
    eq("3 h ago", gemini.ago(iso(now - 3 * 3600), now), "3 h")
    eq("yesterday", gemini.ago(iso(now - 30 * 3600), now), "30 h")
    eq("4 days ago", gemini.ago(iso(now - 4 * 86400), now), "4 days")
    eq(os.date("%Y-%m-%d", now - 30 * 86400), gemini.ago(iso(now - 30 * 86400), now), "a month")
    eq("2 h ago", gemini.ago(os.date("!%Y-%m-%dT%H:%M:%S+01:00", now - 3600), now), "an offset")
  end)

  it("shows notices, compressions and a detected loop", function()
    gemini.chat.update({ kind = "notice", message = "Switched to gemini-2.5-flash" })
    gemini.chat.update({ kind = "compressed", tokensBefore = 9000, tokensAfter = 2000 })
    local text = chat_text()
    has(text, "> Note: Switched to gemini-2.5-flash", "notice")
    has(text, "> Note: the conversation was compressed (9000 → 2000 tokens)", "compressed")
    has(gemini.chat.stop_note("loop_detected"), "a loop was detected", "loop")
  end)

  it("shows a topic: its title, the summary of a new topic, and the intent", function()
    gemini.chat.update({ kind = "topic", title = "Serving files", intent = "Start the server and check it serves.", newTopic = true, text = "Start a web server." })
    gemini.chat.update({ kind = "topic", title = "Serving files", intent = "Check the port.", newTopic = false, text = "not a new topic" })
    local text = chat_text()
    has(text, "> Topic: Serving files — Start a web server.\n> Start the server and check it serves.", "new topic")
    has(text, "> Topic: Serving files\n> Check the port.", "same topic")
  end)
end)
