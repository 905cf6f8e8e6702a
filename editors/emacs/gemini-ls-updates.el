;;; gemini-ls-updates.el --- The agent's updates in the chat  -*- lexical-binding: t; -*-

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

;; How each `gemini/update' shows in the chat: text, thoughts, tool calls,
;; subagents' work and reports, notes.

;; A part of the gemini-ls package: gemini-ls.el loads it.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'eglot)
(require 'jsonrpc)
(require 'seq)
(require 'project)
(require 'gemini-ls-server)
(require 'gemini-ls-chat)

(defun gemini-ls--subagent-block (params)
  "Return the block of the subagent whose update PARAMS is.
Made on its first update, under its invoke_agent call's line (at the
end without one)."
  (let ((parent (plist-get params :parentCallId)))
    (or (cdr (assoc parent gemini-ls--subagents))
        (let ((m (cdr (assoc parent gemini-ls--tool-lines))))
          (if m
              (progn (goto-char m) (forward-line 1))
            (goto-char gemini-ls--output-end)
            (gemini-ls--fresh-line))
          (gemini-ls--insert-styled
           (format "  %s:\n" (or (plist-get params :agentName) "subagent"))
           'shadow)
          ;; Not advancing on insertion: the main agent's text appended at
          ;; the end of the buffer stays after the block.
          (cdr (car (push (cons parent (cons (point-marker) nil)) gemini-ls--subagents)))))))

(defun gemini-ls--subagent-call (params)
  "The key of a subagent's call in `gemini-ls--tool-lines', from PARAMS:
each subagent numbers its calls its own way, so its call_1 is not the
main agent's."
  (concat (plist-get params :parentCallId) "/" (plist-get params :callId)))

(defun gemini-ls--insert-subagent-update (kind params)
  "Show a subagent's update of KIND with PARAMS, indented under its call."
  (let* ((block (gemini-ls--subagent-block params))
         (m (car block))
         (last (cdr block)))
    (goto-char m)
    (pcase kind
      ("text"
       (unless (or (equal last "text") (bolp)) (insert "\n"))
       ;; Each line indented as it starts, so none ends in spaces.
       (let ((first t))
         (dolist (line (split-string (or (plist-get params :text) "") "\n"))
           (unless first (insert "\n"))
           (setq first nil)
           (unless (string-empty-p line)
             (when (bolp) (insert "    "))
             (insert line)))))
      ("thought"
       (gemini-ls--fresh-line)
       (gemini-ls--insert-styled
        (format "    > thought: %s\n" (or (plist-get params :subject) "…"))
        'gemini-ls-thought))
      ("toolCall"
       (gemini-ls--fresh-line)
       (gemini-ls--insert-styled (format "    - %s " (or (plist-get params :title)
                                                        (plist-get params :name)))
                                 'gemini-ls-tool)
       (let ((status (point-marker)))
         (insert "[running]\n")
         (push (cons (gemini-ls--subagent-call params) status) gemini-ls--tool-lines)))
      ("toolResult"
       (let ((status (cdr (assoc (gemini-ls--subagent-call params) gemini-ls--tool-lines))))
         (if (not status)
             (progn (gemini-ls--fresh-line)
                    (insert (format "    - %s [%s]\n" (plist-get params :name)
                                    (plist-get params :status))))
           (save-excursion
             (goto-char status)
             (when (looking-at "\\[[a-z]+\\]")
               (replace-match (format "[%s]" (plist-get params :status)) t t))))))
      ("error"
       ;; The subagent's failure: the prompt goes on, so no warning.
       (gemini-ls--fresh-line)
       (gemini-ls--insert-styled (format "    Error: %s\n" (plist-get params :message))
                                 'error))
      ("retry"
       (gemini-ls--fresh-line)
       (gemini-ls--insert-styled (concat "    > " (gemini-ls--retry-note params) "\n")
                                 'shadow)))
    (set-marker m (max m (point)))
    (unless (equal kind "usage") (setcdr block kind))))

(defun gemini-ls--end-subagent (params)
  "End the block of the subagent of the invoke_agent call of PARAMS.
PARAMS is the call's toolResult: the subagent's report, indented,
closes the block."
  (let* ((entry (assoc (plist-get params :callId) gemini-ls--subagents))
         (block (cdr entry))
         (report (string-trim (or (plist-get params :display) ""))))
    (when entry
      (goto-char (car block))
      (gemini-ls--fresh-line)
      (unless (string-empty-p report)
        (gemini-ls--insert-report report 4))
      (set-marker (car block) nil)
      (setq gemini-ls--subagents (delq entry gemini-ls--subagents)))))

;;;; A subagent's report

;; A subagent reports in words, or, as codebase_investigator does, with a
;; JSON object, which gemini-ls shows in a ```json block.  The chat shows
;; such a report as prose: its summary, then its other fields folded under
;; a line that RET or TAB unfolds, as agent-shell folds what a tool did.

(defun gemini-ls--report-object (report)
  "The JSON object in REPORT, in a ```json block or bare; else nil.
Objects are alists in their order, arrays vectors, null nil."
  (let ((text (string-trim report)))
    (when (string-match "\\````[[:alnum:]]*\n\\(\\(?:.\\|\n\\)*\\)\n```\\'" text)
      (setq text (match-string 1 text)))
    (when (string-prefix-p "{" text)
      (ignore-errors
        (json-parse-string text :object-type 'alist :array-type 'array
                           :null-object nil :false-object :false)))))

(defun gemini-ls--report-summary (object)
  "The entry of OBJECT, a report, that sums it up, or nil.
A text under a key naming a summary, such as \"SummaryOfFindings\"."
  (cl-find-if (lambda (entry)
                (and (stringp (cdr entry))
                     (string-match-p "summary" (symbol-name (car entry)))))
              object))

(defun gemini-ls--field-words (key)
  "KEY, a report's field name, in words: FilePath is \"File path\"."
  (let* ((case-fold-search nil)
         (words (downcase (replace-regexp-in-string
                           "\\([[:lower:][:digit:]]\\)\\([[:upper:]]\\)" "\\1 \\2"
                           (replace-regexp-in-string "_" " " (symbol-name key)) t))))
    (concat (upcase (substring words 0 1)) (substring words 1))))

(defun gemini-ls--json-empty-p (value)
  "Non-nil if VALUE, parsed JSON, is empty: null, \"\", [] or {}."
  (or (null value) (equal value "") (equal value [])))

(defun gemini-ls--json-scalar (value)
  "VALUE, a JSON string, number or boolean, as text; nil for others."
  (cond ((stringp value) value)
        ((numberp value) (number-to-string value))
        ((eq value t) "yes")
        ((eq value :false) "no")))

(defun gemini-ls--prose (value indent)
  "VALUE, parsed JSON, as lines of prose: a list of (INDENT . TEXT).
An object's fields are \"Field: value\" lines, or a \"Field:\" line over
what it holds, indented; an array's items \"- \" lines; empty fields
are left out."
  (cond
   ((gemini-ls--json-scalar value)
    (mapcar (lambda (line) (cons indent line))
            (split-string (gemini-ls--json-scalar value) "\n")))
   ((vectorp value)
    (cl-loop for item across value
             for lines = (gemini-ls--prose item (+ indent 2))
             when lines
             do (setcar lines (cons indent (concat "- " (cdar lines))))
             and append lines))
   (t
    (cl-loop for (key . field) in value
             unless (gemini-ls--json-empty-p field)
             append
             (let ((name (gemini-ls--field-words key))
                   (text (gemini-ls--json-scalar field)))
               (if (and text (not (string-search "\n" text)))
                   (list (cons indent (format "%s: %s" name text)))
                 (cons (cons indent (concat name ":"))
                       (gemini-ls--prose field (+ indent 2)))))))))

(defun gemini-ls--insert-report (report indent)
  "Insert REPORT, a subagent's, INDENT columns in.
A JSON object as prose: its summary, then its other fields folded."
  (let* ((object (gemini-ls--report-object report))
         (summary (and object (gemini-ls--report-summary object)))
         (details (and object (cl-remove-if (lambda (e) (or (eq e summary)
                                                           (gemini-ls--json-empty-p (cdr e))))
                                            object)))
         (pad (make-string indent ?\s)))
    (cond
     ((not object)
      (insert pad "Report: " (replace-regexp-in-string "\n" (concat "\n" pad) report) "\n"))
     ((not summary)
      (insert pad "Report:\n")
      (gemini-ls--insert-prose (gemini-ls--prose object (+ indent 2))))
     (t
      (insert pad "Report: " (cdr summary) "\n")
      (when details
        (gemini-ls--insert-fold
         pad (format "Details: %s" (mapconcat (lambda (e) (downcase (gemini-ls--field-words (car e))))
                                              details ", "))
         (lambda () (gemini-ls--insert-prose (gemini-ls--prose details (+ indent 2))))))))))

(defun gemini-ls--insert-prose (lines)
  "Insert LINES, a list of (INDENT . TEXT)."
  (pcase-dolist (`(,indent . ,text) lines)
    (insert (make-string indent ?\s) text "\n")))

(defface gemini-ls-fold '((t :inherit shadow))
  "Face of the line over folded text in the chat."
  :group 'gemini-ls)

(defvar gemini-ls-fold-map
  (let ((map (make-sparse-keymap)))
    (set-keymap-parent map button-map)
    ;; Emacs 29's button-map moves to the next button on TAB.
    (define-key map (kbd "TAB") #'push-button)
    map)
  "Keys on the line over folded text: RET or TAB shows or hides it.")

(define-button-type 'gemini-ls-fold
  'action #'gemini-ls--toggle-fold
  'keymap gemini-ls-fold-map
  'follow-link t
  'face 'gemini-ls-fold
  'help-echo "RET or TAB: show or hide what is folded here")

(defun gemini-ls--insert-fold (pad label insert-body)
  "Insert the line PAD LABEL, then the text from calling INSERT-BODY, folded.
The line is a button that shows or hides the text."
  (let ((start (point)))
    (insert pad)
    (let ((button-start (point)))
      (insert "▸ " label)
      (let ((button (make-button button-start (point) :type 'gemini-ls-fold)))
        (insert "\n")
        (let ((body-start (point)))
          (funcall insert-body)
          (let ((body (make-overlay body-start (point) nil t nil)))
            (overlay-put body 'invisible 'gemini-ls-fold)
            (overlay-put body 'evaporate t)
            (overlay-put button 'gemini-ls-body body)))))
    start))

(defun gemini-ls--toggle-fold (button)
  "Show or hide the text folded under BUTTON."
  (let* ((body (overlay-get button 'gemini-ls-body))
         (hidden (not (overlay-get body 'invisible)))
         (inhibit-read-only t))
    (overlay-put body 'invisible (and hidden 'gemini-ls-fold))
    (let ((at (overlay-start button)))
      ;; In place: the button's overlay keeps its text.
      (subst-char-in-region at (1+ at) (if hidden ?▾ ?▸) (if hidden ?▸ ?▾) t))))

(defun gemini-ls--fold-button ()
  "The fold button on the line at point, or nil."
  (let ((button (next-button (line-beginning-position) t)))
    (and button (eq (button-type button) 'gemini-ls-fold)
         (<= (button-start button) (line-end-position))
         button)))

(defconst gemini-ls--update-handlers
  '(("text" . gemini-ls--show-text)
    ("thought" . gemini-ls--show-thought)
    ("toolCall" . gemini-ls--show-tool-call)
    ("toolResult" . gemini-ls--show-tool-result)
    ("usage" . gemini-ls--take-usage)
    ("error" . gemini-ls--show-error)
    ("retry" . gemini-ls--show-retry)
    ("compressed" . gemini-ls--show-compressed)
    ("notice" . gemini-ls--show-notice)
    ("mode" . gemini-ls--show-mode)
    ("model" . gemini-ls--take-model)
    ("topic" . gemini-ls--show-topic)
    ("plan" . gemini-ls--show-plan-update)
    ("commands" . gemini-ls--forget-commands))
  "Each kind of the main agent's `gemini/update': (KIND . HANDLER).
HANDLER is called with the server (nil when not known) and the
update's params, at the end of the chat's transcript.  The kinds are
docs/protocol.md's; the tests hold them to docs/protocol.schema.json.")

(defun gemini-ls--insert-update (kind params &optional server)
  "Handle the update of KIND with PARAMS from SERVER, in the chat.
A subagent's shows under its call; the main agent's goes to its
handler in `gemini-ls--update-handlers', at the end of the chat."
  (gemini-ls--note-running kind params)
  (gemini-ls--with-chat
    (if (plist-get params :parentCallId)
        (gemini-ls--insert-subagent-update kind params)
      (let ((handler (alist-get kind gemini-ls--update-handlers nil nil #'equal)))
        (when handler (funcall handler server params)))
      (unless (equal kind "usage") (setq gemini-ls--last-kind kind)))))

(defun gemini-ls--note-running (kind params)
  "Keep `gemini-ls--running' up to date, for the mode line.
KIND and PARAMS are the update's."
  (when (member kind '("toolCall" "toolResult"))
    (let ((key (if (plist-get params :parentCallId)
                   (gemini-ls--subagent-call params)
                 (plist-get params :callId))))
      (with-current-buffer (gemini-ls--chat-buffer)
        (setq gemini-ls--running (cl-remove key gemini-ls--running :key #'car :test #'equal))
        (when (equal kind "toolCall")
          (push (cons key (or (plist-get params :title) (plist-get params :name) "a tool"))
                gemini-ls--running))))
    (gemini-ls--status-changed)))

(defun gemini-ls--show-text (_server params)
  "Show the answer's text in PARAMS, streamed on after what came before."
  (when (member gemini-ls--last-kind '("thought" "toolCall" "toolResult" "told"))
    (gemini-ls--fresh-line))
  (insert (or (plist-get params :text) "")))

(defun gemini-ls--show-thought (_server params)
  "Show the thought in PARAMS: its subject, and its folded description."
  (gemini-ls--fresh-line)
  (let ((subject (plist-get params :subject))
        (desc (or (plist-get params :description) "")))
    (gemini-ls--insert-styled (format "> thought: %s" (or subject "…"))
                              'gemini-ls-thought)
    ;; The description is folded (shown as "...") until
    ;; `gemini-ls-toggle-thoughts'.
    (unless (string-empty-p desc)
      (gemini-ls--insert-styled
       (concat "\n> " (replace-regexp-in-string "\n" "\n> " (string-trim desc)))
       'gemini-ls-thought 'gemini-ls-thought))
    (insert "\n")))

(defun gemini-ls--show-tool-call (server params)
  "Show the tool call in PARAMS as running, until its result comes.
Its kind is a tag after its status; the file it is about, a line under
it, a button that opens the file at the call's line (the file named
from SERVER's project, as the server names files); the to-do list
write_todos sets, the chat's plan (`gemini-ls--show-plan')."
  (gemini-ls--fresh-line)
  (gemini-ls--insert-styled (format "- %s " (or (plist-get params :title)
                                                (plist-get params :name)))
                            'gemini-ls-tool)
  (let ((m (point-marker))
        (kind (plist-get params :toolKind))
        (path (plist-get params :path)))
    (insert "[running]")
    (when (and (stringp kind) (not (member kind '("" "other"))))
      (insert " ")
      (gemini-ls--insert-styled (format "(%s)" kind) 'shadow))
    (insert "\n")
    (push (cons (plist-get params :callId) m) gemini-ls--tool-lines)
    (when (and (stringp path) (not (string-empty-p path)))
      (gemini-ls--insert-location server path (plist-get params :line)))
    (let ((todos (plist-get params :todos)))
      (when (or (vectorp todos) (and todos (listp todos)))
        (gemini-ls--show-plan (append todos nil))))))

(define-button-type 'gemini-ls-location
  'action #'gemini-ls--follow-location
  'help-echo "Open the file at the call's line"
  'follow-link t)

(defun gemini-ls--call-file (server path)
  "The absolute name of a call's file PATH, relative to SERVER's project root."
  (expand-file-name path (or (and server (ignore-errors (project-root (eglot--project server))))
                             default-directory)))

(defun gemini-ls--insert-location (server path line)
  "Insert the line of a call's file PATH, at LINE: a button that opens it.
PATH is relative to SERVER's project root, or absolute."
  (let* ((file (gemini-ls--call-file server path))
         (line (and (integerp line) (> line 0) line)))
    (insert "  → ")
    (insert-text-button (if line (format "%s:%d" path line) path)
                        'type 'gemini-ls-location
                        'gemini-ls-file file 'gemini-ls-line line)
    (insert "\n")))

(defun gemini-ls--follow-location (button)
  "Open the file of BUTTON, a call's location, at its line."
  (find-file-other-window (button-get button 'gemini-ls-file))
  (let ((line (button-get button 'gemini-ls-line)))
    (when line
      (goto-char (point-min))
      (forward-line (1- line)))))

(defconst gemini-ls--todo-marks
  '(("pending" . "○") ("in_progress" . "◐") ("completed" . "✓")
    ("cancelled" . "⊘") ("blocked" . "✗"))
  "How the plan marks each status of a to-do.")

(defun gemini-ls--show-plan-update (_server params)
  "Show the plan in PARAMS as the chat's plan.
The model wrote it as a checklist; it is shown as write_todos's list
\(`gemini-ls--show-plan')."
  (let ((todos (plist-get params :todos)))
    (when (or (vectorp todos) (and todos (listp todos)))
      (gemini-ls--show-plan (append todos nil)))))

(defun gemini-ls--plan-text (todos)
  "The chat's plan for TODOS, write_todos's list, as lines of text."
  (if (null todos)
      "> Plan: none (the to-do list was cleared)\n"
    (concat "> Plan:\n"
            (mapconcat (lambda (todo)
                         (format "> %s %s\n"
                                 (or (cdr (assoc (plist-get todo :status) gemini-ls--todo-marks)) "?")
                                 (plist-get todo :description)))
                       todos ""))))

(defun gemini-ls--show-plan (todos)
  "Show TODOS, write_todos's list, as the chat's one plan.
The first list goes at point; each later one replaces the last."
  (let ((text (gemini-ls--plan-text todos)))
    (if (and gemini-ls--plan (marker-buffer (car gemini-ls--plan)))
        (save-excursion
          (goto-char (car gemini-ls--plan))
          (delete-region (car gemini-ls--plan) (cdr gemini-ls--plan))
          (gemini-ls--insert-styled text 'gemini-ls-plan)
          (set-marker (cdr gemini-ls--plan) (point)))
      (let ((start (point-marker)))
        (gemini-ls--insert-styled text 'gemini-ls-plan)
        (setq gemini-ls--plan (cons start (point-marker)))))))

(defface gemini-ls-plan '((t :inherit font-lock-doc-face))
  "Face of the chat's plan, the model's to-do list."
  :group 'gemini-ls)

(defun gemini-ls--show-tool-result (_server params)
  "Show the status in PARAMS on its tool call's line."
  (let* ((call (plist-get params :callId))
         (m (cdr (assoc call gemini-ls--tool-lines)))
         (outcome (plist-get params :outcome))
         ;; An edit the user's review took in part says so, in the
         ;; server's words ("accepted in part: 1 of 2 changes").
         (status (format "[%s]" (if (and (stringp outcome) (not (string-empty-p outcome)))
                                    outcome
                                  (plist-get params :status)))))
    (if (not m)
        (progn (gemini-ls--fresh-line)
               (insert (format "- %s %s\n" (plist-get params :name) status)))
      (save-excursion
        (goto-char m)
        (when (looking-at "\\[[a-z]+\\]")
          (replace-match status t t)))))
  (save-excursion (gemini-ls--end-subagent params)))

(defun gemini-ls--show-error (_server params)
  "Show the error in PARAMS with its fixes, and warn of it once."
  (gemini-ls--fresh-line)
  (gemini-ls--insert-styled (format "Error: %s\n" (plist-get params :message))
                            'error)
  (gemini-ls--insert-fixes (plist-get params :errorKind))
  (gemini-ls--warn-once (plist-get params :message)))

;;;; A failure's fixes, chosen from its kind

(defvar-local gemini-ls--error-kind nil
  "The kind of the chat's last failure (errorKind), or nil.
`gemini-ls-fix-error' offers its fixes; a new prompt forgets it.")

(defconst gemini-ls--fixes
  '((login "Sign in with Google" gemini-ls-login)
    (model "Switch model" gemini-ls-model)
    (quota "Open the quota page" gemini-ls-open-quota-page)
    (retry "Retry" gemini-ls-retry))
  "The fixes of a failure: their names, labels and commands.")

(defconst gemini-ls--fixes-by-kind
  '(("no_api_key" login) ("invalid_api_key" login) ("expired_api_key" login)
    ("unauthenticated" login retry) ("sign_in_required" login)
    ("permission_denied" login retry)
    ("quota" model quota retry) ("rate_limited" retry model) ("network" retry)
    ("server_error" retry model) ("unknown_model" model))
  "The fixes each kind of failure offers, the likeliest first.
The kinds are the server's errorKind words, never a message's words.  A
key is set in GEMINI_API_KEY outside Emacs, so signing in is the fix
Emacs offers for one refused.")

(defun gemini-ls--fixes-of (kind)
  "The fixes failures of KIND offer, as (LABEL . COMMAND)."
  (mapcar (lambda (name)
            (let ((fix (alist-get name gemini-ls--fixes)))
              (cons (car fix) (cadr fix))))
          (cdr (assoc kind gemini-ls--fixes-by-kind))))

(define-button-type 'gemini-ls-fix
  'action (lambda (button) (call-interactively (button-get button 'gemini-ls-command)))
  'follow-link t
  'help-echo "mouse-1, RET: run this fix")

(defun gemini-ls--insert-fixes (kind)
  "Insert a line of buttons running the fixes of KIND, and keep KIND.
Nothing is inserted for a kind with no fix."
  (setq gemini-ls--error-kind kind)
  (when-let ((fixes (gemini-ls--fixes-of kind)))
    (insert "Fix:")
    (dolist (fix fixes)
      (insert " ")
      (let ((beg (point)))
        (insert "[" (car fix) "]")
        (make-button beg (point) :type 'gemini-ls-fix 'gemini-ls-command (cdr fix))))
    (insert "  (M-x gemini-ls-fix-error)\n")))

(defun gemini-ls-open-quota-page ()
  "Open Google AI Studio's page of the API key's quota and usage."
  (interactive)
  (browse-url "https://aistudio.google.com/usage"))

(defun gemini-ls-fix-error ()
  "Offer the fixes of the chat's last failure, and run the one chosen."
  (interactive)
  (let* ((kind (buffer-local-value 'gemini-ls--error-kind (gemini-ls--chat-buffer)))
         (fixes (gemini-ls--fixes-of kind)))
    (unless fixes (user-error "Gemini: no failure to fix"))
    (let ((label (completing-read "Fix: " (mapcar #'car fixes) nil t)))
      (call-interactively (cdr (assoc label fixes))))))

(defun gemini-ls--show-retry (_server params)
  "Show that the model call is retried, as PARAMS tell."
  (gemini-ls--fresh-line)
  (gemini-ls--insert-styled (concat "> " (gemini-ls--retry-note params) "\n") 'shadow))

(defun gemini-ls--show-notice (_server params)
  "Show the notice in PARAMS."
  (gemini-ls--fresh-line)
  (gemini-ls--insert-styled (format "> Note: %s\n" (plist-get params :message)) 'warning))

(defun gemini-ls--show-mode (_server params)
  "Note the session's approval mode in PARAMS, for the mode line, and show it."
  (let ((session (plist-get params :sessionId)))
    (when session
      (setf (alist-get session gemini-ls--modes nil nil #'equal)
            (plist-get params :mode))
      (force-mode-line-update)))
  (gemini-ls--fresh-line)
  (gemini-ls--insert-styled (format "> mode: %s\n" (plist-get params :mode)) 'shadow))

(defun gemini-ls--show-compressed (_server params)
  "Show that the conversation was compressed, from and to the tokens in PARAMS."
  (gemini-ls--fresh-line)
  (gemini-ls--insert-styled
   (format "> Note: the conversation was compressed (%s → %s tokens)\n"
           (plist-get params :tokensBefore) (plist-get params :tokensAfter))
   'warning))

(defface gemini-ls-topic '((t :inherit bold))
  "Face of the topic's line in the chat."
  :group 'gemini-ls)

(defun gemini-ls--show-topic (_server params)
  "Show the topic in PARAMS: its title, its summary when new, the intent.
The model names the session's topic with update_topic: the title, and
what it means to do now; a new topic comes with the summary of its
start."
  (let ((title (plist-get params :title))
        (summary (and (eq (plist-get params :newTopic) t) (plist-get params :text)))
        (intent (plist-get params :intent)))
    (gemini-ls--fresh-line)
    (gemini-ls--insert-styled (format "> Topic: %s\n" (or title "…")) 'gemini-ls-topic)
    (dolist (line (list summary (and intent (concat "Now: " intent))))
      (unless (or (null line) (string-empty-p line))
        (gemini-ls--insert-styled (concat "> " (string-trim line) "\n") 'shadow)))))

(defun gemini-ls--take-model (server params)
  "Make the model in PARAMS SERVER's, for every session (/model set)."
  (when server
    (setf (gemini-ls--server-model server)
          (list :current (plist-get params :model) :name (plist-get params :name)))
    (force-mode-line-update t)))

(defun gemini-ls--take-usage (server params)
  "Note the model that answered, in PARAMS, as SERVER's main agent's.
And, in the chat, what its session has cost (`gemini-ls--usage')."
  (when (and server (plist-get params :model))
    (setf (gemini-ls--server-model server)
          (plist-put (gemini-ls--server-model server) :answered (plist-get params :model))))
  (let ((session (plist-get params :sessionId))
        (sums (plist-get params :sessionUsage)))
    (when session
      (setq gemini-ls--usage
            (cons (cons session (list :total (or (plist-get sums :totalTokens) 0)
                                      :cached (or (plist-get sums :cachedTokens) 0)
                                      :used (or (plist-get params :contextUsed) 0)
                                      :size (or (plist-get params :contextSize) 0)))
                  (assoc-delete-all session gemini-ls--usage)))))
  (force-mode-line-update t))

(defun gemini-ls--retry-note (params)
  "\"Rate-limited ...; retrying in 2 s (attempt 1)\" for a retry update's PARAMS."
  (let* ((secs (/ (or (plist-get params :delayMs) 0) 1000.0))
         (reason (or (plist-get params :reason) ""))
         (reason (if (string-empty-p reason) "the model call failed" reason)))
    (format "%s; retrying in %s s (attempt %d)"
            (concat (upcase (substring reason 0 1)) (substring reason 1))
            (if (= secs (ffloor secs)) (format "%d" secs) (format "%.1f" secs))
            (or (plist-get params :attempt) 1))))

(defun gemini-ls--stop-note (reason)
  "Return the chat's note on a prompt that ended for REASON.
Not end_turn; in words, as the protocol's names mean nothing to a
reader."
  (pcase reason
    ("cancelled" "[Cancelled.]")
    ("max_tokens" "[Stopped: the answer reached the model's output limit; what came is above.]")
    ("max_turns" "[Stopped: the session reached its limit of model requests.]")
    ("error" "[Stopped by an error.]")
    ("loop_detected"
     "[Stopped: Gemini was repeating itself (a loop was detected), so the turn was ended.  Rephrase or narrow the request to go on.]")
    (_ (format "[Stopped (%s).]" reason))))

(defun gemini-ls--warn-once (msg)
  "Show MSG as a warning, once per distinct message."
  (when (and msg (not (gethash msg gemini-ls--warned)))
    (puthash msg t gemini-ls--warned)
    (display-warning 'gemini-ls msg :error)))

(cl-defmethod eglot-handle-notification
  ((server gemini-ls-server) (_ (eql gemini/update)) &rest params
   &key &allow-other-keys)
  "Stream SERVER's update of a prompt, PARAMS, into the chat buffer."
  (gemini-ls--handle-update server params))

(defun gemini-ls--handle-update (server params)
  "Take SERVER's `gemini/update' PARAMS, as the chat's entry point.
The chat follows the server and the session of the update; then the
update goes to the handler of its kind.  An agent's update is left
out unless the chat shows the agent's session (`gemini-ls-agents'):
agents run beside the chat, in worktrees of their own."
  (let ((session (plist-get params :sessionId)))
    (unless (gemini-ls--elsewhere-p session)
      (with-current-buffer (gemini-ls--chat-buffer)
        (setq gemini-ls--chat-server server)
        (when (and session (null gemini-ls--session-id))
          (setq gemini-ls--session-id session)))
      (gemini-ls--insert-update (plist-get params :kind) params server))))

;;;; What the user must know: start-up problems

;; The server tells of a problem that does not stop it (a settings file
;; ignored, an MCP server that did not start, a hook that cannot run) with
;; window/showMessage, which eglot shows in the echo area, where the next
;; message hides it.  The chat, where the user looks, says it too, once.

(defvar-local gemini-ls--told nil
  "What the chat has told of the servers' problems, so each is told once.")

(defun gemini-ls--tell (words &optional face)
  "Say WORDS, a problem the user must know of, in the chat, once.
As a quoted note in FACE (`warning' by default), lines and all."
  (let ((chat (gemini-ls--chat-buffer)))
    (unless (member words (buffer-local-value 'gemini-ls--told chat))
      (with-current-buffer chat (push words gemini-ls--told))
      (gemini-ls--with-chat
        (gemini-ls--fresh-line)
        (gemini-ls--insert-styled
         (concat "> " (replace-regexp-in-string "\n" "\n> " (string-trim words)) "\n")
         (or face 'warning))
        (setq gemini-ls--last-kind "told")))))

(cl-defmethod eglot-handle-notification :after
  ((_server gemini-ls-server) (_method (eql window/showMessage)) &key type message
   &allow-other-keys)
  "Tell in the chat the server's MESSAGE of TYPE 1 or 2, an error or a warning.
eglot has shown it in the echo area already."
  (when (and (numberp type) (<= type 2) (stringp message))
    (gemini-ls--tell (concat (if (eql type 1) "Error: " "Warning: ")
                             (string-remove-prefix "Gemini: " message))
                     (if (eql type 1) 'error 'warning))))

(defun gemini-ls-toggle-thoughts ()
  "Show or hide the thoughts' text in the chat."
  (interactive)
  (with-current-buffer (gemini-ls--chat-buffer)
    (if (assq 'gemini-ls-thought buffer-invisibility-spec)
        (remove-from-invisibility-spec '(gemini-ls-thought . t))
      (add-to-invisibility-spec '(gemini-ls-thought . t)))
    (force-window-update (current-buffer))))

(provide 'gemini-ls-updates)
;;; gemini-ls-updates.el ends here
