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
  it("rewinds conversation and code to before the first prompt", function()
    vim.cmd("edit numbers.txt")
    prompt("change two")
    prompt("change three")
    eq("one\nTWO\nTHREE\nfour\nfive\nsix\nseven\neight\nnine\nten\n", read_file("numbers.txt"), "after two prompts")

    local offered, modes
    vim.ui.select = function(items, opts, cb)
      local labels = {}
      for _, it in ipairs(items) do
        table.insert(labels, opts.format_item(it))
      end
      if opts.prompt == "Rewind to before" then
        offered = labels
        cb(items[1], 1)
      else
        modes = labels
        cb(items[1], 1) -- Conversation and code
      end
    end
    local done
    gemini.rewind(function(err, result)
      done = { err = err, result = result }
    end)
    wait_for("the revert's review", function() return review.current ~= nil end)
    eq({ "1. change two  [numbers.txt]", "2. change three  [numbers.txt]" }, offered, "prompts offered")
    eq({ "Conversation and code", "Conversation only", "Code only" }, modes, "modes offered")
    eq("one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n", table.concat(vim.api.nvim_buf_get_lines(review.current.buf, 0, -1, false), "\n") .. "\n", "the revert proposed")
    review.accept()
    wait_for("the rewind", function() return done ~= nil end)
    eq(nil, done.err, "error")
    eq(2, done.result.removed, "prompts removed")
    eq("one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n", read_file("numbers.txt"), "file restored")
    local chat = table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
    assert(not chat:find("change two", 1, true), "the chat still shows the rewound prompt:\n" .. chat)
    assert(chat:find("reverted", 1, true), chat)

    prompt("start over")
    eq({ "user: start over" }, vim.tbl_filter(function(l) return not l:find("^user: Here is the user.s editor context") end, last_contents()), "the model's request")
  end)
end)
