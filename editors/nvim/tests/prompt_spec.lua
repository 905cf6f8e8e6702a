-- script: prompt.json
local gemini = require("gemini")
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })

local function requests()
  local out = {}
  for line in io.lines(os.getenv("GEMINI_REQUESTS")) do
    table.insert(out, line)
  end
  return out
end

local function chat_text()
  return table.concat(vim.api.nvim_buf_get_lines(gemini.chat.buf, 0, -1, false), "\n")
end

local function keys(k)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(k, true, false, true), "mx", false)
end

describe("prompt area", function()
  it("opens under the chat with :Gemini and sends a multi-line prompt as typed", function()
    vim.cmd("edit notes.txt")
    vim.cmd("Gemini")
    local p = gemini.prompt_area
    eq(p.buf, vim.api.nvim_get_current_buf(), "focused buffer")
    eq("markdown", vim.bo[p.buf].filetype, "filetype")
    eq("nofile", vim.bo[p.buf].buftype, "buftype")
    local win = vim.api.nvim_get_current_win()
    local chat_win = vim.fn.bufwinid(gemini.chat.buf)
    assert(chat_win ~= -1, "chat not shown")
    -- Under the chat: same column, lower row.
    local pw, cw = vim.api.nvim_win_get_position(win), vim.api.nvim_win_get_position(chat_win)
    eq(cw[2], pw[2], "column of the prompt window")
    assert(pw[1] > cw[1], "prompt window not under the chat")
    local hint = vim.fn.has("nvim-0.8") == 1 and vim.wo[win].winbar or vim.wo[win].statusline
    eq("<C-s> send · <C-c> cancel · <Up>/<Down> history · / commands · @ files", hint, "key hints")
    keys("<Esc>first line<CR><CR>third<CR>  fourth, indented<C-s>")
    wait_for("the prompt to end", function() return chat_text():find("Two lines read.", 1, true) ~= nil end)
    wait_for("the prompt to end", function() return not gemini.state.prompt_running end)
    eq({ "" }, vim.api.nvim_buf_get_lines(p.buf, 0, -1, false), "prompt area after sending")
    assert(chat_text():find("## Prompt\n\nfirst line\n\nthird\n  fourth, indented\n\n## Gemini", 1, true), chat_text())
    local last = requests()[#requests()]
    assert(last:find("first line\\n\\nthird\\n  fourth, indented", 1, true), "model got: " .. last:sub(1, 2000))
  end)

  it("sends with <CR> in normal mode from the chat's <CR>, and steps through the history", function()
    vim.cmd("stopinsert")
    local chat_win = vim.fn.bufwinid(gemini.chat.buf)
    vim.api.nvim_set_current_win(chat_win)
    keys("<CR>")
    local p = gemini.prompt_area
    eq(p.buf, vim.api.nvim_get_current_buf(), "the chat's <CR> focuses the prompt area")
    keys("<Esc>isecond prompt<Esc><CR>")
    wait_for("the answer", function() return chat_text():find("Second answer.", 1, true) ~= nil end)
    wait_for("the prompt to end", function() return not gemini.state.prompt_running end)
    vim.api.nvim_set_current_win(vim.fn.bufwinid(p.buf))
    keys("idraft<Esc>")
    keys("<Up>")
    eq({ "second prompt" }, vim.api.nvim_buf_get_lines(p.buf, 0, -1, false), "one back")
    keys("<C-p>")
    eq({ "first line", "", "third", "  fourth, indented" }, vim.api.nvim_buf_get_lines(p.buf, 0, -1, false), "two back")
    keys("<Up>")
    eq({ "first line", "", "third", "  fourth, indented" }, vim.api.nvim_buf_get_lines(p.buf, 0, -1, false), "past the oldest")
    keys("<Down>")
    eq({ "second prompt" }, vim.api.nvim_buf_get_lines(p.buf, 0, -1, false), "one forward")
    keys("<C-n>")
    eq({ "draft" }, vim.api.nvim_buf_get_lines(p.buf, 0, -1, false), "back to the draft")
  end)

  it("completes /commands with their descriptions and @files", function()
    local p = gemini.prompt_area
    vim.api.nvim_set_current_win(vim.fn.bufwinid(p.buf))
    vim.api.nvim_buf_set_lines(p.buf, 0, -1, false, { "/he" })
    vim.api.nvim_win_set_cursor(0, { 1, 3 })
    eq(0, p.omnifunc(1, ""), "start of /he")
    local items = p.omnifunc(0, "/he")
    eq(1, #items, "items for /he: " .. vim.inspect(items))
    eq("/help", items[1].word, "word")
    assert(items[1].menu ~= "", "no description")
    local all = p.omnifunc(0, "/")
    local names = {}
    for _, i in ipairs(all) do names[i.word] = true end
    assert(names["/help"] and names["/chat"], "built-ins missing: " .. vim.inspect(all))
    vim.api.nvim_buf_set_lines(p.buf, 0, -1, false, { "look at @num" })
    vim.api.nvim_win_set_cursor(0, { 1, 12 })
    eq(8, p.omnifunc(1, ""), "start of @num")
    eq({ { word = "@numbers.txt", menu = "file" } }, p.omnifunc(0, "@num"), "files")
    vim.api.nvim_buf_set_lines(p.buf, 0, -1, false, { "a / b" })
    vim.api.nvim_win_set_cursor(0, { 1, 3 })
    eq(-3, p.omnifunc(1, ""), "a / inside the text")
    -- Typing "@" opens the menu.
    vim.api.nvim_buf_set_lines(p.buf, 0, -1, false, { "" })
    local seen
    vim.api.nvim_create_autocmd("CompleteChanged", { once = true, callback = function() seen = vim.fn.complete_info({ "items" }).items end })
    keys("isee @<C-r>=''<CR>")
    wait_for("the file menu", function() return seen ~= nil end, 3000)
    local words = {}
    for _, i in ipairs(seen) do table.insert(words, i.word) end
    table.sort(words)
    eq({ "@notes.txt", "@numbers.txt" }, words, "menu on @")
    keys("<C-e><Esc>")
  end)

  it("keeps :Gemini text sending directly", function()
    vim.cmd("stopinsert")
    vim.cmd("wincmd t")
    vim.cmd("Gemini third prompt")
    wait_for("the answer", function() return chat_text():find("Third answer.", 1, true) ~= nil end)
    wait_for("the prompt to end", function() return not gemini.state.prompt_running end)
    eq("third prompt", gemini.prompt_area.history[#gemini.prompt_area.history], "history")
  end)
end)
