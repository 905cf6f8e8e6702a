-- script: auto_edit.json
-- In approval mode auto_edit a change lands without a review, and is saved
-- before the shell command the agent runs next.
local gemini = require("gemini")
-- As in Gemini CLI, a folder the user has not trusted runs in the default
-- mode whatever is asked: trust it, as Gemini CLI's CI guidance does.
vim.env.GEMINI_CLI_TRUST_WORKSPACE = "true"
gemini.setup({ cmd = { os.getenv("GEMINI_LS") }, approval_mode = "auto_edit" })

describe("auto_edit", function()
  it("applies the change without a review and saves it before the next command", function()
    vim.cmd("edit numbers.txt")
    vim.ui.select = function(items, _, cb)
      vim.defer_fn(function() cb(items[1], 1) end, 10)
    end
    local done
    gemini.prompt("change six", gemini.context(0), function(err, result)
      done = { err = err, result = result }
    end)
    wait_for("the prompt to end", function() return done ~= nil end, 15000)
    eq(nil, done.err, "error")
    eq(nil, gemini.review.current, "review")
    eq(1, #vim.api.nvim_list_tabpages(), "tabs")
    eq("SIX", vim.api.nvim_buf_get_lines(0, 5, 6, false)[1], "buffer")
    eq(false, vim.bo.modified, "buffer saved")
    eq("one\ntwo\nthree\nfour\nfive\nSIX\nseven\neight\nnine\nten\n", read_file("numbers.txt"), "disk")
    eq("1\n", read_file("count.txt"), "what the shell command saw")
  end)
end)
