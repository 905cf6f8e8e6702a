-- script: prompt.json
-- :checkhealth gemini runs the server it found: its --version, then an
-- LSP initialize with the command the plugin runs, and says in one line
-- each what is right or what is wrong.
local gemini = require("gemini")
local health = require("gemini.health")

-- The report's text goes to build/screenshots (or $GEMINI_SCREENSHOTS_DIR)
-- as nvim-checkhealth-NAME.txt, a newer Neovim's with its version
-- (tests/tmux.sh's picture).
local shots = os.getenv("GEMINI_SCREENSHOTS_DIR")
  or vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h:h:h") .. "/build/screenshots"
local function picture(name)
  local v = vim.version()
  local suffix = (v.major == 0 and v.minor == 7) and "" or ("-%d.%d"):format(v.major, v.minor)
  return ("%s/nvim-checkhealth-%s%s.txt"):format(shots, name, suffix)
end

-- checkhealth runs :checkhealth gemini, saves its report as the picture
-- name, and returns its lines that name gemini-ls or the server, with the
-- buffer closed again.
local function checkhealth(name)
  vim.cmd("checkhealth gemini")
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  vim.fn.mkdir(shots, "p")
  vim.fn.writefile(lines, picture(name))
  vim.cmd("bwipeout!")
  return vim.tbl_filter(function(l) return l:find("gemini-ls", 1, true) or l:find("server", 1, true) end, lines)
end

-- script writes an executable shell script of body and returns its path.
local function script(body)
  local file = vim.fn.tempname()
  vim.fn.writefile({ "#!/bin/sh", body }, file)
  vim.fn.setfperm(file, "rwxr-xr-x")
  return file
end

-- one asserts that exactly one of lines matches pattern (a Lua pattern)
-- and returns it.
local function one(lines, pattern)
  local found = vim.tbl_filter(function(l) return l:find(pattern) end, lines)
  eq(1, #found, "lines matching " .. pattern .. " in\n" .. table.concat(lines, "\n"))
  return found[1]
end

describe(":checkhealth gemini", function()
  it("runs a working gemini-ls and says so", function()
    gemini.config.cmd = { os.getenv("GEMINI_LS") }
    local version = vim.trim(vim.fn.system({ os.getenv("GEMINI_LS"), "--version" }))
    local lines = checkhealth("working")
    one(lines, "OK.*gemini%-ls found: " .. vim.pesc(os.getenv("GEMINI_LS")) .. "$")
    one(lines, "OK.*gemini%-ls %-%-version: " .. vim.pesc(version) .. "$")
    one(lines, "OK.*the server answered initialize: gemini%-ls %S+$")
    eq({}, vim.tbl_filter(function(l) return l:find("ERROR", 1, true) end, lines), "errors")
  end)

  it("says in one line each what is wrong with a server that exits 1", function()
    gemini.config.cmd = { script('echo "gemini-ls: cannot read ~/.gemini/settings.json: permission denied" >&2; exit 1') }
    local lines = checkhealth("exits-1")
    one(lines, "OK.*gemini%-ls found: ")
    one(lines, "ERROR.*gemini%-ls %-%-version failed: it exited with status 1: gemini%-ls: cannot read ~/%.gemini/settings%.json: permission denied %(:GeminiInstall installs a working one%)$")
    one(lines, "ERROR.*the server did not answer initialize %(" .. vim.pesc(gemini.config.cmd[1]) .. "%): it exited with status 1: gemini%-ls: cannot read ~/%.gemini/settings%.json: permission denied$")
  end)

  it("says so of a server that never answers, and stops it", function()
    local pids = vim.fn.tempname()
    gemini.config.cmd = { script('echo $$ >>' .. pids .. '; while :; do sleep 0.1; done') }
    health.timeout_ms = 1000
    local lines = checkhealth("silent")
    health.timeout_ms = 10000
    one(lines, "ERROR.*gemini%-ls %-%-version failed: no answer within 1 s")
    one(lines, "ERROR.*the server did not answer initialize %(.*%): no answer within 1 s$")
    for _, pid in ipairs(vim.fn.readfile(pids)) do
      wait_for("the silent server to be stopped", function()
        vim.fn.system({ "kill", "-0", pid })
        return vim.v.shell_error ~= 0
      end)
    end
  end)

  it("says so of a server not there", function()
    gemini.config.cmd = { vim.fn.tempname() }
    local lines = checkhealth("missing")
    one(lines, "ERROR.*gemini%-ls not found: .*:GeminiInstall installs it")
    eq(1, #lines, "lines: " .. table.concat(lines, "\n"))
  end)
end)
