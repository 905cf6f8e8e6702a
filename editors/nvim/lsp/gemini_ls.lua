-- gemini-ls for Neovim 0.11+'s own client, without the plugin's setup():
-- vim.lsp.enable("gemini_ls") starts it for every file, in the root of its
-- git checkout. The plugin's setup() starts its own client instead: use one
-- or the other.
local ok, install = pcall(require, "gemini.install")
return {
  cmd = { ok and install.installed() or "gemini-ls", "serve" },
  root_markers = { ".git" },
}
