#!/usr/bin/env bash
# codecompanion.nvim (vendor/codecompanion.nvim.tar.xz, with plenary.nvim),
# unchanged, in a real interactive Neovim (0.11 or newer) in tmux, set up
# with the Lua block of README.md's "Use it as an ACP agent" (extracted
# from the README, so the README is what is tested), driving the real
# `gemini-ls acp` against fakegemini, which records what reaches the model:
#   edit_accepted: with notes.txt open, the model proposes an edit, the
#     chat shows its diff, g2 accepts it; codecompanion writes the file
#     (fs/write_text_file, which it answers with a null result); notes.txt's
#     window shows the edit, the file changed on disk, the model is told
#     the edit was applied, and the turn goes on to its answer.
#   shell_permission_names_command: the model runs a shell command; the
#     chat's approval prompt names the command (the permission request's
#     title), not "Agent requested permission"; g2 runs it.
# Run by editors/newer-editors.sh testing acp-clients; runs anywhere nvim,
# tmux and git are, with GEMINI_LS_BIN and FAKEGEMINI_BIN set. Prints
# "PASS name" or "FAIL name: why" per scenario and "N passed, N failed".
name=codecompanion
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
command -v nvim >/dev/null || { echo "codecompanion: nvim is not installed"; echo "0 passed, 1 failed"; exit 1; }

# The README's block, between its marker comment and the end of the fence.
snippet=$(awk '/make test-acp-clients runs this block \(editors\/acp-clients\/codecompanion\)/ { on = 1; next }
  on && /^```lua/ { body = 1; next } on && body && /^```/ { exit } body { print }' "$repo/README.md")
grep -q 'require("codecompanion").setup' <<<"$snippet" || { echo "codecompanion: no codecompanion block in README.md"; echo "0 passed, 1 failed"; exit 1; }

# start_nvim [FILE]: Neovim with only the two plugins and the README's
# setup, editing FILE (of the project) if given, as a user asking about it
# would be.
start_nvim() {
  cat >"$work/init.lua" <<EOF
vim.opt.runtimepath:prepend("$clients/plenary.nvim")
vim.opt.runtimepath:prepend("$clients/codecompanion.nvim")
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. "I"
EOF
  printf '%s\n' "$snippet" >>"$work/init.lua"
  start_editor nvim -u "$work/init.lua" "$@"
  if [ $# -gt 0 ]; then
    wait_for "Neovim to open $1" "$1" || return 1
  else
    wait_for "Neovim to start" '^~' || return 1
  fi
}

# prompt TEXT: opens the chat and sends TEXT as the user would.
prompt() {
  keys Escape
  type_text ":CodeCompanionChat"
  keys Enter
  wait_for "the chat buffer" 'CodeCompanion' || return 1
  keys i
  type_text "$1"
  keys Escape
  sleep 0.2
  keys Enter
}

edit_accepted() {
  printf 'hello\n' >"$work/project/notes.txt"
  start_fake '[
    {"chunks": [{"text": "I will edit notes.txt.\n"},
                {"call": {"name": "replace", "args": {"file_path": "notes.txt", "old_string": "hello", "new_string": "hello, world"}}}]},
    {"text": "The edit is in."}
  ]' || return 1
  start_nvim notes.txt || return 1
  prompt "Greet the world in notes.txt" || return 1
  wait_for "the edit's approval prompt" 'Proposed edits for .?notes.txt' 'g2.* - Accept' '\+hello, world' || return 1
  save_screen edit-proposed
  keys g2
  # Whether or not the turn goes on, what landed and what the model was
  # told say why.
  wait_for "the turn's answer" 'The edit is in' --for 300
  local answered=$? waited=$why
  # The other pane is notes.txt: the picture shows what the edit did to
  # it (fs/write_text_file wrote codecompanion's buffer of it).
  wait_for "notes.txt's window to show the edit" '(^|│)hello, world' 'notes\.txt' --for 100 \
    || bad "notes.txt's window does not show the edit" || return 1
  save_screen edit-accepted
  [ "$(cat "$work/project/notes.txt")" = "hello, world" ] || bad "notes.txt holds \"$(cat "$work/project/notes.txt")\", want the edit" || return 1
  [ "$(requests)" -ge 2 ] || bad "the edit landed but the model never got its result (1 request); codecompanion shows: $(grep -m1 -E 'error = ' <<<"$last_screen" | sed 's/^ *//')" || return 1
  local response
  response=$(function_response 2 replace)
  grep -q 'Successfully modified' <<<"$response" || bad "the edit landed but the model was told: $response" || return 1
  [ "$answered" = 0 ] || bad "$waited" || return 1
  [ "$(requests)" = 2 ] || bad "the model got $(requests) requests, want 2 (the prompt, the edit's result)" || return 1
}

shell_permission_names_command() {
  start_fake '[
    {"chunks": [{"call": {"name": "run_shell_command", "args": {"command": "echo shell-ran > ran.txt", "description": "Write ran.txt"}}}]},
    {"text": "The command ran."}
  ]' || return 1
  start_nvim || return 1
  prompt "Run the command" || return 1
  wait_for "the command's approval prompt" 'Please select an option' 'g2.* - Accept' || return 1
  save_screen shell-permission
  grep -q 'Agent requested permission' <<<"$last_screen" && { bad "the approval prompt says \"Agent requested permission\", not the command"; return 1; }
  grep -qE '^Execute: .*echo shell-ran > ran.txt' <<<"$last_screen" || bad "the approval prompt does not name the command (want a line \"Execute: ...echo shell-ran > ran.txt\")" || return 1
  keys g2
  wait_for "the turn's answer" 'The command ran' || return 1
  [ -f "$work/project/ran.txt" ] || bad "the command did not run (no ran.txt)" || return 1
}

scenario edit_accepted
scenario shell_permission_names_command
finish
