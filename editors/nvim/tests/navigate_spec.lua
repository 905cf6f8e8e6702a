-- script: navigate.json
-- The model's navigate_code and rename_symbol answered by gopls through
-- Neovim (gemini/languageFeature): gopls attached to the Go buffers as a
-- second client, as the user's configuration attaches it; the rename's
-- edit of two files reviewed as every edit of the agent is.
local gemini = require("gemini")
local gopls = require("gopls")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })
local review = gemini.review
gopls.write_module()
gopls.configure()

-- The outputs of the tool calls request n (1-based) to the model answered.
local function tool_outputs(n)
  local i, req = 0, nil
  for line in io.lines(os.getenv("GEMINI_REQUESTS")) do
    i = i + 1
    if i == n then
      req = vim.json.decode(line)
    end
  end
  assert(req, "no request " .. n)
  local contents = req.body.contents
  local out = {}
  for _, p in ipairs(contents[#contents].parts) do
    if p.functionResponse then
      table.insert(out, p.functionResponse.response.output or ("error: " .. tostring(p.functionResponse.response.error)))
    end
  end
  return out
end

local function run(text)
  local done
  gemini.prompt(text, nil, function(err, result)
    done = { err = err, result = result }
  end)
  return function()
    wait_for("the prompt to end", function() return done ~= nil end, 40000)
    eq(nil, done.err, "error")
    eq("end_turn", done.result.stopReason, "stopReason")
  end
end

local function has(text, want)
  assert(text:find(want, 1, true), "no " .. vim.inspect(want) .. " in:\n" .. text)
end

describe("navigate_code and rename_symbol through Neovim's language servers", function()
  it("lists the references gopls finds, from the editor's language servers", function()
    vim.cmd("edit main.go")
    wait_for("gopls on main.go", function()
      local c = gopls.client()
      return c and c.initialized and vim.lsp.buf_is_attached(0, c.id)
    end)
    run("where is Greet used?")()
    local out = tool_outputs(2)
    eq(1, #out, "outputs")
    eq("3 references to Greet (from the editor's language servers):\n"
      .. "greet/greet.go\n  4: func Greet(name string) string {\n  18: \treturn Greet(name)\n"
      .. 'main.go\n  10: \tfmt.Println("é😀", greet.Greet("x"))', out[1], "navigate_code's references")
  end)

  it("renames across files: gopls' edit reviewed file by file, accepted", function()
    local finish = run("rename Greet to Salute")
    local reviewed = {}
    for i = 1, 2 do
      wait_for("the review of file " .. i, function() return review.current ~= nil end, 40000)
      local r = review.current
      local name = vim.fn.fnamemodify(r.path, ":.")
      local proposal = table.concat(vim.api.nvim_buf_get_lines(r.buf, 0, -1, false), "\n")
      assert(proposal:find("Salute", 1, true) and not proposal:find("%f[%w_]Greet%f[^%w_]"), name .. " proposed:\n" .. proposal)
      -- One applyEdit of both files, annotated with the rename's title.
      eq(string.format("Gemini: Rename Greet to Salute (file %d of 2)", i), r.label, "review " .. i)
      reviewed[name] = true
      review.accept(r)
    end
    finish()
    eq({ ["greet/greet.go"] = true, ["main.go"] = true }, reviewed, "the files reviewed")
    local greet = read_file("greet/greet.go")
    has(greet, "// Salute says hello.\nfunc Salute(name string) string {")
    has(greet, "\treturn Salute(name)\n")
    has(read_file("main.go"), 'greet.Salute("x")')
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) and vim.api.nvim_buf_get_name(buf):match("%.go$") then
        local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
        assert(not text:find("%f[%w_]Greet%f[^%w_]"), vim.api.nvim_buf_get_name(buf) .. " holds Greet:\n" .. text)
        eq(false, vim.bo[buf].modified, vim.api.nvim_buf_get_name(buf) .. " modified")
      end
    end
    local out = tool_outputs(4)
    eq(1, #out, "outputs")
    eq("Rename Greet to Salute (proposed by the editor's language servers): 4 edits in 2 files changed: greet/greet.go (3 edits), main.go (1 edit).", out[1], "rename_symbol's result")
  end)
end)
