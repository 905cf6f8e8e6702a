-- script: ask.json
-- The model's ask_user questions are answered with vim.ui.select (and
-- vim.ui.input for the user's own words); the answer, or the dismissal,
-- is what the model's next request carries.
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })

-- The outputs of the tool calls the last request to the model answered.
local function tool_outputs()
  local f = assert(io.open(os.getenv("GEMINI_REQUESTS")))
  local last
  for line in f:lines() do
    last = vim.json.decode(line)
  end
  f:close()
  local contents = last.body.contents
  local out = {}
  for _, p in ipairs(contents[#contents].parts) do
    if p.functionResponse then
      table.insert(out, p.functionResponse.response.output or ("error: " .. tostring(p.functionResponse.response.error)))
    end
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
  eq("end_turn", done.result.stopReason, "stopReason")
end

-- Answers each vim.ui.select with pick(labels, prompt), which names the
-- label to choose (nil: Esc), and each vim.ui.input with input.
local function chat_text()
  return table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
end

-- How many times plain text occurs in s.
local function count(s, text)
  local n, at = 0, 1
  while true do
    local i = s:find(text, at, true)
    if not i then
      return n
    end
    n, at = n + 1, i + #text
  end
end

local function answering(pick, input)
  local asked = {}
  vim.ui.select = function(items, opts, cb)
    local labels = {}
    for _, it in ipairs(items) do
      table.insert(labels, opts.format_item(it))
    end
    table.insert(asked, { prompt = opts.prompt, labels = labels })
    local want = pick(labels, opts.prompt)
    for i, l in ipairs(labels) do
      if l == want then
        return cb(items[i], i)
      end
    end
    cb(nil, nil)
  end
  vim.ui.input = function(_, cb)
    cb(input)
  end
  return asked
end

describe("ask_user", function()
  it("declares ask", function()
    vim.cmd("edit notes.txt")
    local client = gemini.attach(0)
    eq(true, client.config.capabilities.experimental.gemini.ask, "experimental.gemini.ask")
  end)

  it("sends the option picked to the model", function()
    local asked = answering(function() return "SQLite — One file." end)
    prompt("pick a database")
    eq(1, #asked, "questions")
    eq("Database: Which database?", asked[1].prompt, "prompt")
    eq({ "PostgreSQL — Relational.", "SQLite — One file.", "Redis", "Other… (answer in your own words)", "Decline" }, asked[1].labels, "choices")
    eq({ '{"answers":{"0":"SQLite"}}' }, tool_outputs(), "the model's next request")
    -- The chat shows the question once, as the line of the call that
    -- asks it, and the answer after it.
    local text = chat_text()
    eq(1, count(text, "Which database?"), "the question's times in the chat:\n" .. text)
    assert(text:find("- ✓ Asking user: Which database? (ok)\n  Database → SQLite\n", 1, true), text)
  end)

  it("ticks several options and adds the user's words", function()
    local picks = { "[ ] PostgreSQL — Relational.", "[ ] Redis", "Other… (add your own words)", "Done" }
    local n = 0
    local asked = answering(function()
      n = n + 1
      return picks[n]
    end, "and a cache")
    prompt("set up storage")
    eq(4, #asked, "selects")
    eq({ "[x] PostgreSQL — Relational.", "[ ] SQLite — One file.", "[x] Redis", "Done", "Other: and a cache", "Decline" }, asked[4].labels, "the last select")
    eq({ '{"answers":{"0":"PostgreSQL, Redis, and a cache"}}' }, tool_outputs(), "the model's next request")
    assert(chat_text():find("→ PostgreSQL, Redis, and a cache\n", 1, true), chat_text())
  end)

  it("tells the model the user declined", function()
    answering(function() return "Decline" end)
    prompt("pick again")
    eq({ "User dismissed ask_user dialog without answering." }, tool_outputs(), "the model's next request")
    assert(chat_text():find("- ✓ Asking user: Which database? (ok)\n  Database → (declined)\n", 1, true), chat_text())
  end)

  it("tells the model the user answered nothing when Done comes with nothing ticked, not that they declined", function()
    local asked = answering(function() return "Done" end)
    prompt("any extras?")
    eq(1, #asked, "selects")
    eq({ "[ ] Metrics", "[ ] Tracing", "Done", "Other… (add your own words)", "Decline" }, asked[1].labels, "choices")
    eq({ '{"answers":{}}' }, tool_outputs(), "the model's next request")
  end)
end)
