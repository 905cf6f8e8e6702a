;;; gemini-ls-agents.el --- Agents in worktrees of their own: the agents view  -*- lexical-binding: t; -*-

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

;; Agents (docs/protocol.md, section 5h): sessions that each run in a
;; git worktree of their own, started with `gemini/prompt''s `worktree'.
;; `gemini-ls-agents' lists them in `*gemini agents*', as Claude Code's
;; agents view does: the task, its state, how long it has run, its
;; tokens and the files it changed.  From there the user opens an
;; agent's chat, starts, stops, reviews and lands, merges or discards
;; one.  The server's `gemini/agent' notifications keep the list live;
;; the user is told in the echo area when an agent waits for them,
;; finishes or fails.
;;
;; Background agents run on GitHub Actions instead (issue 98):
;; `gemini-ls-background' (or b in the view) sends `gemini/delegate', the
;; server dispatches the repository's gemini-ls workflow and follows its
;; run.  Such a row says GitHub, links its run and its pull request, and
;; f sends the agent a follow-up (`gemini/followUpAgent', a comment on
;; the pull request).  Once its run is done the server fetches its
;; branch into a local worktree, and the row lands, merges and discards
;; as a local agent's.
;;
;; Each server owns the list of its agents (`gemini-ls--server-agents');
;; the view only shows it.  The chat shows an agent's updates only when
;; it shows that agent's session (`gemini-ls--handle-update'), and its
;; questions name it (`gemini-ls--asker').

;; A part of the gemini-ls package: gemini-ls.el loads it.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'eglot)
(require 'jsonrpc)
(require 'tabulated-list)
(require 'gemini-ls-server)
(require 'gemini-ls-chat)
(require 'gemini-ls-sessions)

(defface gemini-ls-agent-queued '((t :inherit shadow))
  "Face of the state of a background agent whose run has not started yet."
  :group 'gemini-ls)
(defface gemini-ls-agent-working '((t :inherit warning))
  "Face of the state of an agent at work."
  :group 'gemini-ls)
(defface gemini-ls-agent-waiting '((t :inherit font-lock-keyword-face :weight bold))
  "Face of the state of an agent waiting for the user's answer."
  :group 'gemini-ls)
(defface gemini-ls-agent-done '((t :inherit success))
  "Face of the state of an agent that finished its turn."
  :group 'gemini-ls)
(defface gemini-ls-agent-failed '((t :inherit error))
  "Face of the state of an agent whose turn failed."
  :group 'gemini-ls)
(defface gemini-ls-agent-stopped '((t :inherit shadow))
  "Face of the state of an agent cancelled, or whose server ended mid-turn."
  :group 'gemini-ls)

(defconst gemini-ls--agent-state-faces
  '(("queued" . gemini-ls-agent-queued)
    ("working" . gemini-ls-agent-working)
    ("waiting" . gemini-ls-agent-waiting)
    ("done" . gemini-ls-agent-done)
    ("failed" . gemini-ls-agent-failed)
    ("stopped" . gemini-ls-agent-stopped))
  "Each state of an agent, as the server names it, and its face.")

;;;; The agents a server has

(defun gemini-ls--agent-background (agent)
  "Return AGENT's `background' object if it is on GitHub, else nil."
  (and (equal (plist-get agent :kind) "background")
       (plist-get agent :background)))

(defun gemini-ls--agent-key (agent)
  "The key of AGENT in its server's list.
A background agent's id, stable from its dispatch on (it has no
session, and its worktree comes last); else its session, else its
worktree: a worktree found on disk with no saved session has no
session id."
  (let ((background (gemini-ls--agent-background agent))
        (id (plist-get agent :sessionId)))
    (cond (background (concat "background:" (plist-get background :id)))
          ((and (stringp id) (not (string-empty-p id))) id)
          (t (concat "worktree:" (plist-get (plist-get agent :worktree) :name))))))

(defun gemini-ls--agent-files-words (agent)
  "AGENT's files changed, in short: \"2 files +12 −4\"; \"\" for none."
  (let ((files (append (plist-get agent :files) nil)))
    (if (null files)
        ""
      (format "%d %s +%d −%d" (length files) (if (cdr files) "files" "file")
              (apply #'+ (mapcar (lambda (f) (or (plist-get f :added) 0)) files))
              (apply #'+ (mapcar (lambda (f) (or (plist-get f :removed) 0)) files))))))

(defun gemini-ls--agent-news (old new)
  "What the user is told of an agent that was OLD and is NEW, or nil.
Told when it comes to wait for the user, finishes or fails, as the
agents view of Claude Code notifies; OLD is nil for an agent not known
before."
  (let ((state (plist-get new :state))
        (name (gemini-ls--agent-name new)))
    (unless (equal state (plist-get old :state))
      (pcase state
        ("waiting"
         (let ((question (plist-get new :question)))
           (format "Gemini: the agent %s waits for you%s" name
                   (if (and (stringp question) (not (string-empty-p question)))
                       (concat ": " question) ""))))
        ("done"
         (let ((files (gemini-ls--agent-files-words new))
               (pull (plist-get (gemini-ls--agent-background new) :pullRequest)))
           (format "Gemini: the agent %s is done%s; M-x gemini-ls-agents to review it"
                   name (cond ((not (string-empty-p files)) (concat " (" files ")"))
                              (pull (format " on GitHub: pull request #%s" (plist-get pull :number)))
                              ((gemini-ls--agent-background new) " on GitHub")
                              (t ", changing no file")))))
        ("failed"
         (format "Gemini: the agent %s failed: %s" name
                 (or (plist-get new :error) "no reason given")))))))

(defun gemini-ls--take-agent (server agent)
  "Note AGENT, a `gemini/agent' notification's params, in SERVER's list.
A new agent goes first (the list is newest first); a discarded one
leaves it.  The user is told of what needs them (`gemini-ls--agent-news'),
and the agents view shows the change."
  (let* ((key (gemini-ls--agent-key agent))
         (agents (gemini-ls--server-agents server))
         (old (cl-find key agents :key #'gemini-ls--agent-key :test #'equal)))
    (setf (gemini-ls--server-agents server)
          (cond ((equal (plist-get agent :state) "discarded")
                 (delq old agents))
                (old (cl-substitute agent old agents :test #'eq))
                (t (cons agent agents))))
    (let ((news (gemini-ls--agent-news old agent)))
      (when news (message "%s" news)))
    (gemini-ls--agents-changed server)))

(cl-defmethod eglot-handle-notification
  ((server gemini-ls-server) (_ (eql gemini/agent)) &rest agent &key &allow-other-keys)
  "Take SERVER's news of an agent: AGENT started, changed or went."
  (gemini-ls--take-agent server agent))

;;;; The agents view

(defvar-local gemini-ls--agents-server nil
  "In the agents view: the server whose agents it lists.")

(defvar-local gemini-ls--agents-timer nil
  "In the agents view: the timer that counts the elapsed time of agents at work.")

(defconst gemini-ls--agents-buffer "*gemini agents*"
  "The name of the agents view.")

(defun gemini-ls--duration (seconds)
  "SECONDS as people read a stopwatch: \"42s\", \"3m 04s\", \"1h 02m\"."
  (let ((s (max 0 (floor seconds))))
    (cond ((< s 60) (format "%ds" s))
          ((< s 3600) (format "%dm %02ds" (/ s 60) (% s 60)))
          (t (format "%dh %02dm" (/ s 3600) (/ (% s 3600) 60))))))

(defun gemini-ls--agent-busy-p (agent)
  "Non-nil while AGENT's turn is under way.
Working, waiting for the user, or for a background agent's run queued
on GitHub."
  (member (plist-get agent :state) '("queued" "working" "waiting")))

(defun gemini-ls--agent-elapsed (agent now)
  "How long AGENT has run, as of NOW: from its first prompt to its last end.
Up to NOW while its turn runs; \"\" when the server gave no times."
  (let ((start (gemini-ls--time (plist-get agent :startedAt)))
        (end (or (gemini-ls--time (plist-get agent :endedAt))
                 (and (gemini-ls--agent-busy-p agent) now))))
    (if (and start end)
        (gemini-ls--duration (float-time (time-subtract end start)))
      "")))

(defun gemini-ls--browse-button (button)
  "Open the address BUTTON links, a background agent's run or pull request."
  (funcall gemini-ls-browse-url-function (button-get button 'gemini-ls-url)))

(defun gemini-ls--link (label url)
  "LABEL as a button that opens URL in the browser; LABEL alone without URL."
  (if (and (stringp url) (not (string-empty-p url)))
      (make-text-button label nil 'action #'gemini-ls--browse-button
                        'gemini-ls-url url 'follow-link t 'help-echo url)
    label))

(defun gemini-ls--agent-where (agent)
  "Return where AGENT works, for its row: \"\" for here.
A background agent's \"GitHub: run, PR #7\", the run and the pull
request each a button to its page, once GitHub has made them."
  (let ((background (gemini-ls--agent-background agent)))
    (if (not background)
        ""
      (let* ((run (plist-get background :runUrl))
             (pull (plist-get background :pullRequest))
             (links (delq nil
                          (list (and (stringp run) (not (string-empty-p run))
                                     (gemini-ls--link "run" run))
                                (and pull
                                     (gemini-ls--link (format "PR #%s" (plist-get pull :number))
                                                      (plist-get pull :url)))))))
        (if links
            (concat "GitHub: " (mapconcat #'identity links ", "))
          "GitHub")))))

(defun gemini-ls--agent-entry (agent now)
  "The agents view's row of AGENT as of NOW.
\(KEY [TASK STATE ELAPSED TOKENS FILES WHERE]), as
`tabulated-list-entries' holds it."
  (let* ((state (or (plist-get agent :state) ""))
         (title (or (plist-get agent :title) ""))
         (worktree (plist-get agent :worktree))
         (background (gemini-ls--agent-background agent)))
    (list (gemini-ls--agent-key agent)
          (vector (propertize (if (string-empty-p title) "(untitled)" title)
                              'help-echo
                              (if (and background (not worktree))
                                  (format "On GitHub: %s, on %s" (or (plist-get background :repository) "")
                                          (or (plist-get background :branch) ""))
                                (format "%s, on %s" (or (plist-get worktree :path) "")
                                        (or (plist-get worktree :branch) ""))))
                  (propertize state 'face (or (cdr (assoc state gemini-ls--agent-state-faces))
                                              'default))
                  (gemini-ls--agent-elapsed agent now)
                  ;; A background agent's tokens are spent on GitHub: its
                  ;; pull request says how many, the server does not.
                  (let ((tokens (or (plist-get agent :tokens) 0)))
                    (if (and background (eql tokens 0)) "" (gemini-ls--short-count tokens)))
                  (gemini-ls--agent-files-words agent)
                  (gemini-ls--agent-where agent)))))

(defun gemini-ls--agents-entries ()
  "The rows of the agents view, its server's agents newest first."
  (let ((now (current-time)))
    (mapcar (lambda (agent) (gemini-ls--agent-entry agent now))
            (and gemini-ls--agents-server
                 (gemini-ls--server-agents gemini-ls--agents-server)))))

(defconst gemini-ls--agents-keys
  (concat "RET chat  + new  b on GitHub  f follow-up  w browse  k stop  "
          "l review & land  M merge  D discard  g refresh  q quit")
  "The agents view's keys, under its list.")

(defun gemini-ls--agents-row (key)
  "Return the position of the row of the agent KEY in the view, or nil."
  (save-excursion
    (goto-char (point-min))
    (while (not (or (eobp) (equal (tabulated-list-get-id) key)))
      (forward-line 1))
    (and (not (eobp)) (point))))

(defun gemini-ls--agents-redraw ()
  "Draw the agents view afresh, each window's point staying on its row.
And keep its timer.  `tabulated-list-print' keeps the buffer's point;
a window that is not selected keeps its own, which the redraw would
send to the first row."
  (let ((spots (mapcar (lambda (window)
                         (cons window (save-excursion
                                        (goto-char (window-point window))
                                        (tabulated-list-get-id))))
                       (get-buffer-window-list nil nil t))))
    (tabulated-list-print t)
    (dolist (spot spots)
      (let ((pos (and (cdr spot) (gemini-ls--agents-row (cdr spot)))))
        (when pos (set-window-point (car spot) pos)))))
  (let ((inhibit-read-only t))
    (save-excursion
      (goto-char (point-max))
      (insert (propertize (concat (if (and gemini-ls--agents-server
                                           (gemini-ls--server-agents gemini-ls--agents-server))
                                      ""
                                    "  No agents yet: + starts one, b one on GitHub.\n")
                                  "\n  " gemini-ls--agents-keys "\n")
                          'face 'shadow))))
  (gemini-ls--agents-keep-timer))

(defun gemini-ls--agents-keep-timer ()
  "Count the elapsed time every second while an agent of the view is at work."
  (let ((busy (and gemini-ls--agents-server
                   (cl-some #'gemini-ls--agent-busy-p
                            (gemini-ls--server-agents gemini-ls--agents-server)))))
    (cond ((and busy (not gemini-ls--agents-timer))
           (setq gemini-ls--agents-timer
                 (run-at-time 1 1 #'gemini-ls--agents-tick (current-buffer))))
          ((and (not busy) gemini-ls--agents-timer)
           (cancel-timer gemini-ls--agents-timer)
           (setq gemini-ls--agents-timer nil)))))

(defun gemini-ls--agents-tick (buffer)
  "Draw the agents view BUFFER again, for the elapsed time, if it is shown."
  (when (and (buffer-live-p buffer) (get-buffer-window buffer t))
    (with-current-buffer buffer (gemini-ls--agents-redraw))))

(defun gemini-ls--agents-stop-timer ()
  "Stop the agents view's timer, as the view is killed."
  (when gemini-ls--agents-timer
    (cancel-timer gemini-ls--agents-timer)
    (setq gemini-ls--agents-timer nil)))

(defun gemini-ls--agents-changed (server)
  "Redraw the agents view if it lists SERVER's agents."
  (let ((buffer (get-buffer gemini-ls--agents-buffer)))
    (when (and buffer (eq server (buffer-local-value 'gemini-ls--agents-server buffer)))
      (with-current-buffer buffer (gemini-ls--agents-redraw)))))

(defun gemini-ls--agents-fetch (server)
  "Ask SERVER for its agents (`gemini/agents') and show them in the view."
  (jsonrpc-async-request
   server :gemini/agents (make-hash-table)
   :success-fn
   (lambda (result)
     (setf (gemini-ls--server-agents server) (append (plist-get result :agents) nil))
     (gemini-ls--agents-changed server))
   :error-fn
   (lambda (err)
     (message "Gemini: %s"
              (if (eql (plist-get err :code) gemini-ls--method-not-found)
                  "this gemini-ls runs no agents; update it (M-x gemini-ls-install-server)"
                (format "could not list the agents: %s" (plist-get err :message)))))
   :timeout-fn #'ignore))

(defun gemini-ls--agents-revert (&rest _)
  "Ask the server for its agents again; show them as they are meanwhile."
  (gemini-ls--agents-fetch gemini-ls--agents-server)
  (gemini-ls--agents-redraw))

(defvar gemini-ls-agents-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "RET") #'gemini-ls-agents-open)
    (define-key map (kbd "+") #'gemini-ls-agents-new)
    (define-key map (kbd "b") #'gemini-ls-background)
    (define-key map (kbd "f") #'gemini-ls-agents-follow-up)
    (define-key map (kbd "w") #'gemini-ls-agents-browse)
    (define-key map (kbd "k") #'gemini-ls-agents-stop)
    (define-key map (kbd "l") #'gemini-ls-agents-land)
    (define-key map (kbd "M") #'gemini-ls-agents-merge)
    (define-key map (kbd "D") #'gemini-ls-agents-discard)
    map)
  "Keymap of `gemini-ls-agents-mode'.")

(define-derived-mode gemini-ls-agents-mode tabulated-list-mode "Gemini Agents"
  "The agents of a gemini-ls server, each in a worktree of its own.
\\<gemini-ls-agents-mode-map>\\[gemini-ls-agents-open] opens an agent's chat, \
\\[gemini-ls-agents-new] starts one, \\[gemini-ls-agents-stop] stops one,
\\[gemini-ls-background] starts one on GitHub Actions, \
\\[gemini-ls-agents-follow-up] sends such an agent a follow-up,
\\[gemini-ls-agents-browse] opens its pull request or its run in the browser,
\\[gemini-ls-agents-land] reviews its work and lands it in your tree, \
\\[gemini-ls-agents-merge] merges its branch with git,
\\[gemini-ls-agents-discard] discards it, \\[revert-buffer] asks the server \
again.
\\{gemini-ls-agents-mode-map}"
  ;; Not sortable: the server's order, newest first, is kept, and a sort
  ;; would redraw the list without the keys under it.
  (setq tabulated-list-format
        [("Task" 44 nil)
         ("State" 8 nil)
         ("Elapsed" 8 nil :right-align t)
         ("Tokens" 7 nil :right-align t)
         ("Files" 18 nil)
         ("Runs on" 20 nil)])
  (setq tabulated-list-padding 2
        tabulated-list-entries #'gemini-ls--agents-entries)
  (setq-local revert-buffer-function #'gemini-ls--agents-revert)
  (add-hook 'kill-buffer-hook #'gemini-ls--agents-stop-timer nil t)
  (tabulated-list-init-header))

;;;###autoload (autoload 'gemini-ls-agents "gemini-ls" nil t)
(defun gemini-ls-agents ()
  "List the agents of this project's gemini-ls, each in a worktree of its own."
  (interactive)
  (pop-to-buffer (gemini-ls--agents-view (gemini-ls--server))))

(defun gemini-ls--agents-view (server)
  "The agents view, listing SERVER's agents, asked afresh."
  (let ((buffer (get-buffer-create gemini-ls--agents-buffer)))
    (with-current-buffer buffer
      (unless (derived-mode-p 'gemini-ls-agents-mode) (gemini-ls-agents-mode))
      (setq gemini-ls--agents-server server
            default-directory (file-name-as-directory
                               (expand-file-name (project-root (eglot--project server)))))
      (gemini-ls--agents-revert))
    buffer))

;;;; The agents view's commands

(defun gemini-ls--agent-at-point ()
  "The agent of the row at point; an error on no row."
  (let ((key (tabulated-list-get-id)))
    (or (and key (cl-find key (gemini-ls--server-agents gemini-ls--agents-server)
                          :key #'gemini-ls--agent-key :test #'equal))
        (user-error "No agent on this line"))))

(defun gemini-ls--agent-session (agent what)
  "AGENT's session id; an error saying WHAT needs one when it has none."
  (let ((id (plist-get agent :sessionId)))
    (if (and (stringp id) (not (string-empty-p id)))
        id
      (user-error "The agent %s has no saved session to %s; l lands its work, D discards it"
                  (gemini-ls--agent-name agent) what))))

(defun gemini-ls--agent-ref (agent)
  "AGENT as `gemini/landAgent' and `gemini/discardAgent' name it.
By its session, else by its worktree's name: a worktree found on disk
with no saved session, or a background agent's, fetched from GitHub."
  (let ((id (plist-get agent :sessionId)))
    (if (and (stringp id) (not (string-empty-p id)))
        (list :sessionId id)
      (list :worktree (plist-get (plist-get agent :worktree) :name)))))

(defun gemini-ls--agent-needs-worktree (agent)
  "An error unless AGENT has a local worktree: a background agent may not.
Its work comes to one once its run on GitHub is done."
  (unless (plist-get agent :worktree)
    (user-error "The agent %s has no local worktree yet: its work comes once its run on GitHub is done%s"
                (gemini-ls--agent-name agent)
                (if (gemini-ls--agent-busy-p agent) "" "; f sends it a follow-up"))))

(defun gemini-ls-agents-open ()
  "Open the chat of the agent at point: its session, to read and go on with.
The chat shows what it asked and answered so far, and what it does from
now on; the next prompt typed there goes to it.  A background agent has
a chat here once its run's session came back with its work; until then
its pull request, or its run, opens in the browser."
  (interactive)
  (let ((agent (gemini-ls--agent-at-point)))
    (if (and (gemini-ls--agent-background agent)
             (member (plist-get agent :sessionId) '(nil "")))
        (gemini-ls-agents-browse)
      (gemini-ls--agents-open-chat))))

(defun gemini-ls--agents-open-chat ()
  "Open the chat of the local agent at point."
  (let* ((agent (gemini-ls--agent-at-point))
         (id (gemini-ls--agent-session agent "open")))
    (when (gemini-ls--chat-value 'gemini-ls--busy)
      (user-error "The chat's prompt still runs; C-c C-k in the chat cancels it"))
    (gemini-ls-resume id (plist-get agent :title) gemini-ls--agents-server)
    (pop-to-buffer (gemini-ls--chat-buffer))))

(defun gemini-ls-agents-new (task &optional name)
  "Start an agent on TASK, in a new worktree NAME (generated when empty).
It runs in the background; the agents view lists it at once."
  (interactive
   (list (read-string "Agent's task: ")
         (read-string "Its worktree's name (empty: generated): ")))
  (when (string-blank-p task) (user-error "Empty task"))
  (let ((server (or gemini-ls--agents-server (gemini-ls--server)))
        (name (string-trim (or name ""))))
    (unless (and server (jsonrpc-running-p server))
      (user-error "The agents' gemini-ls is gone; M-x gemini-ls-agents starts it again"))
    (message "Gemini: starting an agent on “%s”" task)
    ;; The request runs the agent's whole turn: the agent is announced
    ;; at once by `gemini/agent'; its answer only says how the turn ended.
    (jsonrpc-async-request
     server :gemini/prompt
     (list :prompt task :worktree (if (string-empty-p name) t name))
     :timeout 86400
     :success-fn #'ignore
     :error-fn (lambda (err)
                 (message "Gemini: the agent did not start: %s" (plist-get err :message)))
     :timeout-fn #'ignore)))

(defun gemini-ls-agents-stop ()
  "Stop the agent at point's turn (`gemini/cancel')."
  (interactive)
  (let ((agent (gemini-ls--agent-at-point)))
    (when (gemini-ls--agent-background agent)
      (user-error "The agent %s runs on GitHub: w opens its run, which GitHub can cancel"
                  (gemini-ls--agent-name agent)))
    (let ((id (gemini-ls--agent-session agent "stop")))
      (unless (gemini-ls--agent-busy-p agent)
        (user-error "The agent %s is not at work" (gemini-ls--agent-name agent)))
      (jsonrpc-notify gemini-ls--agents-server :gemini/cancel (list :sessionId id))
      (message "Gemini: stopping the agent %s" (gemini-ls--agent-name agent)))))

(defun gemini-ls--agents-land (how)
  "Land the agent at point's work in the user's tree, HOW: review or merge.
The server's answer, with any conflict, shows in `*gemini land*'."
  (let* ((agent (gemini-ls--agent-at-point))
         (name (gemini-ls--agent-name agent)))
    (when (gemini-ls--agent-busy-p agent)
      (user-error (if (gemini-ls--agent-background agent)
                      "The agent %s is still at work on GitHub; w opens its run"
                    "The agent %s is still at work; k stops it")
                  name))
    (gemini-ls--agent-needs-worktree agent)
    (message "Gemini: landing the agent %s%s" name
             (if (equal how "merge") " with git merge" "; review its change"))
    ;; Not a blocking request: "review" opens its change for review
    ;; meanwhile, as every change gemini-ls proposes.
    (jsonrpc-async-request
     gemini-ls--agents-server :gemini/landAgent
     (append (gemini-ls--agent-ref agent) (list :how how))
     :timeout 86400
     :success-fn (let ((server gemini-ls--agents-server))
                   (lambda (result) (gemini-ls--show-landing server agent result)))
     :error-fn (lambda (err)
                 (message "Gemini: could not land the agent %s: %s" name
                          (plist-get err :message)))
     :timeout-fn #'ignore)))

(defun gemini-ls-agents-land ()
  "Review the agent at point's work as a change to your tree, and land it.
Its change opens for review hunk by hunk, as every change gemini-ls
proposes; a hunk whose lines you changed since the agent started is a
conflict, left out and shown with both sides afterwards."
  (interactive)
  (gemini-ls--agents-land "review"))

(defun gemini-ls-agents-merge ()
  "Merge the agent at point's branch into your tree with git, once you agree."
  (interactive)
  (let ((agent (gemini-ls--agent-at-point)))
    (gemini-ls--agent-needs-worktree agent)
    (when (yes-or-no-p
           (format "Merge the agent %s's branch %s into your tree with git? "
                   (gemini-ls--agent-name agent)
                   (or (plist-get (plist-get agent :worktree) :branch) "")))
      (gemini-ls--agents-land "merge"))))

(defun gemini-ls-agents-discard ()
  "Discard the agent at point: its worktree and branch, once you agree.
The server asks, naming what goes.  A background agent is forgotten
here, its local worktree and branch removed; its pull request stays
on GitHub."
  (interactive)
  (let* ((agent (gemini-ls--agent-at-point))
         (name (gemini-ls--agent-name agent))
         (background (gemini-ls--agent-background agent)))
    (jsonrpc-async-request
     gemini-ls--agents-server :gemini/discardAgent
     (if background (list :id (plist-get background :id)) (gemini-ls--agent-ref agent))
     :timeout 86400
     :success-fn (lambda (result)
                   (message (cond ((not (eq (plist-get result :discarded) t))
                                   "Gemini: kept the agent %s")
                                  (background
                                   "Gemini: discarded the agent %s; its pull request stays on GitHub")
                                  (t "Gemini: discarded the agent %s"))
                            name))
     :error-fn (lambda (err)
                 (message "Gemini: could not discard the agent %s: %s" name
                          (plist-get err :message)))
     :timeout-fn #'ignore)))

;;;; Background agents, on GitHub Actions

(defun gemini-ls--request-error (err)
  "The server's sentence in ERR, a `jsonrpc-async-request' error."
  (if (eql (plist-get err :code) gemini-ls--method-not-found)
      "this gemini-ls runs no agents on GitHub; update it (M-x gemini-ls-install-server)"
    (or (plist-get err :message) "no reason given")))

;;;###autoload (autoload 'gemini-ls-background "gemini-ls" nil t)
(defun gemini-ls-background (task &optional base)
  "Start an agent on TASK in the background, on GitHub Actions.
The server dispatches the repository's gemini-ls workflow (written by
/setup-github) with your GitHub token, from `gh auth token' or
GITHUB_TOKEN, and follows its run; the agents view shows it.  Once it
is done its pull request's branch comes to a local worktree, to review
and land as a local agent's work.  With a prefix argument, asks for
the BASE branch too (empty: the repository's default)."
  (interactive
   (list (read-string "Background agent's task (runs on GitHub): ")
         (and current-prefix-arg (read-string "Its base branch (empty: the default): "))))
  (when (string-blank-p task) (user-error "Empty task"))
  (let ((server (or (and (derived-mode-p 'gemini-ls-agents-mode) gemini-ls--agents-server)
                    (gemini-ls--server)))
        (base (string-trim (or base ""))))
    (unless (and server (jsonrpc-running-p server))
      (user-error "The agents' gemini-ls is gone; M-x gemini-ls-agents starts it again"))
    (message "Gemini: starting “%s” on GitHub" task)
    ;; The server answers once GitHub took the dispatch, at once: the
    ;; run is followed by `gemini/agent' notifications.
    (jsonrpc-async-request
     server :gemini/delegate
     (append (list :prompt task) (unless (string-empty-p base) (list :base base)))
     :success-fn
     (lambda (agent)
       (gemini-ls--take-agent server agent)
       (display-buffer (gemini-ls--agents-view server))
       (message "Gemini: the agent %s is %s on GitHub; f in the agents view sends it a follow-up"
                (gemini-ls--agent-name agent) (or (plist-get agent :state) "queued")))
     :error-fn
     (lambda (err)
       (message "Gemini: the background agent did not start: %s" (gemini-ls--request-error err)))
     :timeout-fn
     (lambda ()
       (message "Gemini: the background agent did not start: gemini-ls did not answer")))))

(defun gemini-ls--agent-at-point-background ()
  "The background agent of the row at point, and its `background' object.
An error for a local agent."
  (let* ((agent (gemini-ls--agent-at-point))
         (background (gemini-ls--agent-background agent)))
    (unless background
      (user-error "The agent %s runs here, not on GitHub: RET opens its chat"
                  (gemini-ls--agent-name agent)))
    (cons agent background)))

(defun gemini-ls-agents-follow-up (prompt)
  "Send the background agent at point PROMPT, a follow-up.
It goes to its pull request as a comment (`gemini/followUpAgent'); the
agent runs again on GitHub on its branch, and its local worktree
follows.  The server refuses while its run is under way, or before it
has a pull request."
  (interactive
   (let ((agent (car (gemini-ls--agent-at-point-background))))
     (list (read-string (format "Follow-up for the agent %s: " (gemini-ls--agent-name agent))))))
  (when (string-blank-p prompt) (user-error "Empty follow-up"))
  (let* ((found (gemini-ls--agent-at-point-background))
         (name (gemini-ls--agent-name (car found)))
         (server gemini-ls--agents-server))
    (jsonrpc-async-request
     server :gemini/followUpAgent (list :id (plist-get (cdr found) :id) :prompt prompt)
     :success-fn (lambda (agent)
                   (gemini-ls--take-agent server agent)
                   (message "Gemini: sent the agent %s your follow-up; it runs again on GitHub"
                            name))
     :error-fn (lambda (err)
                 (message "Gemini: the agent %s did not take the follow-up: %s" name
                          (gemini-ls--request-error err)))
     :timeout-fn #'ignore)))

(defun gemini-ls-agents-browse ()
  "Open the background agent at point's pull request in the browser.
Its run on GitHub when it has no pull request yet."
  (interactive)
  (let* ((found (gemini-ls--agent-at-point-background))
         (url (or (plist-get (plist-get (cdr found) :pullRequest) :url)
                  (plist-get (cdr found) :runUrl))))
    (unless (and (stringp url) (not (string-empty-p url)))
      (user-error "The agent %s has no run on GitHub yet" (gemini-ls--agent-name (car found))))
    (funcall gemini-ls-browse-url-function url)))

;;;; What landing did

(define-derived-mode gemini-ls-land-mode special-mode "Gemini Land"
  "What landing an agent's work did: the files, and conflicts with both sides.")

(defun gemini-ls--visit-conflict (button)
  "Visit the file and line of the conflict BUTTON names."
  (find-file-other-window (button-get button 'gemini-ls-path))
  (goto-char (point-min))
  (forward-line (1- (button-get button 'gemini-ls-line))))

(defun gemini-ls--insert-side (text)
  "Insert TEXT, one side of a conflict, ending its last line."
  (insert text)
  (unless (or (string-empty-p text) (bolp)) (insert "\n")))

(defun gemini-ls--insert-landing (agent result)
  "Insert what landing AGENT did, from `gemini/landAgent''s RESULT.
Its sentence, the files the change carried, those it left out and
why, then each conflict with your text and the agent's, between the
markers git and smerge use."
  (let ((files (append (plist-get result :files) nil))
        (left (append (plist-get result :left) nil))
        (conflicts (append (plist-get result :conflicts) nil))
        (branch (or (plist-get (plist-get agent :worktree) :branch) "the agent's")))
    (insert (or (plist-get result :message) "") "\n")
    (when files
      (insert "\nFiles:\n")
      (dolist (f files)
        (insert (format "  %-9s %s  +%d −%d\n" (or (plist-get f :status) "")
                        (plist-get f :path)
                        (or (plist-get f :added) 0) (or (plist-get f :removed) 0)))))
    (when left
      (insert "\nLeft out:\n")
      (dolist (f left)
        (insert (format "  %s: %s\n" (plist-get f :path) (or (plist-get f :reason) "")))))
    (when conflicts
      (insert "\nConflicts, left out of the change (your text is as it was):\n")
      (dolist (c conflicts)
        (insert "\n")
        (let ((path (plist-get c :path)) (line (or (plist-get c :line) 1)))
          (insert-text-button (format "%s:%d" (file-relative-name path default-directory) line)
                              'action #'gemini-ls--visit-conflict
                              'gemini-ls-path path 'gemini-ls-line line
                              'help-echo "Visit your file at the conflict"))
        (insert "\n<<<<<<< yours\n")
        (gemini-ls--insert-side (or (plist-get c :yours) ""))
        (insert "=======\n")
        (gemini-ls--insert-side (or (plist-get c :theirs) ""))
        (insert ">>>>>>> " branch "\n")))))

(defun gemini-ls--show-landing (server agent result)
  "Show what landing SERVER's AGENT did, `gemini/landAgent''s RESULT; say it.
Its files are named relative to SERVER's project."
  (let ((buffer (get-buffer-create "*gemini land*"))
        (dir (ignore-errors (project-root (eglot--project server)))))
    (with-current-buffer buffer
      (gemini-ls-land-mode)
      (when dir (setq default-directory (file-name-as-directory (expand-file-name dir))))
      (let ((inhibit-read-only t))
        (erase-buffer)
        (gemini-ls--insert-landing agent result))
      (goto-char (point-min)))
    (display-buffer buffer)
    (message "Gemini: %s" (or (plist-get result :message) "landed"))))

(provide 'gemini-ls-agents)
;;; gemini-ls-agents.el ends here
