-- A tiny describe/it runner for headless Neovim. Each spec file runs in its
-- own Neovim; results are appended to $GEMINI_TEST_RESULTS as
-- "pass <name>" / "fail <name>: <error>" lines.
local R = { passed = 0, failed = 0, prefix = {} }

function describe(name, fn)
  table.insert(R.prefix, name)
  fn()
  table.remove(R.prefix)
end

local function record(line)
  print(line)
  local path = os.getenv("GEMINI_TEST_RESULTS")
  if path then
    local f = io.open(path, "a")
    f:write(line, "\n")
    f:close()
  end
end

function it(name, fn)
  local full = table.concat(R.prefix, " ") .. " " .. name
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    R.passed = R.passed + 1
    record("pass " .. full)
  else
    R.failed = R.failed + 1
    record("fail " .. full .. ": " .. tostring(err):gsub("\n", "\n    "))
  end
end

function eq(want, got, what)
  if not vim.deep_equal(want, got) then
    error(string.format("%s: want %s, got %s", what or "value", vim.inspect(want), vim.inspect(got)), 2)
  end
end

function wait_for(what, cond, ms)
  if not vim.wait(ms or 10000, cond, 20) then
    error("timed out waiting for " .. what, 2)
  end
end

function read_file(path)
  local f = assert(io.open(path))
  local s = f:read("*a")
  f:close()
  return s
end

-- finish stops the language servers and waits for them to be gone
-- before quitting. Quitting with one still running, Neovim can write to
-- its closed pipe after it stopped handling SIGPIPE, and die of it
-- (status 141, once in Neovim 0.10, after every result was in).
function R.finish()
  local clients = vim.lsp.get_clients or vim.lsp.get_active_clients
  vim.lsp.stop_client(clients())
  vim.wait(5000, function()
    return #clients() == 0
  end, 20)
  vim.cmd((R.failed == 0) and "qall!" or "cquit!")
end

return R
