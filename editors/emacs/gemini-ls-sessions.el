;;; gemini-ls-sessions.el --- Sessions of gemini-ls: resume, delete, rewind, sign in  -*- lexical-binding: t; -*-

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

;; Listing, resuming and deleting sessions, rewinding one, and signing in.

;; A part of the gemini-ls package: gemini-ls.el loads it.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'eglot)
(require 'jsonrpc)
(require 'seq)
(require 'project)
(require 'iso8601)
(require 'gemini-ls-server)
(require 'gemini-ls-chat)
(require 'gemini-ls-updates)


;;;###autoload (autoload 'gemini-ls-new-session "gemini-ls" nil t)
(defun gemini-ls-new-session ()
  "Start a new session with the next prompt, on an empty chat.
As a new chat of agent-shell or Copilot starts on a clean page; the
session left stays on the list of `gemini-ls-sessions'.  What is typed
in the prompt area stays."
  (interactive)
  (with-current-buffer (gemini-ls--chat-buffer)
    (when gemini-ls--busy
      (user-error "Gemini is still working; M-x gemini-ls-cancel first"))
    (setq gemini-ls--session-id nil)
    (gemini-ls--clear-transcript)
    (force-mode-line-update)))

(defun gemini-ls--time (stamp)
  "The time of STAMP, an RFC 3339 string, or nil."
  (and (stringp stamp)
       (ignore-errors (encode-time (iso8601-parse stamp)))))

(defun gemini-ls--ago (stamp &optional now)
  "When STAMP was, for people: \"just now\", \"5 min ago\", ..., a date.
NOW defaults to the current time."
  (let ((time (gemini-ls--time stamp)))
    (if (not time)
        (or stamp "")
      (let ((s (float-time (time-subtract (or now (current-time)) time))))
        (cond ((< s 60) "just now")
              ((< s 3600) (format "%d min ago" (floor s 60)))
              ((< s 86400) (format "%d h ago" (floor s 3600)))
              ((< s (* 2 86400)) "yesterday")
              ((< s (* 7 86400)) (format "%d days ago" (floor s 86400)))
              (t (format-time-string "%Y-%m-%d" time)))))))

(defun gemini-ls--session-title (session)
  "SESSION's title, or what stands for one it lacks."
  (let ((title (plist-get session :title)))
    (if (string-empty-p (or title "")) "(untitled session)" title)))

(defun gemini-ls--session-label (session &optional now)
  "Return the row of the session list for SESSION, as of NOW.
Its title, number of prompts and when it was last used; \"saved\"
marks a session kept on disk that is not live in the server."
  (let ((n (or (plist-get session :prompts) 0)))
    (format "%s  (%d %s, %s%s)"
            (gemini-ls--session-title session)
            n (if (= n 1) "prompt" "prompts")
            (gemini-ls--ago (or (plist-get session :updatedAt)
                                (plist-get session :createdAt))
                            now)
            (if (eq (plist-get session :live) :json-false) ", saved" ""))))

(defun gemini-ls--list-sessions (server)
  "The sessions of SERVER's workspace, live and saved, most recent first.
Falls back to `gemini/sessions' on servers without `gemini/listSessions'."
  (let* ((project (ignore-errors (eglot--project server)))
         (root (and project (project-root project)))
         (sessions
          (condition-case err
              (plist-get (jsonrpc-request
                          server :gemini/listSessions
                          (if root
                              (list :root (gemini-ls--uri (expand-file-name root)))
                            (make-hash-table)))
                         :sessions)
            (jsonrpc-error
             (if (gemini-ls--method-not-found-p err)
                 (plist-get (jsonrpc-request server :gemini/sessions nil) :sessions)
               (signal (car err) (cdr err)))))))
    (sort (append sessions nil)
          (lambda (a b)
            (time-less-p (or (gemini-ls--time (plist-get b :updatedAt)) 0)
                         (or (gemini-ls--time (plist-get a :updatedAt)) 0))))))

(defun gemini-ls--insert-transcript (title exchanges)
  "Show a continued session TITLE and its EXCHANGES in the chat.
In place of what the chat showed: one session a page."
  (gemini-ls--clear-transcript)
  (gemini-ls--with-chat
    (insert (format "*Continuing: %s*\n" title)))
  (gemini-ls--insert-exchanges exchanges))

(defun gemini-ls--insert-exchanges (exchanges)
  "Show EXCHANGES, what a session asked and answered, in the chat."
  (gemini-ls--with-chat
    (dolist (e exchanges)
      (insert "\n")
      (gemini-ls--insert-styled (concat "## You\n\n" (plist-get e :prompt) "\n")
                                'gemini-ls-user)
      (insert "\n## Gemini\n\n" (or (plist-get e :answer) ""))
      (gemini-ls--fresh-line)
      (let ((reason (plist-get e :stopReason)))
        (when (and reason (not (equal reason "end_turn")))
          (gemini-ls--insert-styled (concat "\n" (gemini-ls--stop-note reason) "\n")
                                    'warning))))))

(defun gemini-ls--adopt-mode (session result)
  "Take SESSION's approval mode from the `gemini/resumeSession' RESULT.
Older servers say none; then the mode is left as it was."
  (let ((mode (plist-get result :mode)))
    (when (and (stringp mode) (not (string-empty-p mode)))
      (with-current-buffer (gemini-ls--chat-buffer)
        (setf (alist-get session gemini-ls--modes nil nil #'equal) mode))
      (force-mode-line-update t))))

(defun gemini-ls--adopt-usage (server result)
  "Take what the session has cost from SERVER's `gemini/resumeSession' RESULT.
Its `usage' is a usage update, as SERVER sends after an answer: it goes
where those go, so the header line shows the session's tokens and
context at once, not at its next answer.  Older servers, and sessions
that never answered, send none; then nothing changes."
  (let ((usage (plist-get result :usage)))
    (when usage
      (gemini-ls--insert-update "usage" usage server))))

(defun gemini-ls-resume (id &optional title server)
  "Continue session ID (TITLE for the chat) of SERVER.
The server resumes it, a session saved by an earlier server too, and the
chat shows its earlier prompts and answers; the next prompt continues it."
  (let* ((server (or server (gemini-ls--server)))
         (chat (gemini-ls--chat-buffer)))
    (condition-case err
        (let* ((result (jsonrpc-request server :gemini/resumeSession
                                        (list :sessionId id)))
               (session (plist-get result :session)))
          (with-current-buffer chat
            (setq gemini-ls--session-id (or (plist-get session :sessionId) id)
                  gemini-ls--chat-server server)
            (gemini-ls--adopt-mode gemini-ls--session-id result)
            (gemini-ls--adopt-usage server result))
          (gemini-ls--insert-transcript (or (plist-get session :title) title id)
                                        (append (plist-get result :exchanges) nil)))
      (jsonrpc-error
       (if (gemini-ls--method-not-found-p err)
           ;; An older server: its sessions are live ones, continued by id.
           (with-current-buffer chat
             (setq gemini-ls--session-id id
                   gemini-ls--chat-server server)
             (gemini-ls--insert-transcript (or title id) nil))
         (let ((msg (format "Could not continue the session: %s"
                            (alist-get 'jsonrpc-error-message (cdr err)))))
           (gemini-ls--with-chat
             (gemini-ls--fresh-line)
             (gemini-ls--insert-styled (concat msg "\n") 'error))
           (message "%s" msg)))))
    (gemini-ls--display-chat chat)))

;;;###autoload (autoload 'gemini-ls-sessions "gemini-ls" nil t)
(defun gemini-ls-sessions ()
  "Continue a session of this workspace, live or saved by an earlier server."
  (interactive)
  (let* ((server (gemini-ls--server))
         (session (gemini-ls--read-session server "Continue session: ")))
    (when session
      (gemini-ls-resume (plist-get session :sessionId)
                        (plist-get session :title) server))))

(defun gemini-ls--read-session (server prompt)
  "Read one of SERVER's sessions with PROMPT, the most recent offered first.
Return its row of `gemini/listSessions', a plist; nil for empty input."
  (let* ((now (current-time))
         (choices (mapcar (lambda (s)
                            (cons (gemini-ls--session-label s now) s))
                          (gemini-ls--list-sessions server))))
    (unless choices (user-error "No Gemini sessions yet"))
    (cdr (assoc (completing-read
                 prompt
                 ;; Keep the most recent first.
                 (lambda (str pred action)
                   (if (eq action 'metadata)
                       '(metadata (display-sort-function . identity))
                     (complete-with-action action choices str pred)))
                 nil t)
                choices))))

;;;###autoload (autoload 'gemini-ls-delete-session "gemini-ls" nil t)
(defun gemini-ls-delete-session ()
  "Delete a session of this workspace, live or saved, once you confirm.
As `gemini --delete-session' does: its conversation and its saved file
go.  Deleting the session the chat shows starts a new one there."
  (interactive)
  (let* ((server (gemini-ls--server))
         (session (gemini-ls--read-session server "Delete session: ")))
    (when session
      (gemini-ls--delete-session server session))))

(defun gemini-ls--delete-session (server session)
  "Delete SESSION, a `gemini/listSessions' row, of SERVER if the user agrees.
Return non-nil if it was deleted."
  (let ((id (plist-get session :sessionId))
        (title (gemini-ls--session-title session)))
    (when (yes-or-no-p
           (format "Delete the session “%s”, its conversation and its saved file, for good? "
                   title))
      (condition-case err
          (jsonrpc-request server :gemini/deleteSession (list :sessionId id))
        (jsonrpc-error
         (user-error "%s" (if (gemini-ls--method-not-found-p err)
                              "This gemini-ls is too old to delete sessions; update it (M-x gemini-ls-install-server)"
                            (format "Could not delete the session “%s”: %s"
                                    title (alist-get 'jsonrpc-error-message (cdr err)))))))
      ;; The server has forgotten it: the chat goes on with a new one.
      (when (equal id (gemini-ls--chat-value 'gemini-ls--session-id))
        (gemini-ls-new-session))
      (message "Gemini: deleted the session “%s”" title)
      t)))

;;;; Rewind

(defun gemini-ls--rewind-label (prompt)
  "One row of the rewind list: PROMPT as typed and the files it changed."
  (let ((files (mapcar #'file-relative-name (plist-get prompt :files))))
    (format "%d. %s%s" (plist-get prompt :prompt)
            (replace-regexp-in-string "[ \t\n]+" " " (or (plist-get prompt :text) ""))
            (if files (format "  [%s]" (string-join files ", ")) ""))))

(defconst gemini-ls--rewind-modes
  '(("Conversation and code" . "both")
    ("Conversation only" . "conversation")
    ("Code only" . "code"))
  "What a rewind may go back on, as offered and as `gemini/rewind' names it.")

(defun gemini-ls--read-few (prompt choices)
  "Read one of CHOICES, at most 9 strings, with PROMPT, all shown at once.
Each is numbered and a digit picks it, as the folder trust question
offers its choices: `completing-read' would hide them until TAB.  Return
the string picked."
  (let ((max-mini-window-height (max max-mini-window-height 0.5)))
    (nth 1 (read-multiple-choice
            prompt
            (cl-loop for choice in choices
                     for key from ?1
                     collect (list key choice))))))

(defun gemini-ls--read-ordered (prompt choices)
  "Read one of CHOICES, strings, with PROMPT, keeping their order."
  (completing-read prompt
                   (lambda (str pred action)
                     (if (eq action 'metadata)
                         '(metadata (display-sort-function . identity))
                       (complete-with-action action choices str pred)))
                   nil t))

(defun gemini-ls--reload-chat (server session header then)
  "Show SESSION of SERVER afresh in the chat, under HEADER; then call THEN."
  (jsonrpc-async-request
   server :gemini/resumeSession (list :sessionId session)
   :success-fn
   (lambda (result)
     (gemini-ls--adopt-mode session result)
     ;; A conversation rewound forgets how full the window was.
     (gemini-ls--adopt-usage server result)
     (gemini-ls--clear-transcript)
     (gemini-ls--with-chat (insert (format "*%s*\n" header)))
     (gemini-ls--insert-exchanges (append (plist-get result :exchanges) nil))
     (funcall then))
   :error-fn (lambda (_) (funcall then))))

;;;###autoload
(defvar gemini-ls-browse-url-function #'browse-url
  "Opens an external URL in the browser.
Google's sign-in page the server shows, a background agent's run or
pull request on GitHub.")

(cl-defmethod eglot-handle-request
  ((_ gemini-ls-server) (_ (eql window/showDocument)) &key uri external
   takeFocus selection &allow-other-keys)
  "Open URI in the browser when EXTERNAL, the sign-in page.
As eglot may not; other documents as eglot shows them, or, with an
eglot that shows none, in a window, selected if TAKEFOCUS, at SELECTION."
  (cond (external
         (condition-case err
             (progn (funcall gemini-ls-browse-url-function uri) (list :success t))
           (error (message "Gemini: open %s in your browser (%s)" uri (error-message-string err))
                  (list :success :json-false))))
        ;; eglot 1.9 shows no documents (a plan to approve, say): it has
        ;; no method for them, or refuses them as unknown.
        ((cl-find-method #'eglot-handle-request nil '(t (eql window/showDocument)))
         (cl-call-next-method))
        (t (gemini-ls--show-document uri takeFocus selection))))

(defun gemini-ls--show-document (uri take-focus selection)
  "Show the file of URI, selected when TAKE-FOCUS, at SELECTION if any.
Return the ShowDocumentResult."
  (condition-case err
      (let ((buffer (find-file-noselect (gemini-ls--uri-path uri))))
        (when selection
          (with-current-buffer buffer
            (goto-char (eglot--lsp-position-to-point (plist-get selection :start)))))
        (if (eq take-focus t) (pop-to-buffer buffer) (display-buffer buffer))
        (list :success t))
    (error (message "Gemini: could not show %s: %s" uri (error-message-string err))
           (list :success :json-false))))

(defun gemini-ls--login-message (result)
  "What the user is told of gemini/login's RESULT."
  (let* ((email (plist-get result :email))
         (who (if (and email (not (string-empty-p email)))
                  (format "Signed in with Google as %s" email)
                "Signed in with Google"))
         (auth (plist-get result :auth))
         (type (plist-get auth :type)))
    (cond ((and (equal type "oauth-personal") (eq (plist-get auth :usable) t))
           (concat who "."))
          ((equal type "oauth-personal")
           (format "%s, but the login cannot be used: %s" who (plist-get auth :problem)))
          (t (format "%s, but gemini-ls uses %s (from %s); set security.auth.selectedType to \"oauth-personal\" in ~/.gemini/settings.json to use the Google login."
                     who type (plist-get auth :source))))))

(defun gemini-ls-login (&optional manual)
  "Sign in with Google, as Gemini CLI does.
gemini-ls has Google's page opened in the browser and waits for it to
come back; the login is cached in ~/.gemini for gemini-ls and Gemini CLI,
and the next prompt uses it.  With a prefix argument (MANUAL), the code
Google's page shows is asked for instead, for a browser on another
machine."
  (interactive "P")
  (let ((server (gemini-ls--server)))
    (message "Gemini: signing in with Google; finish in your browser")
    ;; Not a blocking request: the browser takes minutes.
    (jsonrpc-async-request
     server :gemini/login (if manual '(:manual t) (make-hash-table))
     :timeout 600
     :success-fn (lambda (result)
                   (when (plist-get result :auth)
                     (gemini-ls--adopt-auth server (plist-get result :auth)))
                   (message "Gemini: %s" (gemini-ls--login-message result)))
     :error-fn (lambda (err) (message "Gemini: %s" (plist-get err :message)))
     :timeout-fn (lambda () (message "Gemini: the sign-in did not end")))))

(defun gemini-ls-rewind ()
  "Rewind the chat's session to before a prompt it had.
Offers the session's prompts with the files each changed, then whether
to rewind the conversation, the code or both.  The agent's changes to
files come back as one change to review; the chat then shows the
session as it is now."
  (interactive)
  (let* ((chat (gemini-ls--chat-buffer))
         (session (buffer-local-value 'gemini-ls--session-id chat))
         (server (gemini-ls--server)))
    (unless session (user-error "No Gemini session to rewind yet"))
    (let* ((prompts (append (plist-get (jsonrpc-request server :gemini/rewind
                                                        (list :sessionId session))
                                       :prompts)
                            nil))
           (rows (mapcar (lambda (p) (cons (gemini-ls--rewind-label p) p)) prompts)))
      (unless rows (user-error "Nothing to rewind"))
      (let* ((prompt (cdr (assoc (gemini-ls--read-ordered "Rewind to before: "
                                                          (mapcar #'car rows))
                                 rows)))
             (n (plist-get prompt :prompt))
             (mode (cdr (assoc (gemini-ls--read-few
                                "Rewind what: " (mapcar #'car gemini-ls--rewind-modes))
                               gemini-ls--rewind-modes))))
        ;; Not a blocking request: the revert is reviewed meanwhile.
        (jsonrpc-async-request
         server :gemini/rewind (list :sessionId session :prompt n :mode mode)
         :timeout 86400
         :success-fn
         (lambda (result)
           (gemini-ls--reload-chat
            server session (format "Rewound to before prompt %d" n)
            (lambda ()
              (gemini-ls--with-chat
                (gemini-ls--fresh-line)
                (insert "\n" (or (plist-get result :message) "") "\n"))
              (gemini-ls--display-chat chat))))
         :error-fn
         (lambda (err)
           (message "Could not rewind: %s" (plist-get err :message))))))))

;;;###autoload (autoload 'gemini-ls-chat "gemini-ls" nil t)
(defun gemini-ls-chat ()
  "Show the chat buffer, with its server started.
The server's start-up problems (a settings file ignored, an MCP server
that did not start, no credentials) then show in the chat at once; so
does why no server started (none installed, say)."
  (interactive)
  (let ((chat (gemini-ls--chat-buffer)))
    (pop-to-buffer chat)
    (condition-case err
        (with-current-buffer chat (gemini-ls--chat-server))
      (error (gemini-ls--tell (error-message-string err) 'error)))
    (force-mode-line-update t)))

(provide 'gemini-ls-sessions)
;;; gemini-ls-sessions.el ends here
