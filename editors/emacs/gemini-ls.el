;;; gemini-ls.el --- Gemini coding agent through the gemini-ls language server  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The gemini-ls authors

;; Author: The gemini-ls authors
;; Maintainer: The gemini-ls authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: tools, convenience
;; URL: https://github.com/gemini-ls/gemini-ls
;; SPDX-License-Identifier: Apache-2.0

;; This file is not part of GNU Emacs.

;; Licensed under the Apache License, Version 2.0 (the "License"); you
;; may not use this file except in compliance with the License.  You may
;; obtain a copy of the License at
;;
;;     http://www.apache.org/licenses/LICENSE-2.0
;;
;; Unless required by applicable law or agreed to in writing, software
;; distributed under the License is distributed on an "AS IS" BASIS,
;; WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or
;; implied.  See the License for the specific language governing
;; permissions and limitations under the License.

;;; Commentary:

;; A client for gemini-ls, built on eglot.  It streams the agent's answer
;; into a chat buffer, asks before shell commands run, and shows every
;; change the agent proposes as a diff to accept or reject, whole or hunk
;; by hunk, before anything is answered to the server.  Reviews and
;; questions do not block Emacs: the server sends them as `gemini/request'
;; notifications, answered with `gemini/response' once the user decides.
;;
;; The chat talks to a gemini-ls of its own for each project, which eglot
;; manages for the chat alone: every file keeps the language server eglot
;; gives it (pyright, gopls, ...).  Completion as you type and the code
;; actions come through eglot in the modes you hand to gemini-ls with
;; `gemini-ls-register', for files that have no other language server.
;; `gemini-ls-install-server' installs the server.  See README.md.
;;
;; This file has the commands that send prompts, the menu and the code
;; actions; it loads the package's other parts, the gemini-ls-*.el
;; files, one concern each (the chat, the updates, confirmations,
;; reviews, sessions, agents, completion, installing, ...).

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'eglot)
(require 'jsonrpc)
(require 'diff-mode)
(require 'project)
(require 'iso8601)
(require 'url)
(require 'seq)
(require 'transient)
(require 'markdown-mode nil t)

(defgroup gemini-ls nil
  "Gemini coding agent through gemini-ls."
  :group 'tools
  :prefix "gemini-ls-")

;; Each option is in the part of the package it is of; all are in this
;; group.

;; The package's parts, each of one concern.
(require 'gemini-ls-server)
(require 'gemini-ls-install)
(require 'gemini-ls-chat)
(require 'gemini-ls-protocol)
(require 'gemini-ls-updates)
(require 'gemini-ls-language)
(require 'gemini-ls-completion)
(require 'gemini-ls-confirm)
(require 'gemini-ls-review)
(require 'gemini-ls-sessions)
(require 'gemini-ls-agents)

;;;###autoload
(defun gemini-ls-prompt (prompt)
  "Send PROMPT with the current file, the region or point, and diagnostics."
  (interactive (list (gemini-ls--read-prompt "Ask Gemini: ")))
  (when (string-blank-p prompt) (user-error "Empty prompt"))
  (gemini-ls--send prompt
                   (if (use-region-p)
                       (gemini-ls--context (region-beginning) (region-end))
                     (gemini-ls--context))))

;;;###autoload
(defun gemini-ls-prompt-region (beg end prompt)
  "Ask PROMPT about the region BEG..END."
  (interactive (if (use-region-p)
                   (list (region-beginning) (region-end)
                         (gemini-ls--read-prompt "Ask Gemini about the region: "))
                 (user-error "No region")))
  (gemini-ls--send prompt (gemini-ls--context beg end beg end)))

;;;###autoload
(defun gemini-ls-explain (beg end)
  "Ask Gemini to explain the region BEG..END (or the file)."
  (interactive (if (use-region-p) (list (region-beginning) (region-end))
                 (list nil nil)))
  (gemini-ls--send (if beg "Explain the selected code." "Explain this file.")
                   (gemini-ls--context beg end beg end)))

;;;###autoload
(defun gemini-ls-fix-diagnostics (beg end)
  "Ask Gemini to fix the diagnostics in the region BEG..END, else the file."
  (interactive (if (use-region-p) (list (region-beginning) (region-end))
                 (list nil nil)))
  (gemini-ls--send "Fix the diagnostics here."
                   (gemini-ls--context (or beg (point)) (or end beg (point))
                                       beg end)))

;;;###autoload
(defun gemini-ls-edit-region (beg end instruction)
  "Have Gemini rewrite the region BEG..END by INSTRUCTION.
Without an active region, the current line.  One model call, outside
the chat (gemini/editSelection); the rewrite is reviewed as any edit is,
hunk by hunk, and a message says what became of it."
  (interactive
   (append (if (use-region-p)
               (list (region-beginning) (region-end))
             (list (line-beginning-position) (min (point-max) (1+ (line-end-position)))))
           (list (read-string "Gemini, edit: "))))
  (when (string-blank-p instruction) (user-error "Empty instruction"))
  (unless buffer-file-name (user-error "Gemini edits files: this buffer visits none"))
  (let ((server (gemini-ls--server)))
    ;; The server reads the range in the text eglot has sent it.
    (eglot--signal-textDocument/didChange)
    (message "Gemini: editing the region...")
    (jsonrpc-async-request
     server :gemini/editSelection
     (list :textDocument (list :uri (gemini-ls--uri buffer-file-name))
           :range (list :start (eglot--pos-to-lsp-position beg)
                        :end (eglot--pos-to-lsp-position end))
           :instruction instruction)
     :timeout 86400
     :success-fn (lambda (result) (message "%s" (plist-get result :message)))
     :error-fn (lambda (err) (message "Gemini: %s" (plist-get err :message)))
     :timeout-fn #'ignore)))

;;;###autoload
(defun gemini-ls-cancel ()
  "Cancel the running prompt."
  (interactive)
  (let* ((chat (gemini-ls--chat-buffer))
         (session (buffer-local-value 'gemini-ls--session-id chat)))
    (unless session (user-error "No Gemini session to cancel"))
    (jsonrpc-notify (gemini-ls--server) :gemini/cancel
                    (list :sessionId session))))

;;;; The menu

(defun gemini-ls--menu-busy-p ()
  "Non-nil while there is a prompt to cancel."
  (gemini-ls--chat-value 'gemini-ls--busy))

(defun gemini-ls--menu-session-p ()
  "Non-nil once the chat has a session: it can be rewound."
  (gemini-ls--chat-value 'gemini-ls--session-id))

(defun gemini-ls--menu-model ()
  "The menu's line for the model, naming it."
  (format "Model (%s)…" (or (gemini-ls--model-indicator) "not known yet")))

(defun gemini-ls--menu-approval-mode ()
  "The menu's line for the approval mode, naming it."
  (format "Approval mode (%s)…"
          (or (nth 1 (assoc (gemini-ls-approval-mode) gemini-ls--approval-modes))
              (gemini-ls-approval-mode))))

;;;###autoload (autoload 'gemini-ls-menu "gemini-ls" nil t)
(transient-define-prefix gemini-ls-menu ()
  "The Gemini chat's commands in one menu, as gptel and agent-shell have.
In the chat, \\<gemini-ls-chat-mode-map>\\[gemini-ls-menu] opens it; elsewhere bind it, or
call `gemini-ls-menu' with \\[execute-extended-command]."
  [["Ask"
    ("p" "Send the prompt typed" gemini-ls-chat-send :if-derived gemini-ls-chat-mode)
    ("p" "Prompt…" gemini-ls-prompt :if-not-derived gemini-ls-chat-mode)
    ("r" "Ask about the region…" gemini-ls-prompt-region
     :if-not-derived gemini-ls-chat-mode :inapt-if-not use-region-p)
    ("e" "Explain" gemini-ls-explain :if-not-derived gemini-ls-chat-mode)
    ("f" "Fix the diagnostics" gemini-ls-fix-diagnostics :if-not-derived gemini-ls-chat-mode)
    ("E" "Edit the region…" gemini-ls-edit-region :if-not-derived gemini-ls-chat-mode)
    ("k" "Cancel the prompt" gemini-ls-cancel :inapt-if-not gemini-ls--menu-busy-p)]
   ["Session"
    ("n" "New session" gemini-ls-new-session)
    ("s" "Continue a session…" gemini-ls-sessions)
    ("x" "Delete a session…" gemini-ls-delete-session)
    ("A" "Agents" gemini-ls-agents)
    ("b" "Run in the background on GitHub…" gemini-ls-background)
    ("w" "Rewind…" gemini-ls-rewind :inapt-if-not gemini-ls--menu-session-p)
    ("c" "Show the chat" gemini-ls-chat :if-not-derived gemini-ls-chat-mode)]
   ["Settings"
    ("m" gemini-ls-model :description gemini-ls--menu-model)
    ("a" gemini-ls-set-approval-mode :description gemini-ls--menu-approval-mode)
    ("t" "Show or hide thoughts" gemini-ls-toggle-thoughts)
    ("l" "Sign in with Google" gemini-ls-login)]])

;;;; Code actions

;; The server's code actions (fix a diagnostic, explain the selection,
;; implement a TODO) each carry the `gemini.prompt' command.  eglot would
;; send it as a blocking `workspace/executeCommand' request, which the
;; server answers only once the whole prompt has ended: Emacs would be
;; frozen until eglot's timeout, and the answer lost.  So the command
;; goes through `gemini-ls--send' instead, like `gemini-ls-prompt'.
;; eglot 1.9 executes commands with `eglot-execute-command'; eglot 1.17
;; (Emacs 30) executes code actions with `eglot-execute' and declares
;; the former obsolete.  Both are specialised here, if eglot has them.

(defun gemini-ls--prompt-command-p (command)
  "Non-nil if COMMAND, a string or a symbol, names `gemini.prompt'."
  (equal (format "%s" command) "gemini.prompt"))

(defun gemini-ls--command-context (arg)
  "The `gemini/prompt' context of `gemini.prompt''s argument ARG.
ARG is a plist (:prompt :uri :range :diagnostics).  Range and
diagnostics mean nothing without the uri."
  (let ((uri (plist-get arg :uri))
        (range (plist-get arg :range))
        (diags (plist-get arg :diagnostics)))
    (when uri
      (append (list :uri uri)
              (when range (list :range range))
              (when (> (length diags) 0) (list :diagnostics diags))))))

(defun gemini-ls--run-prompt-command (server arguments)
  "Run `gemini.prompt' with ARGUMENTS on SERVER, streamed to the chat.
ARGUMENTS' first element is the plist (:prompt :uri :range :diagnostics)
or, as the server also accepts, the bare prompt string.  Returns nil at
once; the answer streams into the chat buffer."
  (let* ((arg (and (> (length arguments) 0) (elt arguments 0)))
         (prompt (if (stringp arg) arg (plist-get arg :prompt))))
    (unless (and (stringp prompt) (not (string-blank-p prompt)))
      (user-error "The gemini.prompt command needs a prompt"))
    (gemini-ls--send prompt (and (consp arg) (gemini-ls--command-context arg))
                     server)
    nil))

(when (cl-generic-p 'eglot-execute-command)
  (with-suppressed-warnings ((obsolete eglot-execute-command))
    (cl-defmethod eglot-execute-command ((server gemini-ls-server) command arguments)
      "Run `gemini.prompt' COMMAND with ARGUMENTS through the chat.
Other commands go to SERVER as eglot sends them."
      (if (gemini-ls--prompt-command-p command)
          (gemini-ls--run-prompt-command server arguments)
        (cl-call-next-method)))))

(defun gemini-ls--action-prompt-command (action)
  "Return the `gemini.prompt' command that ACTION would run, or nil.
ACTION is a Command, an ExecuteCommandParams or a CodeAction.  A
CodeAction with an edit is left to eglot, which applies the edit and
then executes the command through `eglot-execute' again."
  (let ((command (plist-get action :command)))
    (cond ((stringp command)
           (and (gemini-ls--prompt-command-p command) action))
          ((and (consp command) (not (plist-get action :edit))
                (gemini-ls--prompt-command-p (plist-get command :command)))
           command))))

(when (cl-generic-p 'eglot-execute)
  (cl-defmethod eglot-execute ((server gemini-ls-server) action)
    "Run ACTION through the chat if it runs `gemini.prompt'.
Other actions go to SERVER as eglot executes them."
    (let ((command (gemini-ls--action-prompt-command action)))
      (if command
          (gemini-ls--run-prompt-command server (plist-get command :arguments))
        (cl-call-next-method)))))

(provide 'gemini-ls)
;;; gemini-ls.el ends here
