-- :GeminiInstall: puts gemini-ls where the plugin runs it from,
-- stdpath("data")/gemini-ls, from the release (the archive for this
-- machine, checked against the release's SHA256SUMS), or built with Go:
-- from the gemini-ls checkout the plugin came in, else with go install.
-- A download that gets no answer gives up within the time-outs below, so
-- the build with Go follows in seconds, not at the system's TCP time-out.
local M = {}

M.default_release_url = "https://github.com/gemini-ls/gemini-ls/releases/latest/download/"

-- What go install builds where the plugin is not in a checkout: the
-- latest release, as release_url's default downloads.
M.go_package = "github.com/gemini-ls/gemini-ls/cmd/gemini-ls@latest"

-- Seconds a download may take to connect (name lookup included), and may
-- then go on with less than stall_bytes a second before it is given up.
M.timeouts = { connect = 10, stall = 20, stall_bytes = 1024 }

local uv = vim.uv or vim.loop
local say = require("gemini.say")

local function windows()
  return uv.os_uname().sysname:match("Windows") ~= nil
end

local function exe_name()
  return windows() and "gemini-ls.exe" or "gemini-ls"
end

--- The directory :GeminiInstall puts gemini-ls in.
function M.dir()
  return vim.fn.stdpath("data") .. "/gemini-ls"
end

--- The gemini-ls :GeminiInstall installed, or nil.
function M.installed()
  local bin = M.dir() .. "/" .. exe_name()
  if vim.fn.executable(bin) == 1 then
    return bin
  end
end

--- The release archive for this machine, or nil and why not.
function M.archive()
  local u = uv.os_uname()
  local os = ({ Linux = "linux", Darwin = "darwin", Windows_NT = "windows" })[u.sysname]
  local arch = ({ x86_64 = "amd64", AMD64 = "amd64", amd64 = "amd64", aarch64 = "arm64", arm64 = "arm64", ARM64 = "arm64" })[u.machine]
  if not os or not arch then
    return nil, "no gemini-ls release for " .. u.sysname .. " on " .. u.machine
  end
  return ("gemini-ls-%s-%s.%s"):format(os, arch, os == "windows" and "zip" or "tar.gz")
end

-- spawn runs argv in the background (vim.system from Neovim 0.10, a job
-- before it) and calls on_exit(code, output) on the main loop; opts.cwd
-- and opts.env (added to Neovim's environment) are optional. It returns
-- a function that stops the process, or nil when it could not start
-- (on_exit was called already).
local function spawn(argv, opts, on_exit)
  if vim.system then
    local ok, proc = pcall(vim.system, argv, { cwd = opts.cwd, env = opts.env, text = true }, function(r)
      vim.schedule(function() on_exit(r.code, (r.stdout or "") .. (r.stderr or "")) end)
    end)
    if not ok then
      on_exit(-1, tostring(proc))
      return nil
    end
    return function() proc:kill(15) end
  end
  local out = {}
  local function collect(_, data)
    vim.list_extend(out, data)
  end
  local ok, job = pcall(vim.fn.jobstart, argv, {
    cwd = opts.cwd,
    env = opts.env,
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = collect,
    on_stderr = collect,
    on_exit = function(_, code) on_exit(code, table.concat(out, "\n")) end,
  })
  if not ok or job <= 0 then
    on_exit(-1, "cannot run " .. argv[1] .. (ok and "" or ": " .. tostring(job)))
    return nil
  end
  return function() vim.fn.jobstop(job) end
end

-- The install under way, or nil: what it is doing (what), since when
-- (started, in ms), how to stop its process (stop), whether the user
-- cancelled it, and the timer that shows its progress. One at a time:
-- two would race to rename their binaries into the same place.
local current

local function elapsed()
  return math.floor((uv.now() - current.started) / 1000)
end

M.cancel_hint = ":GeminiInstall cancel stops it"
M.build_hint = "the first build takes minutes; " .. M.cancel_hint

--- The progress line: what the install does and for how long.
function M.progress_line()
  return ("Gemini: %s… %d s (%s)"):format(current.what, elapsed(), M.cancel_hint)
end

-- progress shows, in place, what the install is doing and for how long,
-- so a Go build of minutes is never silent: one line cut to the space the
-- command line has (v:echospace), as lazy.nvim and telescope keep their
-- lines, since a longer one would ask for Enter at each update. Not in
-- :messages (one line a second would bury the rest), and not while the
-- user types a command.
local function progress()
  if not current or vim.api.nvim_get_mode().mode ~= "n" then
    return
  end
  vim.api.nvim_echo({ { say.fit(M.progress_line(), vim.v.echospace) } }, false, {})
end

-- step runs argv as the install's next step, saying what it does, then
-- next(output), or done(nil, why) when it fails (why is opts.failed(code,
-- output), else the command and its output). Nothing follows a cancelled
-- step.
local function step(what, argv, opts, done, next)
  local c = current
  c.what = what
  c.stop = spawn(argv, opts, function(code, out)
    if c.cancelled then
      return
    end
    c.stop = nil
    if code ~= 0 then
      out = vim.trim(out)
      return done(nil, opts.failed and opts.failed(code, out) or (table.concat(argv, " ") .. ": " .. out))
    end
    next(out)
  end)
end

-- curl's exit status when a time-out ended the transfer.
local curl_timed_out = 28

-- Why curl could not download url, in words: a time-out says which, and
-- for how long.
local function download_failed(url)
  return function(code, out)
    local t = M.timeouts
    if code == curl_timed_out and out:find("Connection timed out", 1, true) then
      return ("cannot download %s: no connection within %d s"):format(url, t.connect)
    elseif code == curl_timed_out then
      return ("cannot download %s: less than %d bytes a second came for %d s"):format(url, t.stall_bytes, t.stall)
    end
    return ("cannot download %s: %s"):format(url, out)
  end
end

-- download saves url (https, http or file) as file, then next(). It
-- gives up on a host that does not answer (M.timeouts) rather than
-- retrying: the build with Go is the better next try.
local function download(url, file, done, next)
  local path = url:match("^file://(.*)$")
  if path then
    local ok, err = uv.fs_copyfile(path, file)
    if not ok then
      -- libuv's error names both paths; the one read is named already.
      return done(nil, "cannot read " .. path .. " (" .. tostring(err):gsub(": /.*$", "") .. ")")
    end
    return next()
  end
  if vim.fn.executable("curl") ~= 1 then
    return done(nil, "downloading needs curl")
  end
  local t = M.timeouts
  local argv = { "curl", "-fsSL", "--connect-timeout", tostring(t.connect),
    "--speed-limit", tostring(t.stall_bytes), "--speed-time", tostring(t.stall), "-o", file, url }
  local name = url:match("[^/]+$") or url
  step("downloading " .. name, argv, { failed = download_failed(url) }, done, function() next() end)
end

-- sha256 gives next the SHA-256 of file in hex, or nil when nothing here
-- can compute it.
local function sha256(file, done, next)
  for _, argv in ipairs({ { "sha256sum", file }, { "shasum", "-a", "256", file } }) do
    if vim.fn.executable(argv[1]) == 1 then
      return step("checking " .. vim.fn.fnamemodify(file, ":t"), argv, {}, done, function(out)
        next(out:match("^(%x+)"))
      end)
    end
  end
  if windows() then
    return step("checking " .. vim.fn.fnamemodify(file, ":t"), { "certutil", "-hashfile", file, "SHA256" }, {}, done, function(out)
      local sum = out:match("\n(%x+)%s*\n")
      next(sum and sum:lower())
    end)
  end
  next(nil)
end

-- verify checks file, the archive name, against the SHA256SUMS sums;
-- done(nil, why, "unverified") when they differ.
local function verify(file, name, sums, done, next)
  local want
  for line in io.lines(sums) do
    local sum, n = line:match("^(%x+)%s+%*?(.-)%s*$")
    if n == name then
      want = sum
    end
  end
  if not want then
    return done(nil, "SHA256SUMS names no " .. name, "unverified")
  end
  sha256(file, done, function(got)
    if not got then
      return done(nil, "no sha256sum, shasum or certutil to check " .. name .. " with", "unverified")
    end
    if got ~= want then
      return done(nil, ("%s does not match SHA256SUMS: its SHA-256 is %s, SHA256SUMS says %s"):format(name, got, want), "unverified")
    end
    next()
  end)
end

-- place moves the binary from into the install directory, whole.
local function place(from)
  vim.fn.mkdir(M.dir(), "p")
  local bin = M.dir() .. "/" .. exe_name()
  local ok, err = uv.fs_rename(from, bin)
  if not ok then
    return nil, "cannot install " .. bin .. ": " .. tostring(err)
  end
  uv.fs_chmod(bin, 493) -- 0755
  return bin
end

--- Downloads and installs the release from release_url in the background,
--- then done(bin), or done(nil, why, "unverified" when the archive is not
--- the one SHA256SUMS names).
function M.download(release_url, done)
  local name, why = M.archive()
  if not name then
    return done(nil, why)
  end
  local base = release_url:sub(-1) == "/" and release_url or release_url .. "/"
  local tmp = vim.fn.tempname()
  vim.fn.mkdir(tmp, "p")
  local function cleanup() vim.fn.delete(tmp, "rf") end
  current.cleanup = cleanup
  local function finish(...)
    cleanup()
    done(...)
  end
  local archive, sums = tmp .. "/" .. name, tmp .. "/SHA256SUMS"
  download(base .. name, archive, finish, function()
    download(base .. "SHA256SUMS", sums, finish, function()
      verify(archive, name, sums, finish, function()
        step("unpacking " .. name, { "tar", "-xf", archive, "-C", tmp, exe_name() }, {}, finish, function()
          finish(place(tmp .. "/" .. exe_name()))
        end)
      end)
    end)
  end)
end

--- The gemini-ls checkout the plugin sits in (editors/nvim), or nil. The
--- plugin's own path is resolved first: the README links editors/nvim
--- into pack/*/start, and the link's parents are not the checkout's.
function M.checkout()
  local lua = debug.getinfo(1, "S").source:sub(2) -- .../editors/nvim/lua/gemini/install.lua
  local root = vim.fn.fnamemodify(uv.fs_realpath(lua) or lua, ":p:h:h:h:h:h")
  local f = io.open(root .. "/go.mod", "r")
  if not f then
    return nil
  end
  local first = f:read("*l") or ""
  f:close()
  if first:match("^module github%.com/gemini%-ls/gemini%-ls$") then
    return root
  end
end

--- How Go builds gemini-ls here, in words: from the checkout, else
--- go install of the latest release.
function M.build_source()
  return M.checkout() and "from the plugin's checkout" or ("go install " .. M.go_package)
end

-- build_argv is the Go command that builds gemini-ls into dir, and how to
-- run it: go build in the checkout, else go install into dir (GOBIN) from
-- a directory of its own, where no go.mod is in the way.
local function build_argv(dir)
  local root = M.checkout()
  if root then
    local argv = { "go", "build", "-o", dir .. "/" .. exe_name(), "./cmd/gemini-ls" }
    return argv, { cwd = root, env = { CGO_ENABLED = "0" } }
  end
  return { "go", "install", M.go_package }, { cwd = dir, env = { CGO_ENABLED = "0", GOBIN = dir } }
end

-- The scratch buffer a failed build's output goes to.
M.output_buffer = "gemini-ls-build-output"

--- Builds gemini-ls with Go in the background and installs it, then
--- done(bin), or done(nil, why); says so, unless quiet (the caller said
--- it).
function M.build(done, quiet)
  if vim.fn.executable("go") ~= 1 then
    return done(nil, "building needs Go (go.mod says which version)")
  end
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  current.cleanup = function() vim.fn.delete(dir, "rf") end
  if not quiet then
    -- Short: the progress line, which follows, has the rest.
    local how = M.checkout() and "" or (" (go install " .. M.go_package .. ")")
    say.tell("Gemini: building gemini-ls with Go" .. how .. "; the first build takes minutes")
  end
  local argv, opts = build_argv(dir)
  opts.failed = function(_, out)
    local what = "go " .. argv[2] .. " failed"
    if not out:find("\n") then
      return what .. ": " .. out
    end
    -- A compiler's lines matter: a window of their own, not the
    -- command line, where they would stop Neovim for Enter.
    say.output(M.output_buffer, out)
    if #vim.api.nvim_list_uis() > 0 then
      return what .. "; Go's output is in the window below"
    end
    return what .. "; Go's output is in the buffer " .. M.output_buffer
  end
  step("building gemini-ls with Go", argv, opts, function(_, why)
    vim.fn.delete(dir, "rf")
    done(nil, why)
  end, function()
    local bin, why = place(dir .. "/" .. exe_name())
    vim.fn.delete(dir, "rf")
    done(bin, why)
  end)
end

--- Waits for the install under way, if any, to end; not when Neovim
--- dies of a signal (v:dying), which no wait should hold up.
function M.wait()
  if vim.v.dying == 0 then
    vim.wait(30 * 60 * 1000, function() return current == nil end, 50)
  end
end

--- Whether an install is under way.
function M.running()
  return current ~= nil
end

--- Stops the install under way; false when there is none.
function M.cancel()
  if not current then
    return false
  end
  local c = current
  c.cancelled = true
  if c.stop then
    c.stop()
  end
  if c.cleanup then
    c.cleanup()
  end
  vim.fn.timer_stop(c.timer)
  current = nil
  say.tell("Gemini: the install was cancelled after " .. math.floor((uv.now() - c.started) / 1000) .. " s; nothing was installed", vim.log.levels.WARN)
  return true
end

--- :GeminiInstall [build]: in the background, the release, else (or with
--- "build") a build with Go; says what it does while it runs and what it
--- did; on_done(bin), bin nil when nothing was installed (not called when
--- the install is cancelled), may return a note said with the install.
function M.command(how, release_url, on_done)
  on_done = on_done or function() end
  if current then
    say.tell("Gemini: gemini-ls is being installed already (" .. current.what .. "; " .. M.cancel_hint .. ")", vim.log.levels.WARN)
    return
  end
  current = { what = "starting", started = uv.now() }
  current.timer = vim.fn.timer_start(1000, progress, { ["repeat"] = -1 })
  -- The first line at once: the install says what it does from the start.
  vim.schedule(progress)
  if #vim.api.nvim_list_uis() == 0 then
    -- Headless, as in `nvim --headless +GeminiInstall +qa` (a plugin
    -- manager's build step, a provisioning script), nobody waits at a
    -- screen: quitting waits for the install instead of killing it.
    vim.cmd("autocmd VimLeavePre * ++once lua require('gemini.install').wait()")
  end
  local function done(bin, err)
    vim.fn.timer_stop(current.timer)
    current = nil
    if not bin then
      say.tell("Gemini: gemini-ls was not installed: " .. err, vim.log.levels.ERROR)
      return on_done(nil)
    end
    -- "gemini-ls 0.1.0", without the commit: the line fits 80 columns.
    local version = vim.trim(vim.fn.system({ bin, "--version" })):match("^%S+ %S+") or "gemini-ls"
    -- What the caller adds (how to run it) goes in the same line: two
    -- would stop Neovim for Enter.
    local note = on_done(bin)
    say.tell("Gemini: installed " .. version .. " in " .. vim.fn.fnamemodify(M.dir(), ":~") .. (note and ("; " .. note) or ""))
  end
  if how == "build" then
    return M.build(done)
  end
  M.download(release_url, function(bin, err, unverified)
    -- No release to be had (offline, a host that does not answer, no
    -- archive for this machine): Go builds one. An archive that fails its
    -- check is reported, not papered over.
    if not bin and not unverified and vim.fn.executable("go") == 1 then
      say.tell("Gemini: " .. err .. "; building gemini-ls with Go instead, " .. M.build_source() .. " (" .. M.build_hint .. ")", vim.log.levels.WARN)
      return M.build(done, true)
    end
    if not bin and not unverified then
      err = err .. "; with Go on PATH, :GeminiInstall builds it instead (" .. M.build_source() .. ")"
    end
    done(bin, err)
  end)
end

return M
