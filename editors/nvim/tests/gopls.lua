-- For the specs of gemini/languageFeature: a small Go module in the
-- workspace, and gopls (make langservers; run.sh names it in $GEMINI_GOPLS)
-- started for Go buffers as a user's configuration does, from a FileType
-- autocmd.
local M = {}

M.path = os.getenv("GEMINI_GOPLS") or ""

M.files = {
  ["go.mod"] = { "module example.com/hello", "", "go 1.21" },
  ["greet/greet.go"] = {
    "package greet",
    "",
    "// Greet says hello.",
    "func Greet(name string) string {",
    '\treturn "Hello, " + name',
    "}",
    "",
    "// Greeter greets.",
    "type Greeter interface {",
    "\tHello(name string) string",
    "}",
    "",
    "// English greets in English.",
    "type English struct{}",
    "",
    "// Hello says hello in English.",
    "func (English) Hello(name string) string {",
    "\treturn Greet(name)",
    "}",
  },
  -- Line 10 (9 from 0) puts Greet after characters of two and four
  -- UTF-8 bytes, one and two UTF-16 units: it starts at byte 29, UTF-16
  -- character 26, UTF-32 character 25.
  ["main.go"] = {
    "package main",
    "",
    "import (",
    '\t"fmt"',
    "",
    '\t"example.com/hello/greet"',
    ")",
    "",
    "func main() {",
    '\tfmt.Println("é😀", greet.Greet("x"))',
    "\tvar g greet.Greeter = greet.English{}",
    '\tfmt.Println(g.Hello("y"))',
    "}",
  },
}

--- Greet's column on main.go's line 9 (from 0), by encoding.
M.greet_in_main = { ["utf-8"] = 29, ["utf-16"] = 26, ["utf-32"] = 25 }

--- Writes the module into the current directory.
function M.write_module()
  for name, lines in pairs(M.files) do
    vim.fn.mkdir(vim.fn.fnamemodify(name, ":h"), "p")
    vim.fn.writefile(lines, name)
  end
end

function M.uri(name)
  return vim.uri_from_fname(vim.fn.getcwd() .. "/" .. name)
end

local ids = {}

--- Starts (once) the client named name running gopls, and attaches it
--- to buf.
function M.attach(buf, name)
  name = name or "gopls"
  local config = { name = name, cmd = { M.path }, root_dir = vim.fn.getcwd() }
  -- Where Go is not on the tests' PATH (newer-editors.sh's chroots).
  if os.getenv("GEMINI_GOPLS_PATH") then
    config.cmd_env = { PATH = os.getenv("GEMINI_GOPLS_PATH") }
  end
  if vim.lsp.start then -- 0.8
    ids[name] = vim.lsp.start(config, {
      bufnr = buf,
      reuse_client = function(client, c)
        return client.name == c.name
      end,
    })
    return ids[name]
  end
  local id = ids[name] and vim.lsp.get_client_by_id(ids[name]) and ids[name]
  if not id then
    id = vim.lsp.start_client(config)
    ids[name] = id
  end
  vim.lsp.buf_attach_client(buf, id)
  return id
end

--- The user's configuration: gopls for every Go buffer, started from
--- FileType as vim.lsp.enable and nvim-lspconfig do.
function M.configure()
  assert(vim.fn.executable(M.path) == 1, "no gopls at $GEMINI_GOPLS (" .. M.path .. "): make langservers installs it")
  vim.cmd("filetype on")
  vim.api.nvim_create_autocmd("FileType", {
    pattern = "go",
    callback = function(a)
      M.attach(a.buf)
    end,
  })
end

--- The client named name, once started.
function M.client(name)
  return ids[name or "gopls"] and vim.lsp.get_client_by_id(ids[name or "gopls"])
end

return M
