;;; init.el --- gemini-ls with stock eglot: what editors/emacs/README.md tells users to add  -*- lexical-binding: t -*-
;; stock-eglot.sh loads this after eglot, with gemini-ls on PATH. Every
;; line of it is in the README's "Without the package: stock eglot"
;; section; the test checks that they stay the same.

(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs
               '((prog-mode text-mode) . ("gemini-ls" "serve"))))
;; Emacs 29+'s eglot shows the conversation's transcript, which gemini-ls
;; rewrites after each prompt: reread it without asking.
(add-to-list 'revert-without-query "/gemini-ls/transcripts/")

(defun my-gemini-command (command &rest arguments)
  "Run gemini-ls's COMMAND with ARGUMENTS; it answers at once."
  (eglot--signal-textDocument/didChange) ; the buffer's edits first, as eglot does
  (jsonrpc-request (eglot--current-server-or-lose) :workspace/executeCommand
                   `(:command ,command :arguments ,(vconcat arguments))))

(defun my-gemini-prompt (prompt)
  "Ask Gemini PROMPT about the current file; the answer comes as a message."
  (interactive "sAsk Gemini: ")
  (my-gemini-command "gemini.prompt"
                     `(:prompt ,prompt
                       ,@(and buffer-file-name
                              `(:uri ,(eglot--path-to-uri buffer-file-name))))))

(defun my-gemini-cancel ()
  "Cancel the running Gemini prompt."
  (interactive)
  (my-gemini-command "gemini.cancel"))

(defun my-gemini-new-conversation ()
  "Start a new Gemini conversation: the next prompt starts over."
  (interactive)
  (my-gemini-command "gemini.newSession"))
