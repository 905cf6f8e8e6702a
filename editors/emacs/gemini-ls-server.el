;;; gemini-ls-server.el --- The gemini-ls server: registration, status and model  -*- lexical-binding: t; -*-

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

;; The server class and its registration with eglot, the server each
;; project's chat talks to, the mode line and header line that tell what
;; it does, and the model it uses.

;; A part of the gemini-ls package: gemini-ls.el loads it.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'eglot)
(require 'jsonrpc)
(require 'seq)
(require 'project)

(declare-function gemini-ls--send "gemini-ls-protocol" (prompt context &optional server))
(declare-function gemini-ls-approval-mode "gemini-ls-chat" ())
(declare-function gemini-ls--tell "gemini-ls-updates" (words &optional face))

;; A repository's .dir-locals.el must not choose the program Emacs runs,
;; where it comes from, or what the agent may do: those options are
;; `:risky' (Emacs asks before using a directory's value, every time),
;; the harmless ones `:safe'.

(defcustom gemini-ls-server-command nil
  "How to start gemini-ls.
nil: the one `gemini-ls-install-server' installed, else `gemini-ls'
from the variable `exec-path'.  A string: the path of the binary.  A
list of strings: the whole command line."
  :type '(choice (const :tag "Installed, else on PATH" nil)
                 (string :tag "Binary")
                 (repeat :tag "Command line" string))
  :risky t
  :group 'gemini-ls)

(defcustom gemini-ls-install-dir (locate-user-emacs-file "gemini-ls/")
  "Where `gemini-ls-install-server' puts the gemini-ls binary."
  :type 'directory
  :risky t
  :group 'gemini-ls)

(defcustom gemini-ls-initialization-options nil
  "Plist sent as initializationOptions, e.g. (:model \"gemini-2.5-flash\").
It can set the approval mode, so a directory's value is risky."
  :type '(plist)
  :risky t
  :group 'gemini-ls)

;;;; Server registration

(defclass gemini-ls-server (eglot-lsp-server)
  ((model :initform nil :accessor gemini-ls--server-model
          :documentation "The model as the server reports it: a plist of
:current (as named), :name (as shown) and :answered (the model that last
answered), from `gemini/models' and the model and usage updates.")
   (approval-mode :initform nil :accessor gemini-ls--server-approval-mode
                  :documentation "The approval mode every session follows
unless it switched itself, as `gemini/models' says it; nil from a server
that does not say.")
   (auth :initform nil :accessor gemini-ls--server-auth
         :documentation "Whether the server can reach the model, as
`gemini/authStatus' says: a plist with :usable and, when not, :problem;
nil until it said.")
   (agents :initform nil :accessor gemini-ls--server-agents
           :documentation "The server's agents, sessions each in a worktree
of its own: its Agent plists (docs/protocol.md, \"5h. Agents\"), newest
first, from `gemini/agents' and kept by `gemini/agent' notifications
\(gemini-ls-agents.el)."))
  :documentation "The gemini-ls language server.")

(defun gemini-ls--user-workspace-configuration (configuration server &rest args)
  "Call CONFIGURATION, eglot's settings for SERVER, with ARGS.
For gemini-ls only the global value of `eglot-workspace-configuration'
is sent, never a directory's: eglot takes any list from a
.dir-locals.el as safe, and gemini-ls would take its settings (the
commands it runs, the approval mode) even in a folder you do not
trust."
  (if (not (cl-typep server 'gemini-ls-server))
      (apply configuration server args)
    (let ((value (default-value 'eglot-workspace-configuration)))
      (if (functionp value) (funcall value server) value))))

(advice-add 'eglot--workspace-configuration-plist :around
            #'gemini-ls--user-workspace-configuration)

(defun gemini-ls--installed ()
  "The gemini-ls `gemini-ls-install-server' installed, or nil."
  (let ((file (expand-file-name (if (eq system-type 'windows-nt) "gemini-ls.exe" "gemini-ls")
                                gemini-ls-install-dir)))
    (and (file-executable-p file) file)))

(defun gemini-ls--server-program ()
  "Return the command line to start gemini-ls with."
  (pcase gemini-ls-server-command
    ((pred stringp) (list (expand-file-name gemini-ls-server-command) "serve"))
    ((pred consp) gemini-ls-server-command)
    (_ (list (or (gemini-ls--installed) (executable-find "gemini-ls") "gemini-ls") "serve"))))

(defun gemini-ls--contact (&optional _interactive)
  "Contact for `eglot-server-programs'."
  (append (cons 'gemini-ls-server (gemini-ls--server-program))
          (when gemini-ls-initialization-options
            (list :initializationOptions gemini-ls-initialization-options))))

(defun gemini-ls--contact-program (contact)
  "Return the program of CONTACT, an `eglot-server-programs' contact.
A function (eglot's alternatives) is asked, as eglot would; nil when
none of its programs is installed, or for a host and port."
  (let ((contact (if (functionp contact)
                     (ignore-errors (funcall contact nil))
                   contact)))
    (when (and (consp contact) (symbolp (car contact)) (not (keywordp (car contact))))
      (setq contact (cdr contact)))     ; (CLASS-NAME . COMMAND)
    (and (consp contact) (stringp (car contact)) (not (integerp (cadr contact)))
         (car contact))))

(defun gemini-ls--entry-modes (modes)
  "The major modes of MODES, an `eglot-server-programs' entry's car."
  (mapcar (lambda (spec) (car (ensure-list spec)))
          (if (or (symbolp modes) (keywordp (cadr modes))) (list modes) modes)))

(defun gemini-ls--entries-for (mode)
  "The contacts of the entries of `eglot-server-programs' that name MODE.
gemini-ls's own are left out."
  (cl-loop for (modes . contact) in eglot-server-programs
           when (and (not (eq contact #'gemini-ls--contact))
                     (memq mode (gemini-ls--entry-modes modes)))
           collect contact))

;;;###autoload (autoload 'gemini-ls-register "gemini-ls" nil t)
(defun gemini-ls-register (&rest modes)
  "Let eglot run gemini-ls in the buffers of MODES, major modes.
Their files then get completion as you type and gemini-ls's code
actions; the chat needs none of this, it has a gemini-ls of its own.
eglot runs one language server per buffer, so no mode loses its own:
a mode `eglot-server-programs' names with a server that is installed
keeps it and is left out, with a warning; a mode it names with none
installed gets gemini-ls instead; other modes (`prog-mode', say) get
gemini-ls after every other entry, so a mode derived from them that
has an entry (`python-mode') keeps it.  Return the modes registered."
  (let (before after)
    (dolist (mode modes)
      (let* ((contacts (gemini-ls--entries-for mode))
             (other (cl-some (lambda (c)
                               (let ((program (gemini-ls--contact-program c)))
                                 (and program (executable-find program) program)))
                             contacts)))
        (cond (other
               (display-warning
                'gemini-ls
                (format "%s keeps its language server, %s: eglot runs one per buffer"
                        mode other)))
              (contacts (push mode before))
              (t (push mode after)))))
    (setq before (nreverse before) after (nreverse after))
    (when before
      (push (cons before #'gemini-ls--contact) eglot-server-programs))
    (when after
      (setq eglot-server-programs
            (append eglot-server-programs (list (cons after #'gemini-ls--contact)))))
    (append before after)))

(cl-defmethod eglot-client-capabilities ((_ gemini-ls-server))
  "Declare gemini-ls's extensions: edit previews, confirmations, questions.
They come as `gemini/request' notifications, so they do not block Emacs.
The diagnostics Emacs shows are asked for with `gemini/diagnostics',
what the files' own language servers know with `gemini/languageFeature'."
  (let* ((caps (cl-call-next-method))
         (window (copy-sequence (plist-get caps :window))))
    ;; External documents (the sign-in page) open in the browser.
    (setq caps (plist-put caps :window (plist-put window :showDocument '(:support t))))
    (plist-put caps :experimental
               '(:gemini (:editPreview t :confirm t :ask t
                                       :requestNotifications t
                                       :diagnostics t
                                       :languageFeatures t)))))

(defvar gemini-ls--servers nil
  "The gemini-ls servers eglot connected; dead ones are pruned lazily.")

(defun gemini-ls--note-server (server)
  "Remember SERVER if it is a gemini-ls server (for the mode line).
Its model, and whether it can reach the model, are asked for at once,
for the mode line and the chat to show."
  (when (cl-typep server 'gemini-ls-server)
    (push server gemini-ls--servers)
    (gemini-ls--refresh-model server)
    (gemini-ls--refresh-auth server)
    (gemini-ls--status-changed)))

(add-hook 'eglot-connect-hook #'gemini-ls--note-server)

(defun gemini-ls--buffer-server ()
  "The gemini-ls server eglot manages the current buffer with, or nil."
  (let ((s (ignore-errors (eglot-current-server))))
    (and (cl-typep s 'gemini-ls-server) (jsonrpc-running-p s) s)))

(defun gemini-ls--project ()
  "The current buffer's project, for eglot."
  (or (project-current) (cons 'transient (expand-file-name default-directory))))

(defun gemini-ls--project-server (project)
  "A live gemini-ls server of PROJECT, or nil."
  (let ((root (expand-file-name (project-root project))))
    (cl-find-if (lambda (s)
                  (and (jsonrpc-running-p s)
                       (equal root (expand-file-name (project-root (eglot--project s))))))
                gemini-ls--servers)))

(defun gemini-ls--server-found-p ()
  "Non-nil if the program `gemini-ls--server-program' names is there.
A bare name is looked for on the variable `exec-path', as it is run,
not in `default-directory'."
  (let ((program (car (gemini-ls--server-program))))
    (if (file-name-absolute-p program)
        (file-executable-p program)
      (executable-find program))))

(defconst gemini-ls--not-installed
  "The gemini-ls server is not installed: M-x gemini-ls-install-server installs it (or put gemini-ls on PATH)"
  "What the user is told when there is no server to start.")

(defun gemini-ls--start-server (project)
  "Start gemini-ls for PROJECT's chat and return it.
eglot manages it for the chat's mode alone, so the project's files keep
their own language servers."
  (unless (gemini-ls--server-found-p)
    (user-error "%s" gemini-ls--not-installed))
  (with-temp-buffer
    ;; A buffer of no managed mode: `eglot' shuts down the current
    ;; buffer's server first, where it has one.
    (setq default-directory (file-name-as-directory (expand-file-name (project-root project))))
    (let ((eglot-sync-connect t))
      (or (eglot '(gemini-ls-chat-mode) project 'gemini-ls-server
                 (cdr (gemini-ls--contact)) ; the contact without its class
                 "gemini")
          (user-error "The gemini-ls server did not start; see M-x eglot-events-buffer")))))

(defun gemini-ls--server ()
  "Return the gemini-ls server for a prompt from the current buffer.
The chat's own from the chat; elsewhere the one eglot manages the
buffer with (see `gemini-ls-register'), else the project's, started
on demand."
  (let ((chat (get-buffer "*gemini*")))
    (or (and (derived-mode-p 'gemini-ls-chat-mode)
             (let ((s (buffer-local-value 'gemini-ls--chat-server chat)))
               (and s (jsonrpc-running-p s) s)))
        (gemini-ls--buffer-server)
        (let ((project (gemini-ls--project)))
          (or (gemini-ls--project-server project)
              (gemini-ls--start-server project))))))

(defun gemini-ls--session-agent (session)
  "The agent whose session is SESSION, of any live server; nil for none."
  (and (stringp session) (not (string-empty-p session))
       (cl-some (lambda (server)
                  (and (jsonrpc-running-p server)
                       (cl-find session (gemini-ls--server-agents server)
                                :key (lambda (a) (plist-get a :sessionId)) :test #'equal)))
                gemini-ls--servers)))

(defun gemini-ls--agent-name (agent)
  "AGENT as the user is told of it: its worktree's name, quoted."
  (format "“%s”" (or (plist-get (plist-get agent :worktree) :name)
                     (plist-get agent :title) "")))

(defun gemini-ls--asker (params)
  "Who asks the question of PARAMS, before it: \"Agent “fix-login”: \".
\"\" for a session that is no agent's: the chat's own."
  (let ((agent (gemini-ls--session-agent (plist-get params :sessionId))))
    (if agent (format "Agent %s: " (gemini-ls--agent-name agent)) "")))

(defvar gemini-ls--warned (make-hash-table :test 'equal)
  "Error messages already shown, so each is shown once.")


(defun gemini-ls--uri (file)
  "The file: URI of FILE."
  (if (fboundp 'eglot-path-to-uri)
      (funcall 'eglot-path-to-uri file)
    ;; eglot before 1.16; later ones declare it obsolete.
    (with-suppressed-warnings ((obsolete eglot--path-to-uri))
      (eglot--path-to-uri file))))

(defun gemini-ls--uri-path (uri)
  "The file name of URI, a file: URI."
  (if (fboundp 'eglot-uri-to-path)
      (funcall 'eglot-uri-to-path uri)
    ;; eglot before 1.16; later ones declare it obsolete.
    (with-suppressed-warnings ((obsolete eglot--uri-to-path))
      (eglot--uri-to-path uri))))

;; JSON-RPC's MethodNotFound: a server older than the method asked.
(defconst gemini-ls--method-not-found -32601)

(defun gemini-ls--method-not-found-p (err)
  "Non-nil if ERR, a `jsonrpc-error' condition, is MethodNotFound."
  (eql (alist-get 'jsonrpc-error-code (cdr err)) gemini-ls--method-not-found))

;;;; Mode line

(defvar gemini-ls--requests nil
  "Requests (`gemini/request') waiting for the user's decision, oldest first.")

(defvar gemini-ls--asking nil
  "The `gemini/confirm' request whose question is on screen.")

(defun gemini-ls--status ()
  "Return what Gemini is doing, or nil without a server.
`asking': a question waits for the user's answer; `reviewing': an edit
waits for the user's review; `running': a tool runs; `thinking': the
prompt waits for the model; `idle': none of these."
  (setq gemini-ls--servers (cl-remove-if-not #'jsonrpc-running-p gemini-ls--servers))
  (let ((chat (get-buffer "*gemini*")))
    (cond (gemini-ls--asking 'asking)
          (gemini-ls--requests 'reviewing)
          ((not (and chat (buffer-local-value 'gemini-ls--busy chat)))
           (and gemini-ls--servers 'idle))
          ((buffer-local-value 'gemini-ls--running chat) 'running)
          (t 'thinking))))

(defun gemini-ls--running-tool ()
  "The title of the tool call that started last of those running.
As the chat shows it (\"SearchText \\='parse\\='\"), not the tool's name."
  (let ((chat (get-buffer "*gemini*")))
    (cdr (car (and chat (buffer-local-value 'gemini-ls--running chat))))))

(defun gemini-ls--status-words (status)
  "The words for STATUS, a value of `gemini-ls--status'; nil when idle."
  (pcase status
    ('thinking "thinking")
    ('running (format "running %s" (truncate-string-to-width
                                    (or (gemini-ls--running-tool) "a tool") 24 nil nil "…")))
    ('asking "asking")
    ('reviewing "reviewing")))

(defun gemini-ls--status-help (status)
  "What STATUS means, for the mode line's tooltip."
  (pcase status
    ('idle "Gemini is idle")
    ('thinking "Gemini waits for the model's answer")
    ('running (format "Gemini runs %s" (or (gemini-ls--running-tool) "a tool")))
    ('asking "Gemini waits for your answer to its question")
    ('reviewing "Gemini waits for your review of its edit")))

(defun gemini-ls--status-face (status)
  "The face for STATUS; asking and reviewing, waiting on the user, stand out."
  (pcase status
    ((or 'thinking 'running) 'warning)
    ((or 'asking 'reviewing) 'success)))

(defconst gemini-ls--approval-modes
  '(("default" "Default" "Prompts for approval" nil)
    ("auto_edit" "Auto Edit" "Auto-approves edit tools" "auto-accept edits")
    ("plan" "Plan" "Read-only mode" "plan")
    ("yolo" "YOLO" "Auto-approves all tools" "YOLO"))
  "The approval modes, as Gemini CLI 0.61 names them.
Each is (MODE NAME DESCRIPTION INDICATOR): MODE as the protocol and the
settings spell it; NAME and DESCRIPTION as 0.61 offers it to choose;
INDICATOR as 0.61's footer shows it while it is on, nil for the
default mode, which shows nothing.")

(defun gemini-ls--mode-indicator (mode)
  "The indicator of MODE, an approval mode, while it is on; nil for the default."
  (let ((known (assoc mode gemini-ls--approval-modes)))
    (if known (nth 3 known) mode)))

(defun gemini-ls--model-indicator ()
  "The model's label for the mode line; nil before the server said."
  (let ((server (gemini-ls--model-server)))
    (and server (gemini-ls--model-label (gemini-ls--server-model server)))))

(defun gemini-ls--mode-line ()
  "Return the mode line's Gemini status, model and approval mode.
Such as \"Gemini (Auto) \", \"Gemini:thinking (gemini-2.5-pro, plan) \",
\"Gemini:running SearchText \='parse\=' (Auto) \".  Nothing in the chat,
whose header line shows them."
  (let ((status (gemini-ls--status)))
    (if (or (null status) (derived-mode-p 'gemini-ls-chat-mode))
        ""
      (let* ((words (gemini-ls--status-words status))
             (details (delq nil (list (gemini-ls--model-indicator)
                                      (gemini-ls--mode-indicator (gemini-ls-approval-mode))))))
        (concat
         (propertize (concat "Gemini" (and words (concat ":" words)))
                     'face (gemini-ls--status-face status)
                     'help-echo (gemini-ls--status-help status))
         (if details
             (propertize (format " (%s)" (string-join details ", "))
                         'help-echo "The Gemini model and approval mode; M-x gemini-ls-menu to change them")
           "")
         " ")))))

(defvar gemini-ls--install)

(defun gemini-ls--no-server-state ()
  "The header line's words when no gemini-ls server is running: why, what to do."
  (cond (gemini-ls--install
         (propertize (format "installing gemini-ls: %s" (plist-get gemini-ls--install :what))
                     'face 'warning))
        ((not (gemini-ls--server-found-p))
         (propertize "no server: M-x gemini-ls-install-server" 'face 'error
                     'help-echo gemini-ls--not-installed))
        (t (propertize "not running: the next prompt starts it" 'face 'warning))))

(defun gemini-ls--auth-problem ()
  "Why the model server cannot be reached, as the server said; else nil."
  (let* ((server (gemini-ls--model-server))
         (auth (and server (gemini-ls--server-auth server))))
    (and auth (not (eq (plist-get auth :usable) t))
         (or (plist-get auth :problem) "no credentials"))))

(defvar-local gemini-ls--usage nil
  "What the chat's sessions have cost, from the server's usage updates.
An alist of (SESSION-ID . PLIST), PLIST of :total and :cached (the
session's tokens, and those the model's context cache served), :used
and :size (the last request's prompt tokens, and the model's context
window); the last session that answered first.")

(defun gemini-ls--short-count (n)
  "Token count N as people read it: 950, 12.3k, 1.05M."
  (cond ((< n 1000) (number-to-string n))
        ((< n 1000000) (replace-regexp-in-string "\\.0k\\'" "k" (format "%.1fk" (/ n 1000.0))))
        (t (replace-regexp-in-string "\\.?0+M\\'" "M" (format "%.2fM" (/ n 1000000.0))))))

(defun gemini-ls--usage-indicator (session)
  "What SESSION has cost, for the header line; nil before it answered.
As \"52k tokens, 40k cached · context 5%\": the cached tokens only when
the cache served some, the context only once it is 1% full or more, as
eglot and magit keep their header lines short.  SESSION nil, a new
session's chat before its first update, has cost nothing yet."
  (let ((u (and session (cdr (assoc session gemini-ls--usage)))))
    (when u
      (let ((cached (plist-get u :cached))
            (size (plist-get u :size)))
        (concat (gemini-ls--short-count (plist-get u :total)) " tokens"
                (when (> cached 0)
                  (format ", %s cached" (gemini-ls--short-count cached)))
                (let ((percent (if (> size 0) (round (* 100.0 (plist-get u :used)) size) 0)))
                  (when (>= percent 1)
                    (format " · context %d%%" percent))))))))

(defvar gemini-ls--session-id)

(defun gemini-ls--header-state ()
  "What Gemini does, the model and the approval mode, for the header line.
Without a server, or credentials, it says so and what to do instead."
  (let ((status (gemini-ls--status))
        (problem (gemini-ls--auth-problem)))
    (string-join
     (delq nil (list (cond ((null status) (gemini-ls--no-server-state))
                           ((and problem (eq status 'idle))
                            (propertize "no credentials: M-x gemini-ls-login" 'face 'error
                                        'help-echo problem))
                           (t (propertize (or (gemini-ls--status-words status) "ready")
                                          'face (gemini-ls--status-face status)
                                          'help-echo (gemini-ls--status-help status))))
                     ;; The model of a running server: without one, another
                     ;; buffer's server (eglot's current one, which Emacs 30
                     ;; finds after an earlier chat) is not this chat's.
                     (and status (gemini-ls--model-indicator))
                     (gemini-ls--mode-indicator (gemini-ls-approval-mode))
                     ;; A running server's session's: without one the
                     ;; header says only what to do.
                     (and status (gemini-ls--usage-indicator gemini-ls--session-id))))
     " · ")))

(defun gemini-ls--header-line (&optional width)
  "The chat's header line: what Gemini does, the model, the approval mode.
Then what the session has cost (`gemini-ls--usage-indicator').
As gptel's and agent-shell's chats show them there; the keys that send
and open the menu of the chat's commands at the right, where they fit in
WIDTH columns, the width of the window being drawn by default."
  (let* ((width (or width (window-width)))
         (left (gemini-ls--header-state))
         (right (substitute-command-keys
                 "\\<gemini-ls-chat-mode-map>\\[gemini-ls-chat-send] send · \\[gemini-ls-menu] menu")))
    (string-replace
     "%" "%%"
     (concat " " left
             ;; The state first: the keys go where both would not fit.
             (when (< (+ (string-width left) (string-width right) 3) width)
               (concat (propertize " " 'display `(space :align-to (- right ,(1+ (string-width right)))))
                       (propertize right 'face 'shadow)))))))

;;;; The model

(defun gemini-ls--model-server ()
  "Return the gemini-ls server whose model is in the mode line.
The current buffer's, else the last one connected."
  (or (let ((s (ignore-errors (eglot-current-server))))
        (and (cl-typep s 'gemini-ls-server) s))
      (car gemini-ls--servers)))

(defun gemini-ls--model-label (model)
  "Return MODEL, a server's model plist, as shown.
\"Auto\", and where an alias was routed, the model that answered:
\"Auto → gemini-3.8-flash\"; nil until the server has said."
  (let* ((current (plist-get model :current))
         (name (or (plist-get model :name) current))
         (answered (plist-get model :answered)))
    (when (and name (not (string-empty-p name)))
      (if (and answered (not (member answered (list current name))))
          (format "%s → %s" name answered)
        name))))

(defun gemini-ls--adopt-models (server result)
  "Take SERVER's model and approval mode from RESULT, `gemini/models' answer."
  (setf (gemini-ls--server-model server)
        (list :current (plist-get result :current)
              :name (plist-get result :currentName)))
  (let ((mode (plist-get result :approvalMode)))
    (when (and (stringp mode) (not (string-empty-p mode)))
      (setf (gemini-ls--server-approval-mode server) mode)))
  (force-mode-line-update t))

(defun gemini-ls--refresh-model (server)
  "Ask SERVER for its model (`gemini/models'), for the mode line.
An older server without it leaves the mode line without a model."
  (jsonrpc-async-request
   server :gemini/models (make-hash-table)
   :success-fn (lambda (result) (gemini-ls--adopt-models server result))
   :error-fn #'ignore
   :timeout-fn #'ignore))

(defun gemini-ls--refresh-auth (server)
  "Ask SERVER whether it can reach the model (`gemini/authStatus').
When it cannot, the chat says why and the header line says so; an
older server without the method says nothing."
  (jsonrpc-async-request
   server :gemini/authStatus (make-hash-table)
   :success-fn (lambda (result) (gemini-ls--adopt-auth server result))
   :error-fn #'ignore
   :timeout-fn #'ignore))

(defun gemini-ls--adopt-auth (server auth)
  "Take AUTH, a `gemini/authStatus' result, as SERVER's; tell a problem."
  (setf (gemini-ls--server-auth server) auth)
  (unless (eq (plist-get auth :usable) t)
    (gemini-ls--tell (concat "No credentials: " (or (plist-get auth :problem) "")
                             "\nIn Emacs, M-x gemini-ls-login signs in with Google.")))
  (force-mode-line-update t))

(defun gemini-ls--model-choice-label (model current)
  "Return how MODEL, one of `gemini/models' models, is offered.
CURRENT is the model chosen now."
  (let ((desc (plist-get model :description)))
    (concat (or (plist-get model :name) (plist-get model :id))
            (if (equal (plist-get model :id) current) " (current)" "")
            (if (and desc (not (string-empty-p desc))) (concat " — " desc) ""))))

;;;###autoload (autoload 'gemini-ls-model "gemini-ls" nil t)
(defun gemini-ls-model (&optional persist)
  "Choose the Gemini model from the server's list, Gemini CLI 0.61's.
It is set with the `/model set' command, for every session; with a
prefix argument PERSIST, it is also remembered for future sessions
\(`--persist': model.name in ~/.gemini/settings.json)."
  (interactive "P")
  (let* ((server (gemini-ls--server))
         (result (condition-case err
                     (jsonrpc-request server :gemini/models (make-hash-table))
                   (jsonrpc-error
                    (user-error "%s" (if (gemini-ls--method-not-found-p err)
                                         "This gemini-ls cannot list the models (gemini/models); update it"
                                       (alist-get 'jsonrpc-error-message (cdr err)))))))
         (current (plist-get result :current))
         (choices (mapcar (lambda (m) (cons (gemini-ls--model-choice-label m current) m))
                          (plist-get result :models))))
    (gemini-ls--adopt-models server result)
    (let* ((label (completing-read
                   (if persist "Gemini model (remembered for future sessions): " "Gemini model: ")
                   ;; Keep the server's order.
                   (lambda (str pred action)
                     (if (eq action 'metadata)
                         '(metadata (display-sort-function . identity))
                       (complete-with-action action choices str pred)))
                   nil t))
           (model (cdr (assoc label choices))))
      (when model
        (gemini-ls--send (format "/model set %s%s" (plist-get model :id)
                                 (if persist " --persist" ""))
                         nil server)))))

(defun gemini-ls--status-changed ()
  "Redraw every mode line: the Gemini status changed."
  (force-mode-line-update t))

;; Like eglot's own indicator, in every mode line.
(add-to-list 'mode-line-misc-info '(:eval (gemini-ls--mode-line)))

(provide 'gemini-ls-server)
;;; gemini-ls-server.el ends here
