-- script: usage.json
-- The chat window's status line says what the session has cost: its
-- tokens, those the model's context cache served, and how full the
-- model's context window was at the last request (gemini-2.5-pro's is
-- 1,048,576 tokens, of which the answer's 52,000 are 5%). A narrower
-- window drops the usage first: the model, the mode and the keys stay.
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })

-- The chat's status line as a chat window width columns wide shows it.
local function chat_statusline(width)
  width = width or 160
  vim.o.columns = 220
  local win = gemini.chat.show()
  vim.api.nvim_win_set_width(win, width)
  eq(width, vim.api.nvim_win_get_width(win), "the chat window's width")
  return vim.api.nvim_eval_statusline(vim.wo[win].statusline, { winid = win, maxwidth = width }).str
end

local keys = "<CR> prompt · <C%-c> cancel · q close $"

-- Stops gemini-ls and forgets the plugin's session, chat and figures, as
-- a new Neovim would start.
local function restart()
  local old = gemini.client_id
  vim.lsp.stop_client(old, true)
  wait_for("gemini-ls to stop", function() return vim.lsp.get_client_by_id(old) == nil end)
  gemini.state.session_id = nil
  local usage = require("gemini.usage")
  usage.sessions, usage.last = {}, nil
  vim.api.nvim_buf_delete(gemini.chat.buf, { force = true })
  gemini.chat.buf = nil
  gemini.attach(0)
  assert(gemini.client_id ~= old, "the same client after the restart")
end

describe("the session's usage", function()
  it("shows tokens, cached tokens and context fill after an answer", function()
    vim.cmd("edit notes.txt")
    wait_for("the model in the statusline", function() return chat_statusline():find("gemini-2.5-pro", 1, true) ~= nil end)
    assert(not chat_statusline():find("tok", 1, true), "tokens before any answer: " .. chat_statusline())
    local done
    gemini.prompt("count", nil, function(err, result)
      done = { err = err, result = result }
    end)
    wait_for("the prompt to end", function() return done ~= nil end, 15000)
    eq(nil, done.err, "error")
    local line = chat_statusline()
    assert(line:find("^Gemini · gemini%-2%.5%-pro · manual · 52k tok · 40k cached · 5%% ctx +" .. keys), line)
  end)

  it("drops the usage first in a narrow window, and keeps the model, the mode and the keys", function()
    -- 79 columns: half a 160-column terminal, as screenshots.sh's chat.
    local line = chat_statusline(79)
    assert(line:find("^Gemini · gemini%-2%.5%-pro · manual +" .. keys), line)
    -- Narrower still, the "Gemini" label goes before the model or the mode.
    line = chat_statusline(65)
    assert(line:find("^gemini%-2%.5%-pro · manual +" .. keys), line)
  end)

  it("measures a global status line (laststatus=3) by the screen, not by the chat window", function()
    vim.o.laststatus = 3
    vim.o.columns = 220
    local win = gemini.chat.show()
    vim.api.nvim_win_set_width(win, 79)
    local line = vim.api.nvim_eval_statusline(vim.wo[win].statusline, { winid = win, maxwidth = 220 }).str
    vim.o.laststatus = 2
    assert(line:find("^Gemini · gemini%-2%.5%-pro · manual · 52k tok · 40k cached · 5%% ctx +" .. keys), line)
  end)

  it("fits the segments lualine's way: the lowest drop rank goes first, unranked ones stay", function()
    local chat = gemini.chat
    local segments = {
      { text = "Gemini", drop = 3 },
      { text = "model" },
      { text = "mode" },
      { text = "52k tok · 40k cached · 5% ctx", drop = 1 },
      { text = "working…", drop = 2 },
    }
    local function fitted(width)
      return chat.join(chat.fit(segments, "keys", width))
    end
    eq("Gemini · model · mode · 52k tok · 40k cached · 5% ctx · working…", fitted(200), "room for all")
    eq("Gemini · model · mode · working…", fitted(40), "the usage first")
    eq("Gemini · model · mode", fitted(30), "then what Gemini is doing")
    eq("model · mode", fitted(19), "then the label")
    eq("model · mode", fitted(5), "never the model or the mode")
  end)

  it("writes counts as people read them", function()
    local usage = require("gemini.usage")
    eq("950", usage.short(950), "under a thousand")
    eq("12.3k", usage.short(12345), "thousands")
    eq("1.05M", usage.short(1048576), "millions")
    eq("2M", usage.short(2000000), "round millions")
  end)

  it("shows a resumed session's figures at once, before its next answer", function()
    local session = gemini.state.session_id
    assert(session, "no session to resume")
    restart()
    assert(not chat_statusline():find("tok", 1, true), "tokens before the resume: " .. chat_statusline())
    local done
    gemini.resume(session, nil, function(err)
      done = { err = err }
    end)
    wait_for("the resume", function() return done ~= nil end)
    eq(nil, done.err, "error")
    local line = chat_statusline()
    assert(line:find("^Gemini · gemini%-2%.5%-pro · manual · 52k tok · 40k cached · 5%% ctx +" .. keys), line)
  end)

  it("keeps the figures it has when a resume's answer has none, as an older server's", function()
    local session = gemini.state.session_id
    gemini.resumed(session, nil, nil, { session = { sessionId = session }, exchanges = {}, mode = "default" })
    local line = chat_statusline()
    assert(line:find("^Gemini · gemini%-2%.5%-pro · manual · 52k tok · 40k cached · 5%% ctx +" .. keys), line)
  end)

  it("shows the server's figures for the session after a rewind, whatever Neovim held: its tokens, and no fill until it answers", function()
    local usage = require("gemini.usage")
    usage.sessions[gemini.state.session_id] = { total = 7, cached = 0, used = 0, size = 0 }
    vim.ui.select = function(items, opts, cb)
      if opts.prompt == "Rewind to before" then
        return cb(items[1], 1)
      end
      for i, m in ipairs(items) do
        if m.mode == "conversation" then
          return cb(m, i)
        end
      end
    end
    local done
    gemini.rewind(function(err)
      done = { err = err }
    end)
    wait_for("the rewind", function() return done ~= nil end)
    eq(nil, done.err, "error")
    local line = chat_statusline()
    -- The window's fill went with the prompts rewound.
    assert(line:find("^Gemini · gemini%-2%.5%-pro · manual · 52k tok · 40k cached +" .. keys), line)
  end)
end)
