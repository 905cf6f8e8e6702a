-- script: none.json
-- The plugin writes its help tags where they are missing or stale, so
-- that :help gemini works from a clone (clone.sh shows it in a real
-- Neovim); where its doc/ cannot be written, it says nothing.
local plugin = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")

-- copy makes a copy of the plugin without doc/tags, as a clone has it.
local function copy()
  local dir = vim.fn.tempname()
  vim.fn.system({ "cp", "-R", plugin, dir })
  assert(vim.v.shell_error == 0, "copying the plugin")
  vim.fn.delete(dir .. "/doc/tags")
  return dir
end

-- help runs a Neovim with the plugin at dir loaded as a package is, asks
-- for :help topic and returns the help file it opened ("" for none), what
-- it said and the line the cursor is on.
local function help(dir, topic)
  local out = vim.fn.system({ "nvim", "--headless", "-u", "NONE", "-i", "NONE",
    "--cmd", "set rtp^=" .. dir, "--cmd", "runtime plugin/gemini.lua",
    "+silent! help " .. topic,
    "+lua io.stdout:write('opened:' .. vim.fn.expand('%:t') .. '\\nline:' .. vim.fn.getline('.') .. '\\n')", "+qa!" })
  return out:match("opened:(%S*)") or "", out, out:match("line:([^\n]*)")
end

local function touch(path, when)
  vim.fn.system({ "touch", "-d", when, path })
  assert(vim.v.shell_error == 0, "touch " .. path)
end

describe("help tags", function()
  it("are written where a clone has none, and :help finds the plugin's help", function()
    local dir = copy()
    eq(0, vim.fn.filereadable(dir .. "/doc/tags"), "tags before")
    local opened, out = help(dir, "gemini-review")
    eq("gemini.txt", opened, "the help opened; nvim said: " .. out)
    assert(read_file(dir .. "/doc/tags"):find("gemini-review\tgemini.txt", 1, true), "tags: " .. read_file(dir .. "/doc/tags"))
  end)

  it("take :help gemini to the top of the help, over its contents", function()
    local opened, out, line = help(copy(), "gemini")
    eq("gemini.txt", opened, "the help opened; nvim said: " .. out)
    assert(line and line:find("^%*gemini%.txt%*.*%*gemini%*$"), "the cursor's line: " .. tostring(line))
  end)

  it("are written again when the help is newer (a git pull changed it)", function()
    local dir = copy()
    vim.fn.writefile({ "gemini-old\tgemini.txt\t/*gemini-old*" }, dir .. "/doc/tags")
    touch(dir .. "/doc/tags", "2020-01-01")
    local opened = help(dir, "gemini-review")
    eq("gemini.txt", opened, "the help opened")
    local tags = read_file(dir .. "/doc/tags")
    assert(not tags:find("gemini-old", 1, true) and tags:find("gemini-review", 1, true), "tags: " .. tags)
  end)

  it("are left alone when current", function()
    local dir = copy()
    vim.fn.writefile({ "gemini-kept\tgemini.txt\t/*gemini-kept*" }, dir .. "/doc/tags")
    touch(dir .. "/doc/gemini.txt", "2020-01-01")
    help(dir, "gemini-kept")
    eq({ "gemini-kept\tgemini.txt\t/*gemini-kept*" }, vim.fn.readfile(dir .. "/doc/tags"), "tags")
  end)

  -- doc/tags a directory: :helptags cannot write it, even as root (a
  -- read-only doc/ does not stop root).
  it("are not written, and nothing is said, where they cannot be", function()
    local dir = copy()
    vim.fn.mkdir(dir .. "/doc/tags", "p")
    touch(dir .. "/doc/tags", "2020-01-01")
    local opened, out = help(dir, "gemini-review")
    eq("", opened, "a help opened without tags")
    eq(nil, out:find("E152", 1, true), "nvim said: " .. out)
    eq(nil, out:find("Error", 1, true), "nvim said: " .. out)
  end)
end)
