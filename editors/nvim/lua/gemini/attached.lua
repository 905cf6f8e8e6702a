-- What completion and next edit suggestions share (complete.lua,
-- nextedit.lua): the gemini-ls client attached to a buffer, the per-buffer
-- debounce timer, the command an item carries, the autocmds that end a
-- buffer's work.
local M = {}

--- The gemini-ls client attached to buf, nil when there is none.
function M.client(buf)
  local gemini = require("gemini")
  local id = gemini.client_id
  local client = id and vim.lsp.get_client_by_id(id)
  if client and vim.lsp.buf_is_attached(buf, client.id) then
    return client
  end
end

--- Stops and closes s.timer, if there is one.
function M.stop_timer(s)
  if s.timer then
    s.timer:stop()
    if not s.timer:is_closing() then
      s.timer:close()
    end
    s.timer = nil
  end
end

--- Cancels s.request, the request under way on s.client, if there is one.
function M.cancel_request(s)
  if s.request and s.client then
    pcall(require("gemini").client_call, s.client, "cancel_request", s.request)
  end
  s.request = nil
end

--- Runs the command an item carries (gemini.acceptCompletion) on the server.
function M.run_command(client, command)
  if command and command.command then
    require("gemini").client_call(client, "request", "workspace/executeCommand",
      { command = command.command, arguments = command.arguments }, function() end)
  end
end

--- In group, abort(buf) when the user leaves buf (and on the events in
--- leave), and abort then forget(buf) when buf is wiped out.
function M.on_end(group, buf, leave, abort, forget)
  vim.api.nvim_create_autocmd(leave, {
    group = group,
    buffer = buf,
    callback = function()
      abort(buf)
    end,
  })
  vim.api.nvim_create_autocmd({ "BufWipeout" }, {
    group = group,
    buffer = buf,
    callback = function()
      abort(buf)
      forget(buf)
    end,
  })
end

return M
