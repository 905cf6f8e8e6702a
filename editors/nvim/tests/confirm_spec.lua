-- script: confirm.json
-- A shell command is confirmed with vim.ui.select, offering "Always allow"
-- only where the server says it would hold: not for a command that writes
-- to a file; and "Always allow git status …", the line's prefix, where the
-- server offers it, after which a line of that prefix is not asked about.
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })

describe("shell confirmation", function()
  it("offers Always allow only where it holds", function()
    vim.cmd("edit notes.txt")
    local offered = {}
    vim.ui.select = function(items, _, cb)
      table.insert(offered, table.concat(items, ","))
      local pick = #items == 4 and 3 or 1 -- the prefix, where offered
      vim.defer_fn(function() cb(items[pick], pick) end, 10)
    end
    local done
    gemini.prompt("run them", nil, function(err, result)
      done = { err = err, result = result }
    end)
    wait_for("the prompt to end", function() return done ~= nil end, 15000)
    eq(nil, done.err, "error")
    eq("Allow once,Reject | Allow once,Always allow,Reject | Allow once,Always allow,Always allow git status …,Reject",
      table.concat(offered, " | "), "choices offered (git status --short not asked about)")
  end)
end)
