-- :checkhealth gemini: finds the gemini-ls the plugin runs, then runs it
-- (its --version, then an LSP initialize) and says what is wrong, one line
-- each, so a binary that is there but broken is told apart from a missing one.
local M = {}

-- How long the server gets to answer each check: the first start of a
-- large static binary on a loaded machine can take a second or two.
M.timeout_ms = 10000

-- first_line is the first non-empty line of text, or "".
local function first_line(text)
  return vim.trim(text):match("^[^\n]*") or ""
end

-- run starts argv, writes input (or nothing) to it, and waits until it
-- exits, until done(stdout) is true, or until timeout_ms; it returns what
-- it wrote to stdout and stderr, its exit status (nil while it runs, then
-- it is stopped) and why it could not start.
local function run(argv, input, done)
  local out, err, code = {}, {}, nil
  local ok, job = pcall(vim.fn.jobstart, argv, {
    on_stdout = function(_, data) table.insert(out, table.concat(data, "\n")) end,
    on_stderr = function(_, data) table.insert(err, table.concat(data, "\n")) end,
    on_exit = function(_, c) code = c end,
  })
  if not ok or job <= 0 then
    return "", "", nil, ok and "it could not be started" or tostring(job)
  end
  if input then
    vim.fn.chansend(job, input)
  end
  vim.wait(M.timeout_ms, function()
    return code ~= nil or (done ~= nil and done(table.concat(out)))
  end, 20)
  if code == nil then
    vim.fn.jobstop(job)
  end
  return table.concat(out), table.concat(err), code
end

-- response is the JSON-RPC response of id 1 among the framed messages in
-- stdout, or nil while none has come whole.
local function response(stdout)
  local at = 1
  while true do
    local head_end = stdout:find("\r\n\r\n", at, true)
    if not head_end then
      return nil
    end
    local length = tonumber(stdout:sub(at, head_end):match("[Cc]ontent%-[Ll]ength: *(%d+)"))
    if not length then
      return nil
    end
    local body = stdout:sub(head_end + 4, head_end + 3 + length)
    if #body < length then
      return nil
    end
    local ok, msg = pcall(vim.fn.json_decode, body)
    if ok and type(msg) == "table" and msg.id == 1 then
      return msg
    end
    at = head_end + 4 + length
  end
end

-- failed says how a run that did not give what was wanted ended.
local function failed(stderr, code, why)
  if why then
    return why
  end
  if code == nil then
    return ("no answer within %d s"):format(M.timeout_ms / 1000)
  end
  local said = first_line(stderr)
  return ("it exited with status %d%s"):format(code, said ~= "" and (": " .. said) or " and said nothing")
end

--- The version line of `exe --version`, or nil and what went wrong.
function M.version(exe)
  local stdout, stderr, code, why = run({ exe, "--version" })
  if code == 0 and first_line(stdout) ~= "" then
    return first_line(stdout)
  end
  if code == 0 then
    return nil, "it printed no version"
  end
  return nil, failed(stderr, code, why)
end

--- The server's name and version from an initialize round-trip with argv
--- (the command the plugin runs), or nil and what went wrong.
function M.initialize(argv)
  local body = vim.fn.json_encode({
    jsonrpc = "2.0",
    id = 1,
    method = "initialize",
    params = { processId = vim.fn.getpid(), rootUri = vim.NIL, capabilities = vim.empty_dict() },
  })
  local stdout, stderr, code, why = run(argv, ("Content-Length: %d\r\n\r\n%s"):format(#body, body), function(out)
    return response(out) ~= nil
  end)
  local msg = response(stdout)
  if not msg then
    return nil, failed(stderr, code, why)
  end
  if type(msg.error) == "table" then
    return nil, "it answered with an error: " .. tostring(msg.error.message)
  end
  local info = type(msg.result) == "table" and msg.result.serverInfo or {}
  return vim.trim((info.name or "a server") .. " " .. (info.version or ""))
end

function M.check()
  local health = vim.health or require("health")
  local start = health.start or health.report_start
  local ok = health.ok or health.report_ok
  local warn = health.warn or health.report_warn
  local err = health.error or health.report_error
  start("gemini")
  local gemini = require("gemini")
  local argv = gemini.server_cmd()
  local exe = argv[1]
  if vim.fn.executable(exe) == 1 then
    ok("gemini-ls found: " .. vim.fn.exepath(exe))
    local version, why = M.version(exe)
    if version then
      ok("gemini-ls --version: " .. version)
    else
      err("gemini-ls --version failed: " .. why .. " (:GeminiInstall installs a working one)")
    end
    local server, broke = M.initialize(argv)
    if server then
      ok("the server answered initialize: " .. server)
    else
      err("the server did not answer initialize (" .. table.concat(argv, " ") .. "): " .. broke)
    end
  else
    err("gemini-ls not found: " .. exe .. " (:GeminiInstall installs it; or set cmd in setup(), or put it on PATH)")
  end
  if vim.env.GEMINI_API_KEY or vim.env.GOOGLE_API_KEY or vim.env.GOOGLE_GENAI_USE_VERTEXAI then
    ok("credentials found in the environment")
  else
    warn("GEMINI_API_KEY is not set: every prompt will fail")
  end
  if vim.fn.has("nvim-0.7") == 1 then
    ok("Neovim " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor))
  else
    err("Neovim 0.7 or newer is required")
  end
end

return M
