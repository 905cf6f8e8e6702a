-- script: rewind.json
-- :GeminiRewind lists the session's prompts with the files each changed;
-- rewinding both to before the first restores the file once the revert is
-- accepted, and the model no longer sees the rewound prompts.
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })
local review = gemini.review

local function prompt(text)
  local done
  gemini.prompt(text, nil, function(err, result)
    done = { err = err, result = result }
  end)
  wait_for("the review", function() return review.current ~= nil or done ~= nil end, 15000)
  if review.current then
    review.accept()
  end
  wait_for("the prompt to end", function() return done ~= nil end, 15000)
  eq(nil, done.err, "error")
end

local function last_contents()
  local f = assert(io.open(os.getenv("GEMINI_REQUESTS")))
  local last
  for line in f:lines() do
    last = vim.json.decode(line)
  end
  f:close()
  local out = {}
  for _, c in ipairs(last.body.contents) do
    for _, p in ipairs(c.parts) do
      if p.text then
        table.insert(out, c.role .. ": " .. p.text)
      end
    end
  end
  return out
end

describe("rewind", function()
  it("rewinds conversation and code to before a prompt, reviewing each file's revert", function()
    vim.cmd("edit numbers.txt")
    prompt("change two")
    prompt("change three")
    prompt("change the note")
    eq("one\nTWO\nTHREE\nfour\nfive\nsix\nseven\neight\nnine\nten\n", read_file("numbers.txt"), "numbers after three prompts")
    eq("a DONE here\n", read_file("notes.txt"), "notes after three prompts")

    local offered, modes
    vim.ui.select = function(items, opts, cb)
      local labels = {}
      for _, it in ipairs(items) do
        table.insert(labels, opts.format_item(it))
      end
      if opts.prompt == "Rewind to before" then
        offered = labels
        cb(items[2], 2)
      else
        modes = labels
        cb(items[1], 1) -- Conversation and code
      end
    end
    local done
    gemini.rewind(function(err, result)
      done = { err = err, result = result }
    end)
    wait_for("the first file's review", function() return review.current ~= nil end)
    eq({ "change two  [numbers.txt]", "change three  [numbers.txt]", "change the note  [notes.txt]" }, offered, "prompts offered")
    eq({ "Conversation and code", "Conversation only", "Code only" }, modes, "modes offered")
    local reviewed = {}
    for i = 1, 2 do
      wait_for("review " .. i, function() return review.current ~= nil end)
      local r = review.current
      table.insert(reviewed, vim.fn.fnamemodify(r.path, ":t") .. ": " .. r.label)
      review.accept()
    end
    table.sort(reviewed)
    eq({
      "notes.txt: Gemini: Revert the agent's changes since prompt 2 (2 files) (file 2 of 2)",
      "numbers.txt: Gemini: Revert the agent's changes since prompt 2 (2 files) (file 1 of 2)",
    }, reviewed, "reviews")
    wait_for("the rewind", function() return done ~= nil end)
    eq(nil, done.err, "error")
    eq(2, done.result.removed, "prompts removed")
    eq("one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n", read_file("numbers.txt"), "numbers restored to after prompt 1")
    eq("a TODO here\n", read_file("notes.txt"), "notes restored")
    local chat = table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
    assert(chat:find("_(rewound to before prompt 2)_\n\n## Prompt\n\nchange two\n", 1, true), chat)
    assert(not chat:find("change three", 1, true), "the chat still shows a rewound prompt:\n" .. chat)
    assert(chat:find("reverted", 1, true), chat)

    prompt("start over")
    -- The prompts, less what goes with them: the editor's context, and
    -- the session's (<session_context>, as Gemini CLI 0.61 sends first).
    local users = vim.tbl_filter(function(l)
      return l:find("^user: ") and not l:find("^user: Here is the user.s editor context")
        and not l:find("^user: <session_context>")
    end, last_contents())
    eq({ "user: change two", "user: start over" }, users, "the model's request")
  end)

  it("deletes a file the agent created once its deletion is accepted, and keeps it when rejected", function()
    prompt("make a file")
    local path = vim.fn.fnamemodify("made.txt", ":p")
    eq("made by the agent\n", read_file("made.txt"), "the file the agent made")

    local function rewind(mode)
      vim.ui.select = function(items, opts, cb)
        if opts.prompt == "Rewind to before" then
          cb(items[3], 3)
        else
          for i, it in ipairs(items) do
            if opts.format_item(it) == mode then
              return cb(it, i)
            end
          end
        end
      end
      local done
      gemini.rewind(function(err, result)
        done = { err = err, result = result }
      end)
      wait_for("the deletion's review", function() return review.current ~= nil or done ~= nil end)
      local r = review.current
      eq("delete", r and r.kind, "the review's kind")
      eq("Gemini: Revert the agent's changes since prompt 3 (1 file): delete made.txt", r.label, "the review's label")
      eq({ "made by the agent" }, vim.api.nvim_buf_get_lines(r.orig, 0, -1, false), "the text to be deleted")
      return r, function()
        wait_for("the rewind", function() return done ~= nil end)
        eq(nil, done.err, "error")
        return done.result
      end
    end

    local _, result = rewind("Code only")
    review.reject()
    local files = result().files
    eq(1, #files, "files")
    eq("not_reverted", files[1].outcome, "outcome when rejected")
    eq("made by the agent\n", read_file("made.txt"), "the file kept")

    _, result = rewind("Conversation and code")
    review.accept()
    files = result().files
    eq("reverted", files[1].outcome, "outcome when accepted")
    eq(nil, vim.loop.fs_stat(path), "made.txt still exists")
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      assert(vim.api.nvim_buf_get_name(b) ~= path, "made.txt's buffer is still there")
    end
  end)

  it("asks about a file the user changed since the agent did: kept, it is a conflict; reverted anyway, it is restored", function()
    prompt("change four")
    local before = "one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"
    local mine = "one\nTWO\nthree\nFOUR\nfive\nsix\nseven\neight\nnine\nten\nmine\n"
    vim.cmd("edit numbers.txt")
    vim.api.nvim_buf_set_lines(0, -1, -1, false, { "mine" })
    vim.cmd("write")
    eq(mine, read_file("numbers.txt"), "numbers.txt with the user's line")

    local function rewind(answer)
      local conflict
      vim.ui.select = function(items, opts, cb)
        local labels = {}
        for _, it in ipairs(items) do
          table.insert(labels, opts.format_item and opts.format_item(it) or it)
        end
        if opts.prompt == "Rewind to before" then
          return cb(items[3], 3)
        end
        for i, l in ipairs(labels) do
          if l == "Code only" or l == answer then
            if l == answer then
              conflict = { prompt = opts.prompt, labels = labels }
            end
            return cb(items[i], i)
          end
        end
        cb(nil, nil)
      end
      local done
      gemini.rewind(function(err, result)
        done = { err = err, result = result }
      end)
      return function()
        wait_for("the rewind", function() return done ~= nil end)
        eq(nil, done.err, "error")
        assert(conflict, "the conflict was not asked about")
        assert(conflict.prompt:find("Revert " .. vim.fn.fnamemodify("numbers.txt", ":p") .. " anyway?", 1, true), conflict.prompt)
        eq({ "Revert anyway", "Keep my changes" }, conflict.labels, "the conflict's choices")
        return done.result
      end
    end

    local files = rewind("Keep my changes")().files
    eq("conflict", files[1].outcome, "outcome when kept")
    eq(mine, read_file("numbers.txt"), "numbers.txt as the user left it")

    local result = rewind("Revert anyway")
    wait_for("the revert's review", function() return review.current ~= nil end)
    review.accept()
    eq("reverted", result().files[1].outcome, "outcome when reverted anyway")
    eq(before, read_file("numbers.txt"), "numbers.txt restored")
  end)
end)
