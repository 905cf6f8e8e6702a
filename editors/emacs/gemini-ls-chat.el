;;; gemini-ls-chat.el --- The chat buffer of gemini-ls  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The gemini-ls authors

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

;; The chat buffer: its mode, the transcript and the prompt area below it.

;; A part of the gemini-ls package: gemini-ls.el loads it.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'eglot)
(require 'jsonrpc)
(require 'seq)
(require 'project)
(require 'markdown-mode nil t)
(require 'gemini-ls-server)

(declare-function gemini-ls--command-capf "gemini-ls-completion" (server &optional start-fn))
(declare-function gemini-ls--fold-button "gemini-ls-updates" ())
(declare-function gemini-ls--send "gemini-ls-protocol" (prompt context &optional server))
(declare-function gemini-ls-prompt "gemini-ls" (prompt))
(declare-function gemini-ls--read-few "gemini-ls-sessions" (prompt choices))
(declare-function gemini-ls-menu "gemini-ls" ())
(declare-function gemini-ls-toggle-thoughts "gemini-ls-updates" ())
(declare-function gemini-ls-rewind "gemini-ls-sessions" ())
(declare-function gemini-ls-sessions "gemini-ls-sessions" ())
(declare-function gemini-ls-new-session "gemini-ls-sessions" ())
(declare-function gemini-ls-cancel "gemini-ls" ())

;;;; Chat buffer

(defvar-local gemini-ls--chat-server nil "Server of the last prompt.")
(defvar-local gemini-ls--session-id nil "Session continued by the next prompt.")
(defvar-local gemini-ls--busy nil "Non-nil while a prompt runs.")
(defvar-local gemini-ls--running nil
  "The tool calls running, newest first.
Each is (KEY . TOOL-NAME), KEY the callId (a subagent's: see
`gemini-ls--subagent-call').")
(defvar-local gemini-ls--tool-lines nil "Alist: callId -> marker of the status text.")
(defvar-local gemini-ls--plan nil
  "The chat's plan, write_todos's list: (START . END) markers, or nil.")
(defvar-local gemini-ls--last-kind nil "Kind of the last update inserted.")
(defvar-local gemini-ls--subagents nil
  "Alist: invoke_agent callId -> (MARKER . LAST-KIND) of its subagent's block.
MARKER is where the block's next line goes, under the call's line;
LAST-KIND the kind of the block's last update.")
(defvar-local gemini-ls--modes nil
  "Alist: session id -> the approval mode the server last reported for it.")


(defface gemini-ls-thought '((t :inherit shadow :slant italic))
  "Face of thought lines."
  :group 'gemini-ls)
(defface gemini-ls-tool '((t :inherit font-lock-function-name-face))
  "Face of tool call lines."
  :group 'gemini-ls)
(defface gemini-ls-user '((t :inherit bold))
  "Face of the user's prompts."
  :group 'gemini-ls)

(defalias 'gemini-ls--chat-parent-mode
  (if (fboundp 'markdown-mode) #'markdown-mode #'text-mode))

;; The chat buffer is the transcript, read-only, then the prompt area: a
;; marker line, then what the user types, sent with C-c C-c.  What the
;; server says goes at the transcript's end, above the marker line
;; (`gemini-ls--output-end'), so a draft is never disturbed.

(defvar-local gemini-ls--output-end nil
  "Where the transcript ends: the next update is inserted here.
It advances over what is inserted at it.")
(defvar-local gemini-ls--input-start nil
  "Where the prompt being typed starts, after the marker line.")

(defface gemini-ls-prompt-marker '((t :inherit shadow))
  "Face of the line above the prompt area."
  :group 'gemini-ls)

(defconst gemini-ls--prompt-marker "── Prompt (C-c C-c sends) ──"
  "The line above the prompt area.")

(defvar gemini-ls-chat-mode-map
  (let ((map (make-sparse-keymap)))
    ;; gptel's key for sending; C-c C-c, defined after, is the one shown.
    (define-key map (kbd "C-c RET") #'gemini-ls-chat-send)
    (define-key map (kbd "C-c C-c") #'gemini-ls-chat-send)
    (define-key map (kbd "C-c C-k") #'gemini-ls-cancel)
    (define-key map (kbd "C-c C-n") #'gemini-ls-new-session)
    (define-key map (kbd "C-c C-s") #'gemini-ls-sessions)
    (define-key map (kbd "C-c C-r") #'gemini-ls-rewind)
    (define-key map (kbd "C-c C-t") #'gemini-ls-toggle-thoughts)
    ;; The menu: "dispatch", as magit's is called (agent-shell's C-c C-h
    ;; is one the key binding conventions keep for help).
    (define-key map (kbd "C-c C-d") #'gemini-ls-menu)
    (define-key map (kbd "M-p") #'gemini-ls-chat-previous-prompt)
    (define-key map (kbd "M-n") #'gemini-ls-chat-next-prompt)
    (define-key map (kbd "TAB") #'gemini-ls-chat-tab)
    map)
  "Keymap of `gemini-ls-chat-mode'.")

(defun gemini-ls-approval-mode ()
  "Return the chat session's approval mode.
\"default\", \"auto_edit\", \"plan\" or \"yolo\": the one the session
switched to, else the server's (`gemini/models' says it), else the one
configured."
  (with-current-buffer (gemini-ls--chat-buffer)
    (or (cdr (assoc gemini-ls--session-id gemini-ls--modes))
        (let ((server (cl-find-if (lambda (s) (and (cl-typep s 'gemini-ls-server)
                                                   (jsonrpc-running-p s)))
                                  (cons gemini-ls--chat-server gemini-ls--servers))))
          (and server (gemini-ls--server-approval-mode server)))
        (plist-get gemini-ls-initialization-options :approvalMode)
        "default")))

(defun gemini-ls--read-approval-mode ()
  "Read an approval mode, named as in Gemini CLI 0.61's choice of them."
  (let* ((current (gemini-ls-approval-mode))
         (choices (mapcar (lambda (m)
                            (cons (format "%s%s — %s" (nth 1 m)
                                          (if (equal (car m) current) " (current)" "")
                                          (nth 2 m))
                                  (car m)))
                          gemini-ls--approval-modes)))
    (cdr (assoc (gemini-ls--read-few "Approval mode: " (mapcar #'car choices))
                choices))))

;;;###autoload (autoload 'gemini-ls-set-approval-mode "gemini-ls" nil t)
(defun gemini-ls-set-approval-mode (mode)
  "Set the approval mode to MODE, for every session, as Shift+Tab does.
\"default\", \"auto_edit\", \"plan\" or \"yolo\"; asked, as Gemini CLI
0.61 names them, when called interactively.  A session that switched
itself (into plan mode, say) takes it too.  Sent to the server as
`workspace/didChangeConfiguration' (general.defaultApprovalMode); the
server may refuse (in a folder that is not trusted, only the default
mode runs) and says why, and the mode line then shows the mode it runs."
  (interactive (list (gemini-ls--read-approval-mode)))
  (unless (assoc mode gemini-ls--approval-modes)
    (user-error "No approval mode %s" mode))
  (let ((server (gemini-ls--chat-server)))
    (jsonrpc-notify server :workspace/didChangeConfiguration
                    (list :settings (list :general (list :defaultApprovalMode mode))))
    (with-current-buffer (gemini-ls--chat-buffer) (setq gemini-ls--modes nil))
    ;; The server handles messages in order: this is asked after the change.
    (gemini-ls--refresh-model server)))

(define-derived-mode gemini-ls-chat-mode gemini-ls--chat-parent-mode "Gemini"
  "Chat with the Gemini agent.  The answer streams in as Markdown.
Type a prompt below the marker line at the end and send it with
\\[gemini-ls-chat-send]; \\[gemini-ls-chat-previous-prompt] and \\[gemini-ls-chat-next-prompt] step through the prompts sent,
\\[gemini-ls-chat-tab] completes \"/commands\" and \"@files\".
\\{gemini-ls-chat-mode-map}"
  ;; What Gemini does, the model and the approval mode, as gptel's and
  ;; agent-shell's chats show them: in the header line.
  (setq header-line-format '(:eval (gemini-ls--header-line)))
  ;; What a subagent's report folds (`gemini-ls--insert-fold').
  (add-to-invisibility-spec 'gemini-ls-fold)
  ;; Lines wrap at words, as in agent-shell's buffers.
  (visual-line-mode 1)
  (add-to-invisibility-spec '(gemini-ls-thought . t))
  (add-hook 'completion-at-point-functions #'gemini-ls--input-capf nil t)
  ;; What is typed after the marker line does not take its hook.
  (setq-local text-property-default-nonsticky
              (cons '(modification-hooks . t) text-property-default-nonsticky))
  ;; As the answer grows above the prompt, the window scrolls just enough
  ;; to keep the prompt area at its bottom, under as much of the
  ;; transcript as fits, rather than recentring on it.
  (setq-local scroll-conservatively 101)
  (gemini-ls--make-prompt-area))

(defun gemini-ls--refuse-change (beg _end)
  "Refuse a change from BEG that reaches the prompt's marker line.
As read-only text is refused.  Typed text may inherit this hook: a
change to it alone is let through."
  (unless (or inhibit-read-only (>= beg gemini-ls--input-start))
    (signal 'text-read-only (list "The prompt's marker line"))))

(defun gemini-ls--make-prompt-area ()
  "Put the marker line and an empty prompt area at the buffer's end."
  (let ((inhibit-read-only t)
        (buffer-undo-list t))
    (goto-char (point-max))
    (let ((end (point)))
      (insert (propertize (concat "\n" gemini-ls--prompt-marker)
                          'face 'gemini-ls-prompt-marker
                          'font-lock-face 'gemini-ls-prompt-marker
                          'read-only t 'front-sticky '(read-only))
              ;; Its line break is not read-only, as read-only would stick
              ;; to what is typed after it (a `rear-nonsticky' property
              ;; would not last: markdown-mode's font-lock removes it);
              ;; its hook refuses changes to it instead.
              (propertize "\n" 'modification-hooks '(gemini-ls--refuse-change)))
      ;; Made after the marker line, which it would have advanced over.
      (setq gemini-ls--output-end (copy-marker end t)
            gemini-ls--input-start (copy-marker (point))))))

(defun gemini-ls--chat-buffer ()
  "The chat buffer, created on demand."
  (or (get-buffer "*gemini*")
      (with-current-buffer (get-buffer-create "*gemini*")
        (gemini-ls-chat-mode)
        (current-buffer))))

(defmacro gemini-ls--with-chat (&rest body)
  "Run BODY at the end of the chat's transcript, writable.
What BODY writes is sealed read-only and kept out of the undo list
\(see `gemini-ls--transcribe')."
  (declare (indent 0))
  `(with-current-buffer (gemini-ls--chat-buffer)
     (gemini-ls--transcribe (lambda () ,@body))))

(defun gemini-ls--transcribe (fn)
  "Call FN at the transcript's end in the chat buffer, writable.
What it changes is made read-only.  It is not undone by the user's
undo, which is for the prompt being typed: the undo list's positions,
all in the prompt area below, move by what the transcript grew."
  (let ((inhibit-read-only t)
        (size (buffer-size))
        (from (marker-position gemini-ls--output-end)))
    (let ((buffer-undo-list t)
          (after-change-functions
           (cons (lambda (beg _end _len) (setq from (min from beg)))
                 after-change-functions)))
      (save-excursion
        (goto-char gemini-ls--output-end)
        (funcall fn))
      (when (< from gemini-ls--output-end)
        (gemini-ls--wrap-prefixes from gemini-ls--output-end)))
    (when (< from gemini-ls--output-end)
      ;; Front-sticky: nothing can be typed before the transcript's start.
      (add-text-properties from gemini-ls--output-end '(read-only t front-sticky (read-only))))
    (let ((delta (- (buffer-size) size)))
      (unless (zerop delta)
        (setq buffer-undo-list (gemini-ls--shift-undo buffer-undo-list delta))
        (when (consp pending-undo-list)
          (setq pending-undo-list (gemini-ls--shift-undo pending-undo-list delta)))))))

(defun gemini-ls--wrap-prefixes (beg end)
  "Make the lines from BEG to END wrap under their text.
A long line continues past its indentation and its \"- \" or \"> \"
mark, as agent-shell's lines wrap, not at the window's left edge."
  (save-excursion
    (goto-char beg)
    (forward-line 0)
    (while (< (point) end)
      (looking-at " *\\(?:[-▸▾>] \\)?")
      (put-text-property (point) (min (1+ (line-end-position)) end)
                         'wrap-prefix (make-string (- (match-end 0) (match-beginning 0)) ?\s))
      (forward-line 1))))

(defun gemini-ls--shift-undo (list delta)
  "LIST, an undo list, with its buffer positions moved by DELTA."
  (if (not (listp list))
      list
    (mapcar
     (lambda (e)
       (pcase e
         ((pred integerp) (+ e delta))
         (`(,(and beg (pred integerp)) . ,(and end (pred integerp)))
          (cons (+ beg delta) (+ end delta)))
         (`(,(and text (pred stringp)) . ,(and pos (pred integerp)))
          ;; A negative position: point was at the deleted text's end.
          (cons text (if (< pos 0) (- pos delta) (+ pos delta))))
         (`(nil ,prop ,val ,(and beg (pred integerp)) . ,(and end (pred integerp)))
          (cl-list* nil prop val (+ beg delta) (+ end delta)))
         ;; Boundaries, (t . TIME), marker adjustments (markers move
         ;; themselves) and (apply ...) entries stay as they are.
         (_ e)))
     list)))

(defun gemini-ls--clear-transcript ()
  "Empty the chat's transcript, leaving the prompt area as it is."
  (with-current-buffer (gemini-ls--chat-buffer)
    (setq gemini-ls--tool-lines nil
          gemini-ls--subagents nil
          gemini-ls--plan nil
          gemini-ls--last-kind nil))
  (gemini-ls--with-chat (delete-region (point-min) (point))))

(defun gemini-ls--display-chat (chat)
  "Display the chat buffer CHAT.
A window that opens for it shows its end, and so follows what streams
in (see `gemini-ls--with-chat'); one already showing it is left alone."
  (let* ((shown (get-buffer-window chat t))
         (window (display-buffer chat)))
    (when (and window (not shown))
      (set-window-point window (with-current-buffer chat (point-max))))))

(defun gemini-ls--reveal (chat pos)
  "Scroll back to POS each window of CHAT whose start is below it.
A prompt sent shows with its answer even where the window showed the
prompt area alone (a new session's empty page): the transcript grows
above the prompt area, out of such a window's sight."
  (dolist (window (get-buffer-window-list chat nil t))
    (when (> (window-start window) pos)
      (set-window-start window pos))))

(defun gemini-ls--fresh-line ()
  "Start a new line unless at the beginning of one."
  (unless (bolp) (insert "\n")))

(defun gemini-ls--insert-styled (text face &optional invisible)
  "Insert TEXT in FACE, hidden under INVISIBLE's invisibility spec if set.
An overlay, not text properties: font-lock (markdown-mode's in the chat,
diff-mode's in a review) manages the `face' and `invisible' properties of
the text it fontifies."
  (let ((beg (point)))
    (insert text)
    (let ((ov (make-overlay beg (point) nil t nil)))
      (overlay-put ov 'face face)
      (overlay-put ov 'evaporate t)
      (when invisible (overlay-put ov 'invisible invisible)))))

;;;; The chat's prompt area

(defvar gemini-ls--history nil
  "The prompts sent, newest first: the chat's and the minibuffer's history.")
(defvar-local gemini-ls--history-pos nil
  "Which of `gemini-ls--history' is in the prompt area; nil: the draft.")
(defvar-local gemini-ls--draft nil
  "What was typed in the prompt area before the history replaced it.")

(defcustom gemini-ls-max-files 2000
  "How many of the project's files \"@\" offers at most in the chat.
A big checkout must not stall completion."
  :type 'integer
  :safe #'natnump
  :group 'gemini-ls)

(defun gemini-ls--in-input-p ()
  "Non-nil when point is in the chat's prompt area."
  (and gemini-ls--input-start (>= (point) gemini-ls--input-start)))

(defun gemini-ls--input ()
  "The prompt typed in the chat's prompt area."
  (buffer-substring-no-properties gemini-ls--input-start (point-max)))

(defun gemini-ls--set-input (text)
  "Put TEXT in the chat's prompt area, point at its end."
  (delete-region gemini-ls--input-start (point-max))
  (goto-char (point-max))
  (insert text))

(defun gemini-ls--chat-server ()
  "Return the server for a prompt from the chat.
The last prompt's, else the newest gemini-ls server running, else one
started for the project of the chat's directory."
  (with-current-buffer (gemini-ls--chat-buffer)
    (or (let ((s gemini-ls--chat-server)) (and s (jsonrpc-running-p s) s))
        (car (cl-remove-if-not #'jsonrpc-running-p gemini-ls--servers))
        (gemini-ls--server))))

(defun gemini-ls-chat-send ()
  "Send the prompt typed in the chat's prompt area, lines and all.
With nothing typed there, read the prompt in the minibuffer."
  (interactive)
  (let* ((chat (gemini-ls--chat-buffer))
         ;; Blank lines around it go; indentation inside it stays.
         (text (with-current-buffer chat
                 (string-trim (gemini-ls--input) "[ \t]*\n+" "[ \t\n]+"))))
    (if (string-blank-p text)
        (call-interactively #'gemini-ls-prompt)
      (gemini-ls--send text nil (with-current-buffer chat (gemini-ls--chat-server)))
      (with-current-buffer chat
        (unless (equal (car gemini-ls--history) text)
          (push text gemini-ls--history))
        (setq gemini-ls--history-pos nil gemini-ls--draft nil)
        (gemini-ls--set-input "")))))

(defun gemini-ls--step-history (n)
  "Put the prompt N older (negative: newer) in the prompt area.
Past the newest, the draft comes back."
  (with-current-buffer (gemini-ls--chat-buffer)
    (let* ((pos (or gemini-ls--history-pos -1))
           (to (+ pos n)))
      (cond ((>= to (length gemini-ls--history)) (user-error "No older prompt"))
            ((< to -1) (user-error "No newer prompt")))
      (when (= pos -1) (setq gemini-ls--draft (gemini-ls--input)))
      (setq gemini-ls--history-pos (and (>= to 0) to))
      (gemini-ls--set-input (if (>= to 0) (nth to gemini-ls--history) (or gemini-ls--draft ""))))))

(defun gemini-ls-chat-previous-prompt (n)
  "Put the Nth previous prompt sent in the prompt area."
  (interactive "p")
  (gemini-ls--step-history n))

(defun gemini-ls-chat-next-prompt (n)
  "Put the Nth next prompt sent (or the draft) in the prompt area."
  (interactive "p")
  (gemini-ls--step-history (- n)))

(defun gemini-ls-chat-tab ()
  "Complete \"/commands\" and \"@files\" in the prompt area.
On a folded line (a subagent's report), show or hide what it folds.
Elsewhere, do what TAB does in the chat's parent mode (Markdown: fold a
heading)."
  (interactive)
  (cond
   ((gemini-ls--in-input-p) (completion-at-point))
   ((gemini-ls--fold-button) (push-button (button-start (gemini-ls--fold-button))))
   (t
    (let ((parent (lookup-key (keymap-parent gemini-ls-chat-mode-map) (kbd "TAB"))))
      (call-interactively (if (commandp parent) parent #'indent-for-tab-command))))))

(defun gemini-ls--input-capf ()
  "Complete \"/name\" and \"@path\" in the chat's prompt area.
\"/name\" as its first word, \"@path\" anywhere."
  (when (gemini-ls--in-input-p)
    (let ((server (ignore-errors (gemini-ls--chat-server))))
      (when server
        (or (funcall (gemini-ls--command-capf server (lambda () gemini-ls--input-start)))
            (gemini-ls--file-capf server))))))

(defun gemini-ls--project-files (server)
  "Return SERVER's project's files relative to its root.
At most `gemini-ls-max-files' of them."
  (let* ((project (ignore-errors (eglot--project server)))
         (root (and project (project-root project))))
    (when root
      (mapcar (lambda (f) (file-relative-name f root))
              (seq-take (project-files project) gemini-ls-max-files)))))

(defun gemini-ls--file-capf (server)
  "Complete \"@path\" before point with SERVER's project's files.
The server reads the files a prompt names so."
  (when (looking-back "\\(?:^\\|[[:space:]]\\)@\\([^[:space:]@]*\\)"
                      (max gemini-ls--input-start (line-beginning-position)))
    (let ((start (match-beginning 1))
          (files (gemini-ls--project-files server)))
      (when files
        (list start (point) files :exclusive 'no)))))

(defun gemini-ls--elsewhere-p (session)
  "Non-nil if SESSION is an agent's that the chat does not show.
What it says and the answers to its questions then stay out of the
chat, which shows one session: the agents view opens the agent's."
  (and (gemini-ls--session-agent session)
       (not (equal session (gemini-ls--chat-value 'gemini-ls--session-id)))))

(defun gemini-ls--chat-value (var)
  "The value of VAR in the chat buffer; nil without a chat."
  (let ((chat (get-buffer "*gemini*")))
    (and chat (buffer-local-value var chat))))

(provide 'gemini-ls-chat)
;;; gemini-ls-chat.el ends here
