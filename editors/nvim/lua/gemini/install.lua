-- :GeminiInstall: puts gemini-ls where the plugin runs it from,
-- stdpath("data")/gemini-ls, from the release (the archive for this
-- machine, checked against the release's SHA256SUMS), or built with Go from
-- the gemini-ls checkout the plugin came in.
local M = {}

M.default_release_url = "https://github.com/gemini-ls/gemini-ls/releases/latest/download/"

local uv = vim.uv or vim.loop

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

-- run runs argv; nil and what it said when it fails.
local function run(argv)
  local out = vim.fn.system(argv)
  if vim.v.shell_error ~= 0 then
    return nil, table.concat(argv, " ") .. ": " .. vim.trim(out)
  end
  return out
end

-- download saves url (https, http or file) as file.
local function download(url, file)
  local path = url:match("^file://(.*)$")
  if path then
    local ok, err = uv.fs_copyfile(path, file)
    if not ok then
      return nil, "cannot read " .. path .. ": " .. tostring(err)
    end
    return true
  end
  if vim.fn.executable("curl") ~= 1 then
    return nil, "downloading needs curl"
  end
  return run({ "curl", "-fsSL", "--retry", "2", "-o", file, url })
end

local function sha256(file)
  for _, argv in ipairs({ { "sha256sum", file }, { "shasum", "-a", "256", file } }) do
    if vim.fn.executable(argv[1]) == 1 then
      local out = run(argv)
      return out and out:match("^(%x+)")
    end
  end
  if windows() then
    local out = run({ "certutil", "-hashfile", file, "SHA256" })
    local sum = out and out:match("\n(%x+)%s*\n")
    return sum and sum:lower()
  end
end

-- verified checks file, the archive name, against the SHA256SUMS sums.
local function verified(file, name, sums)
  local want
  for line in io.lines(sums) do
    local sum, n = line:match("^(%x+)%s+%*?(.-)%s*$")
    if n == name then
      want = sum
    end
  end
  if not want then
    return nil, "SHA256SUMS names no " .. name
  end
  local got = sha256(file)
  if not got then
    return nil, "no sha256sum, shasum or certutil to check " .. name .. " with"
  end
  if got ~= want then
    return nil, ("%s does not match SHA256SUMS: its SHA-256 is %s, SHA256SUMS says %s"):format(name, got, want)
  end
  return true
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

--- Downloads and installs the release from release_url; the path of the
--- binary, or nil, why not, and "unverified" when the archive is not the
--- one SHA256SUMS names.
function M.download(release_url)
  local name, why = M.archive()
  if not name then
    return nil, why
  end
  local base = release_url:sub(-1) == "/" and release_url or release_url .. "/"
  local tmp = vim.fn.tempname()
  vim.fn.mkdir(tmp, "p")
  local function step()
    local archive, sums = tmp .. "/" .. name, tmp .. "/SHA256SUMS"
    local ok, err = download(base .. name, archive)
    if not ok then
      return nil, err
    end
    ok, err = download(base .. "SHA256SUMS", sums)
    if not ok then
      return nil, err
    end
    ok, err = verified(archive, name, sums)
    if not ok then
      return nil, err, "unverified"
    end
    ok, err = run({ "tar", "-xf", archive, "-C", tmp, exe_name() })
    if not ok then
      return nil, err
    end
    return place(tmp .. "/" .. exe_name())
  end
  local bin, err, unverified = step()
  vim.fn.delete(tmp, "rf")
  return bin, err, unverified
end

--- The gemini-ls checkout the plugin sits in (editors/nvim), or nil.
function M.checkout()
  local lua = debug.getinfo(1, "S").source:sub(2) -- .../editors/nvim/lua/gemini/install.lua
  local root = vim.fn.fnamemodify(lua, ":p:h:h:h:h:h")
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

--- Builds gemini-ls with Go from the checkout and installs it; the path of
--- the binary, or nil and why not.
function M.build()
  local root = M.checkout()
  if not root then
    return nil, "the plugin is not in a gemini-ls checkout to build from"
  end
  if vim.fn.executable("go") ~= 1 then
    return nil, "building needs Go (go.mod says which version)"
  end
  local tmp = vim.fn.tempname() .. "-" .. exe_name()
  local out = vim.fn.system({ "sh", "-c", 'cd "$1" && CGO_ENABLED=0 go build -o "$2" ./cmd/gemini-ls', "sh", root, tmp })
  if vim.v.shell_error ~= 0 then
    return nil, "go build failed: " .. vim.trim(out)
  end
  return place(tmp)
end

--- :GeminiInstall [build]: the release, else (or with "build") a build with
--- Go from the checkout; says what it did. The path of the binary, or nil.
function M.command(how, release_url)
  local bin, err
  if how == "build" then
    bin, err = M.build()
  else
    vim.notify("Gemini: downloading gemini-ls from " .. release_url)
    local unverified
    bin, err, unverified = M.download(release_url)
    -- No release to be had (offline, no archive for this machine): Go
    -- builds one. An archive that fails its check is reported, not papered over.
    if not bin and not unverified and M.checkout() and vim.fn.executable("go") == 1 then
      vim.notify("Gemini: " .. err .. "; building it with Go instead", vim.log.levels.WARN)
      bin, err = M.build()
    end
  end
  if not bin then
    vim.notify("Gemini: gemini-ls was not installed: " .. err, vim.log.levels.ERROR)
    return nil
  end
  local version = vim.trim(vim.fn.system({ bin, "--version" }))
  vim.notify("Gemini: installed " .. version .. " in " .. vim.fn.fnamemodify(M.dir(), ":~"))
  return bin
end

return M
