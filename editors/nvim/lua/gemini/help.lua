-- The plugin's help tags (doc/tags), written when they are missing or
-- older than doc/gemini.txt, so that :help gemini works however the
-- plugin came: a clone or an unpacked tarball in a package directory, or
-- a plugin manager. lazy.nvim and vim.pack run :helptags on a plugin's
-- top-level doc/ only, and this plugin lives in editors/nvim of its
-- repository. Where doc/ cannot be written (a system-wide install, which
-- ships its tags), nothing is said: :help then says what is missing.
local M = {}

local uv = vim.uv or vim.loop

--- The plugin's doc directory.
function M.dir()
  local lua = debug.getinfo(1, "S").source:sub(2) -- .../lua/gemini/help.lua
  return vim.fn.fnamemodify(lua, ":p:h:h:h") .. "/doc"
end

local function older(a, b)
  return a.sec < b.sec or (a.sec == b.sec and a.nsec < b.nsec)
end

--- Writes doc/tags when they are missing or older than the help file;
--- reports whether it wrote them.
function M.ensure()
  local dir = M.dir()
  local help = uv.fs_stat(dir .. "/gemini.txt")
  if not help then
    return false
  end
  local tags = uv.fs_stat(dir .. "/tags")
  if tags and not older(tags.mtime, help.mtime) then
    return false
  end
  return (pcall(vim.cmd, "silent helptags " .. vim.fn.fnameescape(dir)))
end

return M
