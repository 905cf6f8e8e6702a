-- review_autosave.sh's init.lua: review_init.lua's Neovim with everything
-- that writes buffers behind the user's back turned on: 'autowriteall',
-- and an auto-save autocmd as auto-save.nvim and the like set up, which
-- writes the buffer and then all buffers on TextChanged, TextChangedI,
-- InsertLeave, FocusLost and BufLeave. Each time it runs, the event and
-- the buffer's name are noted in $GEMINI_AUTOSAVE_LOG, for the test to see
-- that it ran in the proposal.
dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/review_init.lua")
vim.o.autowriteall = true
local log = assert(io.open(os.getenv("GEMINI_AUTOSAVE_LOG"), "a"))
vim.api.nvim_create_autocmd({ "TextChanged", "TextChangedI", "InsertLeave", "FocusLost", "BufLeave" }, {
  callback = function(a)
    log:write(a.event, " ", vim.api.nvim_buf_get_name(a.buf), "\n")
    log:flush()
    vim.cmd("silent! update")
    vim.cmd("silent! wall")
  end,
})
