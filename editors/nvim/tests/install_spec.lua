-- script: prompt.json
-- :GeminiInstall puts gemini-ls in stdpath("data")/gemini-ls from a
-- release directory (a file: URL holding the archive for this machine and
-- SHA256SUMS, as make dist writes them), and the plugin then runs it, with
-- no cmd configured and no gemini-ls on PATH; an archive SHA256SUMS does
-- not vouch for is not installed.
local gemini = require("gemini")
local install = require("gemini.install")
local notes = {}
vim.notify = function(msg, level)
  table.insert(notes, { msg = msg, level = level or vim.log.levels.INFO })
end

local function sh(script, ...)
  local out = vim.fn.system({ "sh", "-c", script, "sh", ... })
  assert(vim.v.shell_error == 0, script .. ": " .. out)
end

-- release makes a release directory whose archive holds the real gemini-ls;
-- sums, when given, is SHA256SUMS's text instead of the right one.
local function release(sums)
  local dir = vim.fn.tempname()
  local name = assert(install.archive())
  sh('mkdir -p "$1/stage" && cp "$2" "$1/stage/gemini-ls" && tar -C "$1/stage" -czf "$1/$3" gemini-ls && rm -r "$1/stage"',
    dir, os.getenv("GEMINI_LS"), name)
  if sums then
    local f = assert(io.open(dir .. "/SHA256SUMS", "w"))
    f:write(sums)
    f:close()
  else
    sh('cd "$1" && sha256sum "$2" >SHA256SUMS', dir, name)
  end
  return "file://" .. dir .. "/"
end

-- A data directory of the spec's own: what is installed stays here.
local function fresh_data()
  vim.env.XDG_DATA_HOME = vim.fn.tempname()
end

-- fake_go puts tests/fakego/go first on PATH, with a directory of its
-- own (FAKEGO_DIR) where it says how it was run and waits for go-on.
local function fake_go()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local bin = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/fakego"
  if not vim.env.PATH:find(bin, 1, true) then
    vim.env.PATH = bin .. ":" .. vim.env.PATH
  end
  vim.env.FAKEGO_DIR = dir
  return dir
end

-- told_since is what the user was told after the first notes, a line each.
local function told_since(first)
  return table.concat(vim.tbl_map(function(n) return n.msg end, vim.list_slice(notes, first + 1)), "\n")
end

-- install_and_wait runs :GeminiInstall, which returns while it works in
-- the background, and waits for it to end.
local function install_and_wait()
  vim.cmd("GeminiInstall")
  wait_for(":GeminiInstall to end", function() return not install.running() end, 30000)
end

describe(":GeminiInstall", function()
  it("installs the release's gemini-ls, which the plugin then runs", function()
    fresh_data()
    eq(0, vim.fn.executable("gemini-ls"), "gemini-ls on PATH")
    eq(nil, install.installed(), "installed before :GeminiInstall")
    gemini.setup({ release_url = release() })
    -- Files opened before the install: told once what to do.
    vim.cmd("edit notes.txt")
    vim.cmd("edit numbers.txt")
    vim.wait(100) -- the buffers are attached on the loop's next turn
    local hints = vim.tbl_filter(function(n) return n.msg:find(":GeminiInstall installs it", 1, true) end, notes)
    eq(1, #hints, "hints to install: " .. vim.inspect(notes))
    eq(vim.log.levels.WARN, hints[1].level, "the hint's level")
    install_and_wait()
    local bin = vim.fn.stdpath("data") .. "/gemini-ls/gemini-ls"
    eq(bin, install.installed(), "installed")
    eq(bin, gemini.server_cmd()[1], "the command the plugin runs")
    local last = notes[#notes].msg
    assert(last:find("^Gemini: installed gemini%-ls %S+") and last:find("gemini-ls", 1, true), "told: " .. last)
    vim.cmd("edit notes.txt")
    local done
    gemini.prompt("read the numbers", gemini.context(0), function(err, result)
      done = { err = err, result = result }
    end)
    wait_for("the prompt to end", function() return done ~= nil end)
    eq(nil, done.err, "error")
    local text = table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
    assert(text:find("Two lines read.", 1, true), "answer missing:\n" .. text)
    local client = vim.lsp.get_client_by_id(gemini.client_id)
    eq(bin, client.config.cmd[1], "the running server's binary")
  end)

  it("installs nothing that SHA256SUMS does not vouch for", function()
    fresh_data()
    gemini.config.release_url = release(string.rep("0", 64) .. "  " .. install.archive() .. "\n")
    install_and_wait()
    eq(nil, install.installed(), "installed")
    local last = notes[#notes]
    eq(vim.log.levels.ERROR, last.level, "level")
    assert(last.msg:find("does not match SHA256SUMS", 1, true), "told: " .. last.msg)
  end)

  -- With no release to be had, Go builds gemini-ls from the checkout: in
  -- the background, the editor working meanwhile, told what happens.
  it("builds with Go in the background when no release can be had", function()
    fresh_data()
    local dir = fake_go()
    gemini.config.release_url = "file://" .. vim.fn.tempname() .. "/"
    local first = #notes
    vim.cmd("GeminiInstall")
    -- :GeminiInstall returned with Go still building.
    assert(install.running(), "no install under way after :GeminiInstall returned")
    wait_for("go to start", function() return vim.fn.filereadable(dir .. "/go.pid") == 1 end)
    eq(nil, install.installed(), "installed before go ended")
    local args = vim.fn.readfile(dir .. "/go.args")
    eq(install.checkout(), args[1], "go's directory")
    eq("CGO_ENABLED=0", args[2], "go's environment")
    assert(args[3]:find("^build %-o %S+ %./cmd/gemini%-ls$"), "go's arguments: " .. args[3])
    local told = told_since(first)
    assert(told:find("(ENOENT: no such file or directory); building gemini-ls with Go instead, from the plugin's checkout (the first build takes minutes; :GeminiInstall cancel stops it)", 1, true), "told: " .. told)
    vim.cmd("GeminiInstall")
    assert(notes[#notes].msg:find("being installed already (building gemini-ls with Go; :GeminiInstall cancel stops it)", 1, true),
      "a second :GeminiInstall was told: " .. notes[#notes].msg)
    vim.fn.writefile({}, dir .. "/go-on")
    wait_for(":GeminiInstall to end", function() return not install.running() end)
    local bin = vim.fn.stdpath("data") .. "/gemini-ls/gemini-ls"
    eq(bin, install.installed(), "installed")
    assert(told_since(first):find("\nGemini: installed gemini%-ls %S+"), "told: " .. told_since(first))
  end)

  it("stops the install under way on :GeminiInstall cancel", function()
    fresh_data()
    local dir = fake_go()
    vim.cmd("GeminiInstall build")
    wait_for("go to start", function() return vim.fn.filereadable(dir .. "/go.pid") == 1 end)
    eq("Gemini: building gemini-ls with Go; the first build takes minutes", notes[#notes].msg, "told")
    local pid = vim.fn.readfile(dir .. "/go.pid")[1]
    vim.cmd("GeminiInstall cancel")
    eq(false, install.running(), "an install under way after :GeminiInstall cancel")
    local last = notes[#notes]
    eq(vim.log.levels.WARN, last.level, "level")
    assert(last.msg:find("^Gemini: the install was cancelled after %d+ s; nothing was installed$"), "told: " .. last.msg)
    wait_for("go to be stopped", function()
      vim.fn.system({ "kill", "-0", pid })
      return vim.v.shell_error ~= 0
    end)
    -- Go, let go now, could not install anything after all.
    vim.fn.writefile({}, dir .. "/go-on")
    vim.wait(300)
    eq(nil, install.installed(), "installed after the cancel")
    vim.cmd("GeminiInstall cancel")
    eq("Gemini: no install of gemini-ls is under way", notes[#notes].msg, "a cancel with nothing to cancel")
    -- The next install starts afresh.
    fake_go()
    vim.fn.writefile({}, os.getenv("FAKEGO_DIR") .. "/go-on")
    vim.cmd("GeminiInstall build")
    wait_for(":GeminiInstall to end", function() return not install.running() end)
    assert(install.installed(), "not installed by the install after the cancel")
  end)

  -- A headless Neovim's build step (lazy.nvim's build, a provisioning
  -- script) quits right after :GeminiInstall: it waits for the install.
  it("installs before a headless Neovim quits", function()
    local data = vim.fn.tempname()
    local plugin = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
    -- Go builds for two seconds, the child having quit long before.
    local dir = fake_go()
    vim.fn.jobstart({ "sh", "-c", 'sleep 2; touch "$1/go-on"', "sh", dir })
    local out = vim.fn.system({ "env", "XDG_DATA_HOME=" .. data, "nvim", "--headless", "-u", "NONE", "-i", "NONE",
      "--cmd", "set rtp^=" .. plugin, "--cmd", "runtime plugin/gemini.lua", "+GeminiInstall build", "+qa" })
    eq(0, vim.v.shell_error, "nvim's exit status; it said: " .. out)
    eq(1, vim.fn.executable(data .. "/nvim/gemini-ls/gemini-ls"), "installed; nvim said: " .. out)
  end)

  -- A download host that takes the connection and never answers (a
  -- listening port nobody accepts on): the download gives up after the
  -- time-out, and the build with Go starts then, not at the system's
  -- TCP time-out.
  it("gives up on a host that never answers within its time-out, and builds with Go", function()
    fresh_data()
    local silent = vim.loop.new_tcp()
    assert(silent:bind("127.0.0.1", 0))
    assert(silent:listen(8, function() end))
    local saved = install.timeouts
    install.timeouts = { connect = 2, stall = 2, stall_bytes = 1024 }
    local dir = fake_go()
    gemini.config.release_url = ("http://127.0.0.1:%d/releases/latest/download/"):format(silent:getsockname().port)
    local first = #notes
    local started = vim.loop.now()
    vim.cmd("GeminiInstall")
    wait_for("go to start", function() return vim.fn.filereadable(dir .. "/go.pid") == 1 end, 20000)
    local took = (vim.loop.now() - started) / 1000
    install.timeouts = saved
    silent:close()
    assert(took >= 2 and took < 8, ("go started %.1f s after :GeminiInstall; the time-out is 2 s"):format(took))
    local told = told_since(first)
    assert(told:find("cannot download http://127.0.0.1:%d+/releases/latest/download/gemini%-ls%-%S+: less than 1024 bytes a second came for 2 s;"), "told: " .. told)
    assert(told:find("; building gemini-ls with Go instead, from the plugin's checkout", 1, true), "told: " .. told)
    vim.fn.writefile({}, dir .. "/go-on")
    wait_for(":GeminiInstall to end", function() return not install.running() end)
    assert(install.installed(), "not installed")
  end)

  it("builds with Go at once when the download host's name does not resolve", function()
    fresh_data()
    local dir = fake_go()
    gemini.config.release_url = "http://gemini-ls-release.invalid/"
    local first = #notes
    local started = vim.loop.now()
    vim.cmd("GeminiInstall")
    wait_for("go to start", function() return vim.fn.filereadable(dir .. "/go.pid") == 1 end, 20000)
    local took = (vim.loop.now() - started) / 1000
    assert(took < install.timeouts.connect + 2, ("go started %.1f s after :GeminiInstall"):format(took))
    local told = told_since(first)
    assert(told:find("cannot download http://gemini-ls-release.invalid/gemini-ls-", 1, true) and told:find("building gemini-ls with Go instead", 1, true), "told: " .. told)
    install.cancel()
  end)

  -- Where the plugin is in no checkout (the release's tarball), Go builds
  -- the latest release with go install.
  it("builds with go install of the latest release outside a checkout", function()
    fresh_data()
    local dir = fake_go()
    local checkout = install.checkout
    install.checkout = function() return nil end
    local first = #notes
    vim.cmd("GeminiInstall build")
    wait_for("go to start", function() return vim.fn.filereadable(dir .. "/go.pid") == 1 end)
    local args = vim.fn.readfile(dir .. "/go.args")
    eq("CGO_ENABLED=0", args[2], "go's environment")
    eq("install github.com/gemini-ls/gemini-ls/cmd/gemini-ls@latest", args[3], "go's arguments")
    eq("GOBIN=" .. args[1], args[4], "GOBIN: go's own directory")
    assert(told_since(first):find("building gemini-ls with Go (go install github.com/gemini-ls/gemini-ls/cmd/gemini-ls@latest); the first build takes minutes", 1, true), "told: " .. told_since(first))
    vim.fn.writefile({}, dir .. "/go-on")
    wait_for(":GeminiInstall to end", function() return not install.running() end)
    install.checkout = checkout
    assert(install.installed(), "not installed; told: " .. told_since(first))
    eq(0, vim.fn.isdirectory(args[1]), "go's directory left behind")
  end)

  it("cuts its progress line to the space the command line has", function()
    local long = "Gemini: downloading gemini-ls-linux-amd64.tar.gz… 12 s (:GeminiInstall cancel stops it)"
    local fit = require("gemini.say").fit
    eq(long, fit(long, 200), "a line that fits")
    local cut = fit(long, 40)
    eq(40, vim.fn.strdisplaywidth(cut), "width of the cut line")
    eq("Gemini: downloading gemini-ls-linux-amd…", cut, "the cut line")
    eq("", fit(long, 0), "no space")
  end)

  it("says anything in one line: Go's output of several lines, a tab, a carriage return", function()
    local line = require("gemini.say").line
    eq("go build failed: # pkg | a.go:3:17: undefined: x | a.go:3:33: undefined: y",
      line("go build failed: # pkg\n\ta.go:3:17: undefined: x\r\n\na.go:3:33: undefined: y\n"), "joined")
    local first = #notes
    require("gemini.say").tell("Gemini: one\ntwo", vim.log.levels.WARN)
    eq("Gemini: one | two", told_since(first), "told")
  end)

  -- The README's route for 0.7 to 0.11: editors/nvim linked into
  -- pack/*/start; the link's parents are not the checkout.
  it("knows the checkout through a link to the plugin", function()
    local root = install.checkout()
    local link = vim.fn.tempname() .. "/pack/gemini/start/gemini-ls"
    vim.fn.mkdir(vim.fn.fnamemodify(link, ":h"), "p")
    assert(vim.loop.fs_symlink(root .. "/editors/nvim", link))
    local out = vim.fn.system({ "nvim", "--headless", "-u", "NONE", "-i", "NONE", "--cmd", "set rtp^=" .. link,
      "+lua io.stdout:write('checkout:' .. tostring(require('gemini.install').checkout()) .. '\\n')", "+qa!" })
    eq(root, out:match("checkout:([^\n]*)"), "the checkout; nvim said: " .. out)
  end)

  it("knows the checkout it came in, to build from", function()
    local root = install.checkout()
    assert(root and vim.fn.filereadable(root .. "/cmd/gemini-ls/main.go") == 1, "checkout: " .. tostring(root))
  end)
end)

describe("lsp/gemini_ls.lua", function()
  it("gives vim.lsp.enable the gemini-ls :GeminiInstall installed", function()
    fresh_data()
    gemini.config.release_url = release()
    install_and_wait()
    local bin = assert(install.installed())
    local file = vim.api.nvim_get_runtime_file("lsp/gemini_ls.lua", false)[1]
    assert(file, "no lsp/gemini_ls.lua on the runtimepath")
    local config = dofile(file)
    eq({ bin, "serve" }, config.cmd, "cmd")
    eq(nil, config.filetypes, "filetypes (all)")
    if vim.fn.has("nvim-0.11") == 1 then
      eq({ bin, "serve" }, vim.lsp.config.gemini_ls.cmd, "vim.lsp.config's cmd")
    end
  end)
end)

-- An install a failed test left running would hold up this headless
-- Neovim's exit (it waits for installs): stopped here.
if install.running() then
  install.cancel()
end
