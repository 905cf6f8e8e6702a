#!/usr/bin/env bash
# agent-shell (vendor/agent-shell.tar.xz, with acp.el and shell-maker),
# unchanged, in a real interactive Emacs (29.1 or newer) in tmux, set up
# with the Emacs Lisp block of README.md's "Use it as an ACP agent"
# (extracted from the README, so the README is what is tested), driving the
# real `gemini-ls acp` against fakegemini, which records what reaches the
# model:
#   reject_ends_turn: the model runs a shell command; the user rejects it
#     with the key the permission dialog offers, which agent-shell sends as
#     the outcome "cancelled" followed by session/cancel. Per ACP that
#     cancels the prompt turn: the turn ends, the command never runs, the
#     model is not asked again, and the next prompt tells the model the
#     operation was cancelled (not that the user declined the command).
#   cancelled_prompt_replayed_apart: a prompt cancelled (C-c C-c) before
#     the model said anything, then a second prompt answered; the session,
#     loaded in a new Emacs with agent-shell-session-restore-verbosity
#     `full', replays the two prompts as two prompts, not glued into one.
# Run by editors/newer-editors.sh trixie acp-clients; runs anywhere emacs,
# tmux and git are, with GEMINI_LS_BIN and FAKEGEMINI_BIN set. Prints
# "PASS name" or "FAIL name: why" per scenario and "N passed, N failed".
name=agent-shell
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
command -v emacs >/dev/null || { echo "agent-shell: emacs is not installed"; echo "0 passed, 1 failed"; exit 1; }

# The README's block, between its marker comment and the end of the fence.
snippet=$(awk '/make test-acp-clients runs this block \(editors\/acp-clients\/agent-shell\)/ { on = 1; next }
  on && /^```elisp/ { body = 1; next } on && body && /^```/ { exit } body { print }' "$repo/README.md")
grep -q "agent-shell-make-agent-config" <<<"$snippet" || { echo "agent-shell: no agent-shell block in README.md"; echo "0 passed, 1 failed"; exit 1; }

# start_emacs: a terminal Emacs with only the three packages and the
# README's config; gemini-ls preselected (agent-shell-preferred-agent-config)
# so M-x agent-shell asks no agent, saved sessions replayed in full, and a
# busy indicator that does not move.
start_emacs() {
  cat >"$work/init.el" <<EOF
(setq inhibit-startup-screen t)
(dolist (dir '("agent-shell" "acp.el" "shell-maker"))
  (add-to-list 'load-path (expand-file-name dir "$clients")))
EOF
  printf '%s\n' "$snippet" >>"$work/init.el"
  cat >>"$work/init.el" <<'EOF'
(setq agent-shell-preferred-agent-config 'gemini-ls)
(setq agent-shell-session-restore-verbosity 'full)
;; One frame for the busy animation: the pictures show "busy" without
;; catching a different frame each run (make screenshots stays quiet).
(setq agent-shell-busy-indicator-frames '("░░░░"))
EOF
  start_editor emacs -nw -Q -l "$work/init.el"
  wait_for "Emacs to start" '\*scratch\*' || return 1
}

# m_x COMMAND: runs COMMAND with M-x.
m_x() {
  keys M-x
  sleep 0.3
  type_text "$1"
  keys Enter
}

# new_shell: M-x agent-shell, and RET for its default choice, a new shell.
new_shell() {
  m_x agent-shell
  wait_for "agent-shell's choice of shell" 'Start shell \(default: New shell\)' || return 1
  keys Enter
  wait_for "agent-shell's prompt" '^ *❯' --for 300
}

# send TEXT: types TEXT at the shell's prompt and submits it.
send() {
  type_text "$1"
  keys Enter
}

# settle: a moment for anything the agent would still send to arrive.
settle() { sleep 2; }

reject_ends_turn() {
  start_fake '[
    {"chunks": [{"call": {"name": "run_shell_command", "args": {"command": "echo ran > ran.txt", "description": "Write ran.txt"}}}]},
    {"text": "Answer to the follow-up."}
  ]' || return 1
  start_emacs || return 1
  new_shell || return 1
  send "Run the command"
  wait_for "the permission dialog" 'Tool Permission' 'Reject \(' || return 1
  save_screen permission
  # The command shows once (the request's title; its content asks), and no
  # "Always Allow" is spoken of where none is offered.
  [ "$(grep -c 'echo ran > ran.txt' <<<"$last_screen")" = 1 ] \
    || bad "the permission dialog shows the command $(grep -c 'echo ran > ran.txt' <<<"$last_screen") times, want once" || return 1
  ! grep -qi 'always' <<<"$last_screen" \
    || bad "the permission dialog speaks of always allowing a command it cannot always allow" || return 1
  local reject
  reject=$(grep -oE 'Reject \([^)]+\)' <<<"$last_screen" | head -1 | sed -E 's/Reject \((.*)\)/\1/')
  [ "$reject" = "C-c C-c" ] || bad "the dialog offers Reject with \"$reject\", want C-c C-c (agent-shell-interrupt)" || return 1
  keys C-c C-c
  wait_for "the turn to end" 'Cancelled|cancelled' '^ *❯ *$'
  local ended=$? waited=$why
  settle
  save_screen rejected
  [ ! -e "$work/project/ran.txt" ] || bad "the rejected command ran" || return 1
  [ "$(requests)" = 1 ] || bad "the model got $(requests) requests, want 1: it was asked again after the turn was cancelled" || return 1
  [ "$ended" = 0 ] || bad "$waited" || return 1
  # Whether the model is asked again races the session/cancel that
  # follows; what the session kept does not: the next prompt's request
  # tells the model how the call ended.
  send "What happened?"
  wait_for "the follow-up's answer" 'Answer to the follow-up' || return 1
  local response
  response=$(function_response 2 run_shell_command)
  grep -q 'cancelled the operation' <<<"$response" || bad "the model was told of the command: $response, want that the user cancelled the operation" || return 1
}

cancelled_prompt_replayed_apart() {
  start_fake '[
    {"delay": "60s", "text": "Too late: the first prompt was cancelled."},
    {"text": "Answer to the second question."}
  ]' || return 1
  start_emacs || return 1
  new_shell || return 1
  send "first question"
  # Cancelled while the model has said nothing: the prompt has no answer.
  wait_requests 1 "the first prompt to reach the model" || return 1
  keys C-c C-c
  # agent-shell-confirm-interrupt (on by default) asks first.
  wait_for "the interrupt's confirmation" 'Interrupt' || return 1
  keys y
  wait_for "the prompt back" '^ *❯ *$' || return 1
  send "second question"
  wait_for "the second answer" 'Answer to the second question' '^ *❯ *$' || return 1
  save_screen before-load
  tm kill-server 2>/dev/null
  sleep 0.5

  # A new Emacs: M-x agent-shell offers the saved session.
  start_emacs || return 1
  m_x agent-shell
  wait_for "the session choice" 'Start shell' || return 1
  type_text "proj"
  keys Tab
  sleep 0.3
  keys Enter
  wait_for "the replayed session" 'second question' 'Answer to the second question' '^ *❯ *$' --for 300 || return 1
  save_screen loaded
  # agent-shell's chat mode labels each user message " Me ": the two
  # prompts are apart when a label stands between them.
  local shown
  shown=$(awk '/^first question *$/ { f = NR } /^second question *$/ { s = NR }
    f && !s && NR > f && /^ Me *$/ { m = 1 }
    END { print (f && s && m) ? "apart" : "glued" }' <<<"$last_screen")
  [ "$shown" = apart ] || bad "the replay shows the cancelled prompt and the next as one message: $(grep -m1 'first question.*second question\|^first question' <<<"$last_screen")" || return 1
}

scenario reject_ends_turn
scenario cancelled_prompt_replayed_apart
finish
