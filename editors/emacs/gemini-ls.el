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
  :risky t)

(defcustom gemini-ls-install-dir (locate-user-emacs-file "gemini-ls/")
  "Where `gemini-ls-install-server' puts the gemini-ls binary."
  :type 'directory
  :risky t)

(defcustom gemini-ls-release-url
  "https://github.com/gemini-ls/gemini-ls/releases/latest/download/"
  "Where `gemini-ls-install-server' downloads from.
A URL (https, http or file) of a directory holding the release
archives, gemini-ls-OS-ARCH.tar.gz (.zip for Windows), and their
SHA256SUMS."
  :type 'string
  :risky t)

(defcustom gemini-ls-auto-save t
  "Save a file once its change is accepted.
Shell commands the agent runs next then see the change on disk."
  :type 'boolean
  :safe #'booleanp)

(defcustom gemini-ls-initialization-options nil
  "Plist sent as initializationOptions, e.g. (:model \"gemini-2.5-flash\").
It can set the approval mode, so a directory's value is risky."
  :type '(plist)
  :risky t)

;;;; Server registration

(defclass gemini-ls-server (eglot-lsp-server)
  ((model :initform nil :accessor gemini-ls--server-model
          :documentation "The model as the server reports it: a plist of
:current (as named), :name (as shown) and :answered (the model that last
answered), from `gemini/models' and the model and usage updates.")
   (approval-mode :initform nil :accessor gemini-ls--server-approval-mode
                  :documentation "The approval mode every session follows
unless it switched itself, as `gemini/models' says it; nil from a server
that does not say."))
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

;;;###autoload
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
Its model is asked for at once, for the mode line to show."
  (when (cl-typep server 'gemini-ls-server)
    (push server gemini-ls--servers)
    (gemini-ls--refresh-model server)
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

(defun gemini-ls--start-server (project)
  "Start gemini-ls for PROJECT's chat and return it.
eglot manages it for the chat's mode alone, so the project's files keep
their own language servers."
  (let ((program (car (gemini-ls--server-program))))
    (unless (or (file-executable-p program) (executable-find program))
      (user-error "The gemini-ls server is not installed: M-x gemini-ls-install-server, or put it on PATH")))
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

;;;; Installing the server

(defvar url-http-end-of-headers)
(defvar url-http-response-status)

(defun gemini-ls--release-archive ()
  "The name of the release archive of gemini-ls for this machine."
  (let ((os (pcase system-type
              ('gnu/linux "linux")
              ('darwin "darwin")
              ('windows-nt "windows")
              (_ (user-error "No gemini-ls release for %s: build it from source" system-type))))
        (arch (pcase (car (split-string system-configuration "-"))
                ((or "x86_64" "amd64") "amd64")
                ((or "aarch64" "arm64") "arm64")
                (cpu (user-error "No gemini-ls release for %s: build it from source" cpu)))))
    (format "gemini-ls-%s-%s.%s" os arch (if (equal os "windows") "zip" "tar.gz"))))

;; The install works in the background: a download can take minutes, and
;; Emacs stays usable meanwhile, a progress reporter saying what it does.

(defvar gemini-ls--install nil
  "The install of gemini-ls under way, or nil.
A plist: :what it does now, :started (a time), :process the process or
url.el buffer it waits for, :tmp its directory, :reporter and :timer
that show its progress, :on-done its callback.  One at a time: two
would race to rename their binaries into the same place.")

(defconst gemini-ls--install-cancel-hint "M-x gemini-ls-install-cancel stops it"
  "How to stop the install under way, as its messages say.")

(defun gemini-ls--install-progress ()
  "Show what the install under way does, and for how long.
Not while the minibuffer reads: the message would hide what is typed."
  (let ((install gemini-ls--install))
    (when (and install (not (active-minibuffer-window)))
      (progress-reporter-update
       (plist-get install :reporter) nil
       (format "%s, %d s (%s)" (plist-get install :what)
               (float-time (time-since (plist-get install :started)))
               gemini-ls--install-cancel-hint)))))

(defun gemini-ls--install-end (install bin why)
  "End INSTALL: installed as BIN, or not, for WHY; say so.
Nothing, when INSTALL is no longer the one under way (cancelled)."
  (when (eq install gemini-ls--install)
    (setq gemini-ls--install nil)
    (cancel-timer (plist-get install :timer))
    (delete-directory (plist-get install :tmp) t)
    (if bin
        (message "Gemini: installed %s in %s" (car (process-lines bin "--version"))
                 (abbreviate-file-name gemini-ls-install-dir))
      (message "Gemini: gemini-ls was not installed: %s" why))
    (when (plist-get install :on-done)
      (funcall (plist-get install :on-done) bin why))))

(defmacro gemini-ls--install-step (install what &rest body)
  "Run BODY as INSTALL's next step, doing WHAT, unless INSTALL was stopped.
An error in BODY ends INSTALL with its message."
  (declare (indent 2) (debug t))
  `(when (eq ,install gemini-ls--install)
     (setq gemini-ls--install (plist-put ,install :what ,what))
     (condition-case err
         (progn ,@body)
       (error (gemini-ls--install-end ,install nil (error-message-string err))))))

(defun gemini-ls--download (install url file then)
  "Save URL, an https, http or file URL, as FILE, then call THEN.
In the background, as INSTALL's step; a failure ends INSTALL."
  (let ((parsed (url-generic-parse-url url)))
    (if (equal (url-type parsed) "file")
        (progn (copy-file (url-unhex-string (url-filename parsed)) file t)
               (funcall then))
      (plist-put
       install :process
       (url-retrieve
        url
        (lambda (status)
          (let ((buffer (current-buffer)))
            (unwind-protect
                (gemini-ls--install-step install (plist-get install :what)
                  (cond ((plist-get status :error)
                         (error "Could not download %s: %s" url
                                (error-message-string (plist-get status :error))))
                        ((not (eql url-http-response-status 200))
                         (error "Could not download %s: HTTP status %s" url url-http-response-status)))
                  (let ((coding-system-for-write 'no-conversion))
                    (write-region (1+ url-http-end-of-headers) (point-max) file nil 'silent))
                  (funcall then))
              (kill-buffer buffer))))
        nil t)))))

(defun gemini-ls--sha256 (file)
  "The SHA-256 of FILE's bytes, in hex."
  (with-temp-buffer
    (set-buffer-multibyte nil)
    (insert-file-contents-literally file)
    (secure-hash 'sha256 (current-buffer))))

(defun gemini-ls--expected-sha256 (sums name)
  "The SHA-256 that SUMS, a SHA256SUMS file, gives NAME, or an error."
  (with-temp-buffer
    (insert-file-contents sums)
    (if (re-search-forward (concat "^\\([0-9a-f]\\{64\\}\\) [ *]" (regexp-quote name) "$") nil t)
        (match-string 1)
      (error "SHA256SUMS names no %s" name))))

(defun gemini-ls--unpack (install file exe then)
  "Unpack EXE from the archive FILE into INSTALL's directory, then THEN.
With tar, in the background; a failure ends INSTALL."
  (let ((out (generate-new-buffer " *gemini-ls-install*")))
    (plist-put
     install :process
     (make-process
      :name "gemini-ls-install" :buffer out :noquery t :connection-type 'pipe
      :command (list "tar" "-xf" file "-C" (plist-get install :tmp) exe)
      :sentinel
      (lambda (proc _event)
        (unless (process-live-p proc)
          (let ((said (with-current-buffer out (string-trim (buffer-string)))))
            (kill-buffer out)
            (gemini-ls--install-step install (plist-get install :what)
              (unless (eql 0 (process-exit-status proc))
                (error "Could not unpack %s: %s" (file-name-nondirectory file) said))
              (funcall then)))))))))

;;;###autoload
(defun gemini-ls-install-server (&optional on-done)
  "Install gemini-ls in `gemini-ls-install-dir' from `gemini-ls-release-url'.
The release archive for this machine is downloaded, checked against the
release's SHA256SUMS and unpacked (with tar); the chat and eglot then
run it, unless `gemini-ls-server-command' names another.  It works in
the background, a progress reporter saying what it does;
\\[gemini-ls-install-cancel] stops it.  ON-DONE, when given, is called
at the end with the binary installed and nil, or nil and why not."
  (interactive)
  (when gemini-ls--install
    (user-error "Gemini: gemini-ls is being installed already (%s); %s"
                (plist-get gemini-ls--install :what) gemini-ls--install-cancel-hint))
  (let* ((archive (gemini-ls--release-archive))
         (base (file-name-as-directory gemini-ls-release-url))
         (exe (if (eq system-type 'windows-nt) "gemini-ls.exe" "gemini-ls"))
         (tmp (make-temp-file "gemini-ls-install" t))
         (file (expand-file-name archive tmp))
         (sums (expand-file-name "SHA256SUMS" tmp))
         (install (list :what "starting" :started (current-time) :tmp tmp :on-done on-done
                        :reporter (make-progress-reporter "Gemini: installing gemini-ls"))))
    (plist-put install :timer (run-at-time 1 1 #'gemini-ls--install-progress))
    (setq gemini-ls--install install)
    (message "Gemini: downloading %s%s (%s)" base archive gemini-ls--install-cancel-hint)
    (gemini-ls--install-step install (concat "downloading " archive)
      (gemini-ls--download
       install (concat base archive) file
       (lambda ()
         (gemini-ls--install-step install "downloading SHA256SUMS"
           (gemini-ls--download
            install (concat base "SHA256SUMS") sums
            (lambda ()
              (gemini-ls--install-step install (concat "checking " archive)
                (let ((want (gemini-ls--expected-sha256 sums archive))
                      (got (gemini-ls--sha256 file)))
                  (unless (equal want got)
                    (error "%s%s does not match SHA256SUMS: its SHA-256 is %s, SHA256SUMS says %s"
                           base archive got want)))
                (gemini-ls--install-step install (concat "unpacking " archive)
                  (gemini-ls--unpack
                   install file exe
                   (lambda ()
                     (make-directory gemini-ls-install-dir t)
                     (let ((bin (expand-file-name exe gemini-ls-install-dir)))
                       ;; Replaced whole, never half-written, should a server run it.
                       (rename-file (expand-file-name exe tmp) bin t)
                       (set-file-modes bin #o755)
                       (gemini-ls--install-end install bin nil))))))))))))))

(defun gemini-ls-install-cancel ()
  "Stop the install of gemini-ls under way; nothing is installed."
  (interactive)
  (let ((install gemini-ls--install))
    (unless install
      (user-error "Gemini: no install of gemini-ls is under way"))
    (setq gemini-ls--install nil)
    (cancel-timer (plist-get install :timer))
    (let ((waited (plist-get install :process)))
      (cond ((processp waited) (delete-process waited))
            ((buffer-live-p waited)
             (let ((proc (get-buffer-process waited)))
               (when proc (delete-process proc)))
             (kill-buffer waited))))
    (delete-directory (plist-get install :tmp) t)
    (message "Gemini: the install was cancelled after %d s; nothing was installed"
             (float-time (time-since (plist-get install :started))))))

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

(defun gemini-ls--header-state ()
  "What Gemini does, the model and the approval mode, for the header line."
  (let* ((status (or (gemini-ls--status) 'idle))
         (words (or (gemini-ls--status-words status) "ready")))
    (string-join
     (delq nil (list (propertize words 'face (gemini-ls--status-face status)
                                 'help-echo (gemini-ls--status-help status))
                     (gemini-ls--model-indicator)
                     (gemini-ls--mode-indicator (gemini-ls-approval-mode))))
     " · ")))

(defun gemini-ls--header-line (&optional width)
  "The chat's header line: what Gemini does, the model, the approval mode.
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

(defun gemini-ls--model-choice-label (model current)
  "Return how MODEL, one of `gemini/models' models, is offered.
CURRENT is the model chosen now."
  (let ((desc (plist-get model :description)))
    (concat (or (plist-get model :name) (plist-get model :id))
            (if (equal (plist-get model :id) current) " (current)" "")
            (if (and desc (not (string-empty-p desc))) (concat " — " desc) ""))))

;;;###autoload
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

;;;; Chat buffer

(defvar-local gemini-ls--chat-server nil "Server of the last prompt.")
(defvar-local gemini-ls--session-id nil "Session continued by the next prompt.")
(defvar-local gemini-ls--busy nil "Non-nil while a prompt runs.")
(defvar-local gemini-ls--running nil
  "The tool calls running, newest first.
Each is (KEY . TOOL-NAME), KEY the callId (a subagent's: see
`gemini-ls--subagent-call').")
(defvar-local gemini-ls--tool-lines nil "Alist: callId -> marker of the status text.")
(defvar-local gemini-ls--last-kind nil "Kind of the last update inserted.")
(defvar-local gemini-ls--subagents nil
  "Alist: invoke_agent callId -> (MARKER . LAST-KIND) of its subagent's block.
MARKER is where the block's next line goes, under the call's line;
LAST-KIND the kind of the block's last update.")
(defvar-local gemini-ls--modes nil
  "Alist: session id -> the approval mode the server last reported for it.")
(defvar gemini-ls--warned (make-hash-table :test 'equal)
  "Error messages already shown, so each is shown once.")

(defface gemini-ls-thought '((t :inherit shadow :slant italic))
  "Face of thought lines.")
(defface gemini-ls-tool '((t :inherit font-lock-function-name-face))
  "Face of tool call lines.")
(defface gemini-ls-user '((t :inherit bold))
  "Face of the user's prompts.")

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
  "Face of the line above the prompt area.")

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

;;;###autoload
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
  "Face of the line over folded text in the chat.")

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

(defun gemini-ls--insert-update (kind params)
  "Show the update of KIND with PARAMS in the chat."
  (gemini-ls--note-running kind params)
  (gemini-ls--with-chat
    (if (plist-get params :parentCallId)
        (gemini-ls--insert-subagent-update kind params)
      (gemini-ls--insert-main-update kind params))))

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

(defun gemini-ls--insert-main-update (kind params)
  "Show the main agent's update of KIND with PARAMS, at the end of the chat."
  (pcase kind
    ("text"
     (when (member gemini-ls--last-kind '("thought" "toolCall" "toolResult"))
       (gemini-ls--fresh-line))
     (insert (or (plist-get params :text) "")))
    ("thought"
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
    ("toolCall"
     (gemini-ls--fresh-line)
     (gemini-ls--insert-styled (format "- %s " (or (plist-get params :title)
                                                   (plist-get params :name)))
                               'gemini-ls-tool)
     (let ((m (point-marker)))
       (insert "[running]\n")
       (push (cons (plist-get params :callId) m) gemini-ls--tool-lines)))
    ("toolResult"
     (let ((m (cdr (assoc (plist-get params :callId) gemini-ls--tool-lines)))
           (status (format "[%s]" (plist-get params :status))))
       (if (not m)
           (progn (gemini-ls--fresh-line)
                  (insert (format "- %s %s\n" (plist-get params :name) status)))
         (save-excursion
           (goto-char m)
           (when (looking-at "\\[[a-z]+\\]")
             (replace-match status t t)))))
     (save-excursion (gemini-ls--end-subagent params)))
    ("error"
     (gemini-ls--fresh-line)
     (gemini-ls--insert-styled (format "Error: %s\n" (plist-get params :message))
                               'error)
     (gemini-ls--warn-once (plist-get params :message)))
    ("retry"
     (gemini-ls--fresh-line)
     (gemini-ls--insert-styled (concat "> " (gemini-ls--retry-note params) "\n") 'shadow))
    ("notice"
     (gemini-ls--fresh-line)
     (gemini-ls--insert-styled (format "> Note: %s\n" (plist-get params :message)) 'warning))
    ("mode"
     (gemini-ls--fresh-line)
     (gemini-ls--insert-styled (format "> mode: %s\n" (plist-get params :mode)) 'shadow))
    ("compressed"
     (gemini-ls--fresh-line)
     (gemini-ls--insert-styled
      (format "> Note: the conversation was compressed (%s → %s tokens)\n"
              (plist-get params :tokensBefore) (plist-get params :tokensAfter))
      'warning))
    (_ nil))
  (unless (equal kind "usage") (setq gemini-ls--last-kind kind)))

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
   &key sessionId kind &allow-other-keys)
  "Stream SERVER's update of a prompt into the chat buffer.
PARAMS, the update, has its SESSIONID and KIND."
  (with-current-buffer (gemini-ls--chat-buffer)
    (setq gemini-ls--chat-server server)
    (when (and sessionId (null gemini-ls--session-id))
      (setq gemini-ls--session-id sessionId))
    (when (and sessionId (equal kind "mode"))
      (setf (alist-get sessionId gemini-ls--modes nil nil #'equal)
            (plist-get params :mode))
      (force-mode-line-update)))
  (pcase kind
    ;; /model set: every session's model from now on.
    ("model" (setf (gemini-ls--server-model server)
                   (list :current (plist-get params :model) :name (plist-get params :name)))
             (force-mode-line-update t))
    ;; The main agent's model; a subagent's may differ.
    ("usage" (when (and (plist-get params :model) (not (plist-get params :parentCallId)))
               (setf (gemini-ls--server-model server)
                     (plist-put (gemini-ls--server-model server) :answered (plist-get params :model)))
               (force-mode-line-update t))))
  (gemini-ls--insert-update kind params))

(defun gemini-ls-toggle-thoughts ()
  "Show or hide the thoughts' text in the chat."
  (interactive)
  (with-current-buffer (gemini-ls--chat-buffer)
    (if (assq 'gemini-ls-thought buffer-invisibility-spec)
        (remove-from-invisibility-spec '(gemini-ls-thought . t))
      (add-to-invisibility-spec '(gemini-ls-thought . t)))
    (force-window-update (current-buffer))))

;;;; Prompts

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

(defun gemini-ls--diagnostics (beg end)
  "Flymake diagnostics between BEG and END as LSP Diagnostics."
  (when (and (bound-and-true-p flymake-mode) (fboundp 'flymake-diagnostics))
    (vconcat
     (mapcar (lambda (d)
               (list :range (list :start (eglot--pos-to-lsp-position
                                          (flymake-diagnostic-beg d))
                                  :end (eglot--pos-to-lsp-position
                                        (flymake-diagnostic-end d)))
                     :severity (pcase (flymake-diagnostic-type d)
                                 ((or :error 'eglot-error) 1)
                                 ((or :warning 'eglot-warning) 2)
                                 (_ 3))
                     :message (flymake-diagnostic-text d)))
             (flymake-diagnostics beg end)))))

(defun gemini-ls--context (&optional beg end diag-beg diag-end)
  "Context of the current buffer: uri, range BEG..END, diagnostics.
Diagnostics are those between DIAG-BEG and DIAG-END (default: the file)."
  (when buffer-file-name
    (let* ((beg (or beg (point)))
           (end (or end beg))
           (diags (gemini-ls--diagnostics (or diag-beg (point-min))
                                          (or diag-end (point-max)))))
      (append (list :uri (gemini-ls--uri buffer-file-name)
                    :range (list :start (eglot--pos-to-lsp-position beg)
                                 :end (eglot--pos-to-lsp-position end)))
              (when (and diags (> (length diags) 0))
                (list :diagnostics diags))))))

;;;; The diagnostics Emacs shows: gemini/diagnostics

(defvar flycheck-current-errors)
(declare-function flycheck-error-pos "ext:flycheck" (err))
(declare-function flycheck-error-level "ext:flycheck" (err))
(declare-function flycheck-error-message "ext:flycheck" (err))
(declare-function flycheck-error-checker "ext:flycheck" (err))
(declare-function flycheck-error-id "ext:flycheck" (err))

(defun gemini-ls--shown-diagnostics (buffer)
  "Return the diagnostics on BUFFER as LSP Diagnostics, a vector.
Flycheck's where `flycheck-mode' is on, else Flymake's; none for no BUFFER."
  (if (not (buffer-live-p buffer))
      []
    (with-current-buffer buffer
      (save-restriction
        (widen)
        (if (bound-and-true-p flycheck-mode)
            (vconcat
             (mapcar (lambda (err)
                       (let ((at (eglot--pos-to-lsp-position (flycheck-error-pos err)))
                             (checker (flycheck-error-checker err)))
                         (append (list :range (list :start at :end at)
                                       :severity (pcase (flycheck-error-level err)
                                                   ('error 1) ('warning 2) (_ 3))
                                       :message (flycheck-error-message err))
                                 (when checker (list :source (format "%s" checker)))
                                 (when (flycheck-error-id err)
                                   (list :code (format "%s" (flycheck-error-id err)))))))
                     flycheck-current-errors))
          (or (gemini-ls--diagnostics (point-min) (point-max)) []))))))

(cl-defmethod eglot-handle-request
  ((_ gemini-ls-server) (_ (eql gemini/diagnostics)) &key uris &allow-other-keys)
  "Answer with the diagnostics Emacs has on the files of URIS.
Without URIS, those of every buffer visiting a file that shows some.
A file no buffer visits has none; no buffer is made for it."
  (list
   :items
   (vconcat
    (if (> (length uris) 0)
        (mapcar (lambda (uri)
                  (let ((path (gemini-ls--uri-path uri)))
                    (list :uri uri
                          :diagnostics (gemini-ls--shown-diagnostics (find-buffer-visiting path)))))
                uris)
      (delq nil
            (mapcar (lambda (b)
                      (let ((shown (and (buffer-file-name b) (gemini-ls--shown-diagnostics b))))
                        (when (> (length shown) 0)
                          (list :uri (gemini-ls--uri (buffer-file-name b)) :diagnostics shown))))
                    (buffer-list)))))))

;;;; The editor's language servers: gemini/languageFeature

;; The agent's navigate_code and rename_symbol tools ask the language
;; servers eglot runs for the project's files (gopls, pyright, ...), never
;; gemini-ls itself.  The question is answered while gemini-ls waits:
;; Emacs asks the other server and reads its output alone meanwhile.
;; jsonrpc before 1.0.20 (Emacs 28's) runs the handler inside gemini-ls's
;; process filter, which reading gemini-ls's output would re-enter; newer
;; ones run it, and the other server's answer, from timers, which run
;; while Emacs waits, so each wait is short and the answer checked after.

(defcustom gemini-ls-language-feature-timeout 25
  "Seconds a language server has to answer the agent's question.
gemini-ls waits 30 s for the whole answer, which may take several
requests (a rename asks whether the symbol can be renamed first)."
  :type 'number
  :safe #'numberp)

(defconst gemini-ls--no-language-server -32001
  "The error code of a `gemini/languageFeature' no language server answers.")

(defconst gemini-ls--request-failed -32803
  "LSP's RequestFailed: the code of another server's error passed on.")

(defconst gemini-ls--language-features
  '(("definition" :textDocument/definition :definitionProvider)
    ("type_definition" :textDocument/typeDefinition :typeDefinitionProvider)
    ("implementation" :textDocument/implementation :implementationProvider)
    ("references" :textDocument/references :referencesProvider)
    ("hover" :textDocument/hover :hoverProvider)
    ("document_symbols" :textDocument/documentSymbol :documentSymbolProvider)
    ("workspace_symbols" :workspace/symbol :workspaceSymbolProvider)
    ("incoming_calls" :callHierarchy/incomingCalls :callHierarchyProvider)
    ("outgoing_calls" :callHierarchy/outgoingCalls :callHierarchyProvider)
    ("rename" :textDocument/rename :renameProvider))
  "Each operation of `gemini/languageFeature': (OPERATION METHOD CAPABILITY).
METHOD is the LSP request that answers it, CAPABILITY the server
capability that says a server answers METHOD.")

;;;;; Positions in the connections' encodings

(defun gemini-ls--position-encoding (server)
  "The position encoding of SERVER's connection, as eglot counts in it.
The one SERVER chose among those eglot offered; UTF-16 when eglot
offered none (eglot before 1.12) or SERVER chose none."
  (let ((offered (plist-get (plist-get (eglot-client-capabilities server) :general)
                            :positionEncodings))
        (chosen (plist-get (eglot--capabilities server) :positionEncoding)))
    (if (and (stringp chosen) (seq-contains-p offered chosen)) chosen "utf-16")))

(defun gemini-ls--char-units (char encoding)
  "How many code units of ENCODING CHAR takes."
  (pcase encoding
    ("utf-32" 1)
    ("utf-8" (cond ((< char #x80) 1) ((< char #x800) 2) ((< char #x10000) 3)
                   ((<= char #x10ffff) 4)
                   (t 1)))              ; a raw byte
    (_ (if (and (> char #xffff) (<= char #x10ffff)) 2 1))))

(defun gemini-ls--column (encoding)
  "Point's column on its line, counted in ENCODING's code units."
  (let ((end (point)) (n 0))
    (save-excursion
      (beginning-of-line)
      (while (< (point) end)
        (setq n (+ n (gemini-ls--char-units (char-after) encoding)))
        (forward-char)))
    n))

(defun gemini-ls--move-to-column (column encoding)
  "Move to COLUMN of the current line, counted in ENCODING's code units.
Not past the line's end; a COLUMN within a character (half of a UTF-16
surrogate pair) stops before it."
  (beginning-of-line)
  (let ((end (line-end-position)) (n 0))
    (while (and (< (point) end)
                (<= (+ n (gemini-ls--char-units (char-after) encoding)) column))
      (setq n (+ n (gemini-ls--char-units (char-after) encoding)))
      (forward-char))))

(cl-defstruct (gemini-ls--recount (:constructor gemini-ls--recount-create))
  "Positions counted in FROM's code units, to count in TO's.
TEXTS maps a file URI to the buffer with its text, COPIES holds the
buffers made for that, killed by `gemini-ls--recount-done'."
  from to (texts (make-hash-table :test #'equal)) copies)

(defun gemini-ls--recount-text (recount uri)
  "The buffer with URI's text for RECOUNT, or nil if it cannot be read.
The buffer visiting the file, as the language servers see it; else a
copy of the file."
  (let ((texts (gemini-ls--recount-texts recount)))
    (or (gethash uri texts)
        (puthash uri
                 (let ((path (ignore-errors (gemini-ls--uri-path uri))))
                   (or (and path (find-buffer-visiting path))
                       (and path (file-readable-p path) (not (file-directory-p path))
                            (let ((copy (generate-new-buffer " *gemini-ls-text*" t)))
                              (push copy (gemini-ls--recount-copies recount))
                              (with-current-buffer copy
                                (let ((coding-system-for-read 'utf-8))
                                  (insert-file-contents path)))
                              copy))))
                 texts))))

(defun gemini-ls--recount-done (recount)
  "Kill the copies of files RECOUNT made."
  (mapc #'kill-buffer (gemini-ls--recount-copies recount)))

(defun gemini-ls--recount-position (recount uri position)
  "POSITION, an LSP Position in URI's file, recounted by RECOUNT.
The same POSITION when the counts agree or the file cannot be read."
  (let ((text (and position
                   (not (equal (gemini-ls--recount-from recount) (gemini-ls--recount-to recount)))
                   (gemini-ls--recount-text recount uri))))
    (if (not text)
        position
      (with-current-buffer text
        (save-excursion
          (save-restriction
            (widen)
            (goto-char (point-min))
            (if (/= 0 (forward-line (plist-get position :line)))
                position            ; past the end: the server's own business
              (gemini-ls--move-to-column (plist-get position :character)
                                         (gemini-ls--recount-from recount))
              (list :line (plist-get position :line)
                    :character (gemini-ls--column (gemini-ls--recount-to recount))))))))))

(defun gemini-ls--recount-range (recount uri range)
  "RANGE, an LSP Range in URI's file, recounted by RECOUNT."
  (and range
       (list :start (gemini-ls--recount-position recount uri (plist-get range :start))
             :end (gemini-ls--recount-position recount uri (plist-get range :end)))))

(defun gemini-ls--recount-keys (recount uri object &rest keys)
  "OBJECT, a plist, with its Ranges under KEYS, in URI's file, recounted.
RECOUNT recounts them."
  (let ((object (copy-sequence object)))
    (dolist (key keys object)
      (when (plist-get object key)
        (setq object (plist-put object key (gemini-ls--recount-range
                                            recount uri (plist-get object key))))))))

(defun gemini-ls--recount-location (recount origin location)
  "LOCATION, a Location or LocationLink, recounted by RECOUNT.
ORIGIN is the URI of the file asked about, where a link starts."
  (if (plist-get location :targetUri)
      (gemini-ls--recount-keys
       recount origin
       (gemini-ls--recount-keys recount (plist-get location :targetUri) location
                                :targetRange :targetSelectionRange)
       :originSelectionRange)
    (gemini-ls--recount-keys recount (plist-get location :uri) location :range)))

(defun gemini-ls--recount-symbol (recount origin symbol)
  "SYMBOL, a DocumentSymbol, SymbolInformation or WorkspaceSymbol, recounted.
RECOUNT recounts it; ORIGIN is the URI of the file of a DocumentSymbol."
  (let ((location (plist-get symbol :location)))
    (cond (location
           (plist-put (copy-sequence symbol) :location
                      (gemini-ls--recount-location recount origin location)))
          (t (let ((symbol (gemini-ls--recount-keys recount origin symbol
                                                    :range :selectionRange)))
               (if (plist-get symbol :children)
                   (plist-put symbol :children
                              (vconcat (mapcar (lambda (s) (gemini-ls--recount-symbol recount origin s))
                                               (plist-get symbol :children))))
                 symbol))))))

(defun gemini-ls--recount-item (recount item)
  "ITEM, a CallHierarchyItem, recounted by RECOUNT."
  (gemini-ls--recount-keys recount (plist-get item :uri) item :range :selectionRange))

(defun gemini-ls--recount-edits (recount uri edits)
  "EDITS, TextEdits of URI's file, recounted by RECOUNT."
  (vconcat (mapcar (lambda (e) (gemini-ls--recount-keys recount uri e :range)) edits)))

(defun gemini-ls--recount-workspace-edit (recount edit)
  "EDIT, a WorkspaceEdit, recounted by RECOUNT.
Its file operations (create, rename, delete) are left as they are."
  (let ((edit (copy-sequence edit)))
    (when (plist-get edit :changes)
      ;; An object keyed by URI, read as a plist of keywords.
      (setq edit (plist-put edit :changes
                            (cl-loop for (key edits) on (plist-get edit :changes) by #'cddr
                                     append (list key (gemini-ls--recount-edits
                                                       recount (substring (symbol-name key) 1)
                                                       edits))))))
    (when (plist-get edit :documentChanges)
      (setq edit (plist-put edit :documentChanges
                            (vconcat
                             (mapcar (lambda (change)
                                       (if (plist-get change :kind)
                                           change
                                         (plist-put (copy-sequence change) :edits
                                                    (gemini-ls--recount-edits
                                                     recount
                                                     (plist-get (plist-get change :textDocument) :uri)
                                                     (plist-get change :edits)))))
                                     (plist-get edit :documentChanges))))))
    edit))

;;;;; Asking the other language servers

(defun gemini-ls--other-server-p (server)
  "Non-nil if SERVER is a running language server other than gemini-ls."
  (and (not (cl-typep server 'gemini-ls-server)) (jsonrpc-running-p server)))

(defun gemini-ls--file-language-server (buffer)
  "The language server eglot has for BUFFER's file, unless gemini-ls's; or nil.
eglot runs one server per project and major mode; gemini-ls's, for a
mode handed to it with `gemini-ls-register', is never the one."
  (with-current-buffer buffer
    (cl-find-if (lambda (s) (and (gemini-ls--other-server-p s)
                                 (memq major-mode (eglot--major-modes s))))
                (gethash (eglot--current-project) eglot--servers-by-project))))

(defun gemini-ls--root-language-servers (path)
  "The language servers of the projects at, in or around PATH, not gemini-ls.
PATH is a file or a directory."
  (let ((dir (file-name-as-directory (expand-file-name path))))
    (cl-loop for servers being the hash-values of eglot--servers-by-project
             append (cl-remove-if-not
                     (lambda (s)
                       (and (gemini-ls--other-server-p s)
                            (let ((root (file-name-as-directory
                                         (expand-file-name (project-root (eglot--project s))))))
                              (or (string-prefix-p root dir) (string-prefix-p dir root)))))
                     servers))))

(defun gemini-ls--server-name (server)
  "SERVER's name as it gives it (\"gopls\"), else its program's, else eglot's."
  (or (plist-get (eglot--server-info server) :name)
      (let ((command (process-command (jsonrpc--process server))))
        (and (stringp (car command)) (file-name-nondirectory (car command))))
      (jsonrpc-name server)))

(defun gemini-ls--capable-p (server capability)
  "Non-nil if SERVER declared CAPABILITY, a keyword of ServerCapabilities."
  (let ((value (plist-get (eglot--capabilities server) capability)))
    (and value (not (eq value :json-false)))))

(defun gemini-ls--ask-language-server (server method params deadline)
  "Ask SERVER, another language server, METHOD with PARAMS; return its result.
Wait until DEADLINE, a `float-time', at most, reading SERVER's output
alone.  Its error is passed on as a `jsonrpc-error': MethodNotFound as
`gemini-ls--no-language-server', any other as
`gemini-ls--request-failed', with its message."
  (let ((proc (jsonrpc--process server))
        (name (gemini-ls--server-name server))
        (what (string-remove-prefix ":" (format "%s" method)))
        answer)
    (jsonrpc-async-request
     server method params
     :success-fn (lambda (result) (setq answer (list :result result)))
     :error-fn (lambda (err) (setq answer (list :error err)))
     :timeout-fn (lambda () (setq answer (list :timeout t)))
     :timeout (max 0.1 (- deadline (float-time))))
    (while (and (not answer) (process-live-p proc) (< (float-time) deadline))
      (accept-process-output proc (min 0.1 (max 0.01 (- deadline (float-time)))) nil t))
    (unless (or answer (process-live-p proc))
      (setq answer (list :error (list :message (format "%s exited" name)))))
    (pcase answer
      (`(:result ,result) result)
      (`(:error ,err)
       (if (eql (plist-get err :code) -32601) ; MethodNotFound
           (jsonrpc-error :code gemini-ls--no-language-server
                          :message (format "%s does not answer %s" name what))
         (jsonrpc-error :code gemini-ls--request-failed
                        :message (or (plist-get err :message)
                                     (format "%s failed to answer %s" name what)))))
      (_ (jsonrpc-error :code gemini-ls--request-failed
                        :message (format "%s did not answer %s within %s s"
                                         name what gemini-ls-language-feature-timeout))))))

(defun gemini-ls--vector (result)
  "RESULT, an LSP array, a single element or null, as a vector."
  (cond ((vectorp result) result)
        (result (vector result))
        (t [])))

(defun gemini-ls--language-feature (server operation params deadline)
  "Answer OPERATION, asking SERVER, another language server, with PARAMS.
PARAMS are `gemini/languageFeature''s, positions counted in SERVER's
encoding already; the answer's positions too.  DEADLINE as in
`gemini-ls--ask-language-server'."
  (let* ((feature (cdr (assoc operation gemini-ls--language-features)))
         (method (car feature))
         (uri (plist-get (plist-get params :textDocument) :uri))
         (at (list :textDocument (list :uri uri) :position (plist-get params :position)))
         (ask (lambda (method params)
                (gemini-ls--ask-language-server server method params deadline))))
    (pcase operation
      ("references"
       (funcall ask method (append at '(:context (:includeDeclaration t)))))
      ("hover" (funcall ask method at))
      ("document_symbols" (funcall ask method (list :textDocument (list :uri uri))))
      ("workspace_symbols" (funcall ask method (list :query (or (plist-get params :query) ""))))
      ((or "incoming_calls" "outgoing_calls")
       (vconcat
        (mapcan (lambda (item)
                  (mapcar (lambda (call) (cons item call))
                          (funcall ask method (list :item item))))
                (gemini-ls--vector (funcall ask :textDocument/prepareCallHierarchy at)))))
      ("rename"
       (when (and (plist-get (plist-get (eglot--capabilities server) :renameProvider)
                             :prepareProvider)
                  (null (funcall ask :textDocument/prepareRename at)))
         (jsonrpc-error :code gemini-ls--request-failed
                        :message (format "%s cannot rename the symbol there"
                                         (gemini-ls--server-name server))))
       (funcall ask method (append at (list :newName (plist-get params :newName)))))
      (_ (funcall ask method at)))))

(defun gemini-ls--recount-answer (recount operation uri answer)
  "ANSWER to OPERATION on URI's file, its positions recounted by RECOUNT.
A call hierarchy's ANSWER is a vector of (ITEM . CALL): the item asked
about and one of its calls."
  (pcase operation
    ((or "definition" "type_definition" "implementation" "references")
     (vconcat (mapcar (lambda (l) (gemini-ls--recount-location recount uri l))
                      (gemini-ls--vector answer))))
    ("hover" (and answer (gemini-ls--recount-keys recount uri answer :range)))
    ((or "document_symbols" "workspace_symbols")
     (vconcat (mapcar (lambda (s) (gemini-ls--recount-symbol recount uri s))
                      (gemini-ls--vector answer))))
    ("incoming_calls"
     (vconcat (mapcar (pcase-lambda (`(,_ . ,call))
                        (let ((from (plist-get call :from)))
                          (list :from (gemini-ls--recount-item recount from)
                                :fromRanges (vconcat (mapcar (lambda (r) (gemini-ls--recount-range
                                                                          recount (plist-get from :uri) r))
                                                             (plist-get call :fromRanges))))))
                      answer)))
    ("outgoing_calls"
     ;; The ranges of the calls are in the caller's file, the item's.
     (vconcat (mapcar (pcase-lambda (`(,item . ,call))
                        (list :to (gemini-ls--recount-item recount (plist-get call :to))
                              :fromRanges (vconcat (mapcar (lambda (r) (gemini-ls--recount-range
                                                                        recount (plist-get item :uri) r))
                                                           (plist-get call :fromRanges)))))
                      answer)))
    ("rename" (and answer (gemini-ls--recount-workspace-edit recount answer)))))

(defun gemini-ls--no-server-error (format-string &rest args)
  "Fail with `gemini-ls--no-language-server', the message FORMAT-STRING of ARGS."
  (jsonrpc-error :code gemini-ls--no-language-server
                 :message (apply #'format-message format-string args)))

(defun gemini-ls--visit-quietly (path)
  "A buffer visiting PATH, made without a question; nil if there is no such file.
Return (BUFFER . MADE), MADE non-nil if no buffer visited PATH before."
  (let ((buffer (find-buffer-visiting path)))
    (cond (buffer (cons buffer nil))
          ((file-regular-p path)
           ;; Not a question: a large file's, unsafe local variables'.
           (let ((enable-local-variables :safe))
             (cons (find-file-noselect path t) t))))))

(defun gemini-ls--workspace-symbols (path params encoding deadline)
  "Answer `gemini/languageFeature''s workspace symbols with PARAMS.
Every language server of the projects at, in or around PATH answers,
answers concatenated; an error only if none answers.  Positions are
counted in ENCODING; DEADLINE as in `gemini-ls--ask-language-server'."
  (let ((servers (or (cl-remove-if-not
                      (lambda (s) (gemini-ls--capable-p s :workspaceSymbolProvider))
                      (gemini-ls--root-language-servers path))
                     (gemini-ls--no-server-error
                      "No language server of Emacs answers workspace symbols in %s" path)))
        answers failure)
    (dolist (s servers)
      (let ((recount (gemini-ls--recount-create :from (gemini-ls--position-encoding s)
                                                :to encoding)))
        (unwind-protect
            (condition-case err
                (push (gemini-ls--recount-answer
                       recount "workspace_symbols" nil
                       (gemini-ls--language-feature s "workspace_symbols" params deadline))
                      answers)
              (jsonrpc-error (setq failure (or failure err))))
          (gemini-ls--recount-done recount))))
    (if (and failure (not answers))
        (signal (car failure) (cdr failure))
      (apply #'vconcat (nreverse answers)))))

(defun gemini-ls--file-feature (path operation params encoding deadline)
  "Answer `gemini/languageFeature''s OPERATION on PATH with PARAMS.
PATH's own language server answers; positions are counted in ENCODING;
DEADLINE as in `gemini-ls--ask-language-server'."
  (let ((visit (or (gemini-ls--visit-quietly path)
                   (gemini-ls--no-server-error "No file %s" path))))
    (unwind-protect
        (let* ((buffer (car visit))
               (other (or (gemini-ls--file-language-server buffer)
                          (gemini-ls--no-server-error
                           "No language server of Emacs manages %s" path)))
               (theirs (gemini-ls--position-encoding other))
               (ask-recount (gemini-ls--recount-create :from encoding :to theirs))
               (answer-recount (gemini-ls--recount-create :from theirs :to encoding))
               (uri (with-current-buffer buffer
                      (plist-get (eglot--TextDocumentIdentifier) :uri))))
          (unless (gemini-ls--capable-p
                   other (nth 2 (assoc operation gemini-ls--language-features)))
            (gemini-ls--no-server-error "%s, the language server of %s, does not answer %s"
                                        (gemini-ls--server-name other) path operation))
          ;; The changes eglot has not sent yet, as it sends them before
          ;; its own requests.
          (dolist (b (eglot--managed-buffers other))
            (with-current-buffer b (eglot--signal-textDocument/didChange)))
          (unwind-protect
              (gemini-ls--recount-answer
               answer-recount operation uri
               (gemini-ls--language-feature
                other operation
                (append (list :textDocument (list :uri uri)
                              :position (gemini-ls--recount-position
                                         ask-recount uri (plist-get params :position)))
                        params)
                deadline))
            (gemini-ls--recount-done ask-recount)
            (gemini-ls--recount-done answer-recount)))
      (when (cdr visit) (kill-buffer (car visit))))))

(cl-defmethod eglot-handle-request
  ((server gemini-ls-server) (_ (eql gemini/languageFeature)) &rest params
   &key operation textDocument &allow-other-keys)
  "Answer OPERATION on TEXTDOCUMENT with the file's own language server.
PARAMS is the whole request: its position, query and new name.  The
server is the one eglot runs for the file (visited, in no window, if
no buffer visits it), never SERVER, gemini-ls; none is started.  For
workspace symbols, those of the project of TEXTDOCUMENT, a file or a
directory.  A rename's edit is returned, not made.  Positions are
counted in SERVER's encoding, recounted for the other server's both
ways."
  (let ((path (and (plist-get textDocument :uri)
                   (gemini-ls--uri-path (plist-get textDocument :uri))))
        (encoding (gemini-ls--position-encoding server))
        (deadline (+ (float-time) gemini-ls-language-feature-timeout)))
    (cond ((not (assoc operation gemini-ls--language-features))
           (jsonrpc-error :code -32602 :message (format "Unknown operation %S" operation)))
          ((not path) (jsonrpc-error :code -32602 :message "No textDocument"))
          ((equal operation "workspace_symbols")
           (gemini-ls--workspace-symbols path params encoding deadline))
          (t (gemini-ls--file-feature path operation params encoding deadline)))))

(defun gemini-ls--send (prompt context &optional server)
  "Send PROMPT with CONTEXT to SERVER; stream the answer to the chat.
SERVER defaults to the current buffer's gemini-ls server.  The prompt
continues the chat's session."
  (let* ((server (or server (gemini-ls--server)))
         (chat (gemini-ls--chat-buffer)))
    (with-current-buffer chat
      (when gemini-ls--busy
        (user-error "Gemini is still working; M-x gemini-ls-cancel first"))
      ;; The chat's next prompts go to this server's project.
      (setq default-directory (file-name-as-directory
                               (expand-file-name (project-root (eglot--project server)))))
      (setq gemini-ls--chat-server server
            gemini-ls--busy t
            gemini-ls--running nil
            gemini-ls--last-kind nil))
    (gemini-ls--status-changed)
    (let (exchange)
      (gemini-ls--with-chat
        (unless (bobp) (insert "\n"))
        (setq exchange (point))
        (gemini-ls--insert-styled (concat "## You\n\n" prompt "\n") 'gemini-ls-user)
        (insert "\n## Gemini\n\n"))
      (gemini-ls--display-chat chat)
      (gemini-ls--reveal chat exchange))
    (let ((session (buffer-local-value 'gemini-ls--session-id chat)))
      (jsonrpc-async-request
       server :gemini/prompt
       (append (list :prompt prompt)
               (when session (list :sessionId session))
               (when context (list :context context)))
       :timeout 86400
       :success-fn
       (lambda (result)
         (with-current-buffer chat
           (setq gemini-ls--busy nil
                 gemini-ls--running nil
                 gemini-ls--session-id (plist-get result :sessionId)))
         (gemini-ls--status-changed)
         (let ((reason (plist-get result :stopReason)))
           (gemini-ls--with-chat
             (gemini-ls--fresh-line)
             (unless (equal reason "end_turn")
               (gemini-ls--insert-styled (format "\n%s\n" (gemini-ls--stop-note reason))
                                         'warning)))
           (when (equal reason "error")
             (gemini-ls--warn-once (plist-get result :error)))))
       :error-fn
       (lambda (err)
         (with-current-buffer chat (setq gemini-ls--busy nil gemini-ls--running nil))
         (gemini-ls--status-changed)
         (let ((msg (format "gemini/prompt failed: %s" (plist-get err :message))))
           (gemini-ls--with-chat
             (gemini-ls--fresh-line)
             (gemini-ls--insert-styled (concat msg "\n") 'error))
           (gemini-ls--warn-once msg)))
       :timeout-fn
       (lambda ()
         (with-current-buffer chat (setq gemini-ls--busy nil gemini-ls--running nil))
         (gemini-ls--status-changed))))))

;;;; Reading a prompt: "/" completes the user's commands

(defconst gemini-ls--commands-ttl 10
  "Seconds a `gemini/commands' list is used before it is asked again.
New command files and MCP servers that start later show up after this.")

(defvar gemini-ls--commands-cache nil
  "(SERVER TIME . COMMANDS): SERVER's last `gemini/commands' list.")

(defun gemini-ls--commands (server)
  "The commands a prompt may start with, as SERVER lists them.
Each is a plist (:name :description :hint :source), fetched with
`gemini/commands' and kept for `gemini-ls--commands-ttl' seconds.  A
server that cannot list them (an older one) completes none; the
command files it skipped are told once."
  (let ((cache gemini-ls--commands-cache))
    (if (and (eq (car cache) server)
             (< (float-time (time-since (cadr cache))) gemini-ls--commands-ttl))
        (cddr cache)
      (let ((commands
             (condition-case err
                 (let ((result (jsonrpc-request server :gemini/commands
                                                (make-hash-table) :timeout 5)))
                   (dolist (e (append (plist-get result :errors) nil))
                     (unless (gethash e gemini-ls--warned)
                       (puthash e t gemini-ls--warned)
                       (message "Gemini: %s" e)))
                   (append (plist-get result :commands) nil))
               (error
                (message "Gemini: could not list the commands: %s"
                         (error-message-string err))
                ;; The last list, not asked again until it is stale.
                (and (eq (car cache) server) (cddr cache))))))
        (setq gemini-ls--commands-cache (cons server (cons (current-time) commands)))
        commands))))

(defun gemini-ls--command-capf (server &optional start-fn)
  "A `completion-at-point' function for SERVER's commands.
It completes \"/name\" at the start of the prompt, where START-FN says
it starts (default: the minibuffer's), each name annotated with its
description."
  (lambda ()
    (let ((start (funcall (or start-fn #'minibuffer-prompt-end))))
      (when (and (eq (char-after start) ?/)
                 (not (string-match-p "[[:space:]]"
                                      (buffer-substring-no-properties start (point)))))
        (let* ((commands (mapcar (lambda (c) (cons (concat "/" (plist-get c :name)) c))
                                 (gemini-ls--commands server)))
               (width (apply #'max 0 (mapcar (lambda (c) (length (car c))) commands)))
               (end (save-excursion (skip-chars-forward "^[:space:]") (point))))
          (list start end commands
                :exclusive 'no
                :annotation-function
                (lambda (name)
                  ;; Descriptions in a column after the longest name, each
                  ;; on its line: cut to the window's width, not continued.
                  (truncate-string-to-width
                   (concat (make-string (+ 2 (- width (length name))) ?\s)
                           (replace-regexp-in-string
                            "[[:space:]]+" " "
                            (or (plist-get (cdr (assoc name commands)) :description) "")))
                   (max 0 (- (window-width (or (minibuffer-selected-window) (selected-window)))
                             (length name) 1))
                   nil nil "…"))))))))

(defvar gemini-ls-prompt-minibuffer-map
  (let ((map (make-sparse-keymap)))
    (set-keymap-parent map minibuffer-local-map)
    (define-key map (kbd "TAB") #'completion-at-point)
    map)
  "Keymap of the minibuffer reading a prompt: TAB completes \"/name\".")

(defun gemini-ls--read-prompt (question)
  "Read a prompt, asking QUESTION.
TAB after a leading \"/\" completes the commands of the current
buffer's gemini-ls server (`gemini/commands'): custom commands, MCP
prompts and the rest, each shown with its description."
  (let ((server (ignore-errors (gemini-ls--server))))
    (minibuffer-with-setup-hook
        (lambda ()
          (when server
            (add-hook 'completion-at-point-functions
                      (gemini-ls--command-capf server) nil t)))
      (read-from-minibuffer question nil gemini-ls-prompt-minibuffer-map
                            nil 'gemini-ls--history))))

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
  :safe #'natnump)

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

;;;###autoload
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

;; JSON-RPC's MethodNotFound: a server older than the method asked.
(defconst gemini-ls--method-not-found -32601)

(defun gemini-ls--method-not-found-p (err)
  "Non-nil if ERR, a `jsonrpc-error' condition, is MethodNotFound."
  (eql (alist-get 'jsonrpc-error-code (cdr err)) gemini-ls--method-not-found))

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
            (gemini-ls--adopt-mode gemini-ls--session-id result))
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

;;;###autoload
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

;;;###autoload
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
     (gemini-ls--clear-transcript)
     (gemini-ls--with-chat (insert (format "*%s*\n" header)))
     (gemini-ls--insert-exchanges (append (plist-get result :exchanges) nil))
     (funcall then))
   :error-fn (lambda (_) (funcall then))))

;;;###autoload
(defvar gemini-ls-browse-url-function #'browse-url
  "Opens an external URL the server shows: Google's sign-in page.")

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
     :success-fn (lambda (result) (message "Gemini: %s" (gemini-ls--login-message result)))
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

;;;###autoload
(defun gemini-ls-chat ()
  "Show the chat buffer."
  (interactive)
  (pop-to-buffer (gemini-ls--chat-buffer)))

;;;; The menu

(defun gemini-ls--chat-value (var)
  "The value of VAR in the chat buffer; nil without a chat."
  (let ((chat (get-buffer "*gemini*")))
    (and chat (buffer-local-value var chat))))

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

;;;; Edits

(cl-defstruct (gemini-ls--file (:constructor gemini-ls--file-create))
  "One file of a proposed change."
  buffer original proposed hunks created was-modified
  ;; The text the review last put in the buffer: anything else there
  ;; means the user edited it during the review.
  shown)

(defun gemini-ls--needs-confirmation-p (edit)
  "Non-nil if some change annotation of EDIT needs confirmation."
  (let ((anns (plist-get edit :changeAnnotations)) found)
    (while anns
      (when (eq (plist-get (cadr anns) :needsConfirmation) t) (setq found t))
      (setq anns (cddr anns)))
    found))

(defconst gemini-ls--column-vars
  '(eglot-move-to-column-function eglot-move-to-linepos-function)
  "Variables naming eglot's function that moves to an LSP column.
The name depends on eglot's version.  A managed buffer may set it for
the negotiated position encoding.")

(defvar gemini-ls--edit-encoding nil
  "The position encoding of the gemini-ls connection whose edit is read.
Bound while an edit of gemini-ls is read: its columns count in that
connection's encoding, not in that of another language server managing
the file's buffer (eglot's buffer-local column function).  nil: the
buffer's own.")

(defun gemini-ls--edit-point (position)
  "The point of POSITION, an LSP Position of gemini-ls's edit, or a marker.
Counted in `gemini-ls--edit-encoding', else as the buffer counts."
  (if (not gemini-ls--edit-encoding)
      (eglot--lsp-position-to-point position t)
    (save-excursion
      (goto-char (point-min))
      (forward-line (plist-get position :line))
      (gemini-ls--move-to-column (plist-get position :character) gemini-ls--edit-encoding)
      (copy-marker (point)))))

(defun gemini-ls--apply-edits-to-string (text edits buffer)
  "TEXT with the LSP text EDITS applied, counting columns as BUFFER does.
Or in `gemini-ls--edit-encoding' when it is bound."
  (let ((vars (cl-remove-if-not #'boundp gemini-ls--column-vars)))
    (cl-progv vars (mapcar (lambda (v) (buffer-local-value v buffer)) vars)
      (with-temp-buffer
        (insert text)
        (let ((regions
               (mapcar (lambda (e)
                         (let ((r (plist-get e :range)))
                           (list (gemini-ls--edit-point (plist-get r :start))
                                 (gemini-ls--edit-point (plist-get r :end))
                                 (plist-get e :newText))))
                       (append edits nil))))
          ;; Markers keep earlier edits' positions valid after later ones.
          (dolist (r regions)
            (goto-char (nth 0 r))
            (delete-region (nth 0 r) (nth 1 r))
            (insert (nth 2 r))))
        (buffer-string)))))

(defun gemini-ls--diff (old new name)
  "Unified diff of OLD and NEW text, with file NAME in the headers."
  (let ((a (make-temp-file "gemini-old")) (b (make-temp-file "gemini-new")))
    (unwind-protect
        (progn
          (let ((coding-system-for-write 'utf-8-unix))
            (write-region old nil a nil 'silent)
            (write-region new nil b nil 'silent))
          (with-temp-buffer
            (let ((coding-system-for-read 'utf-8-unix))
              (call-process diff-command nil t nil "-u"
                            "--label" (concat "a/" name)
                            "--label" (concat "b/" name) a b))
            (buffer-string)))
      (delete-file a) (delete-file b))))

(defun gemini-ls--parse-hunks (diff)
  "Hunks of unified DIFF: plists (:old-start :old-count :new-lines :text)."
  (let (hunks)
    (with-temp-buffer
      (insert diff)
      (goto-char (point-min))
      (while (re-search-forward
              "^@@ -\\([0-9]+\\)\\(?:,\\([0-9]+\\)\\)? \\+[0-9,]+ @@.*\n" nil t)
        (let ((old-start (string-to-number (match-string 1)))
              (old-count (if (match-string 2) (string-to-number (match-string 2)) 1))
              (beg (match-beginning 0))
              new-lines)
          (while (and (not (eobp)) (not (looking-at "^@@")))
            (let ((c (char-after))
                  (line (buffer-substring (1+ (point)) (line-end-position))))
              (forward-line 1)
              (cond ((looking-at "^\\\\ No newline")
                     (forward-line 1)
                     (when (memq c '(?\s ?+)) (push (cons line nil) new-lines)))
                    ((memq c '(?\s ?+)) (push (cons line t) new-lines)))))
          (push (list :old-start old-start :old-count old-count
                      :new-lines (nreverse new-lines)
                      :text (buffer-substring beg (point))
                      :decision nil)
                hunks))))
    (nreverse hunks)))

(defun gemini-ls--merge (original hunks)
  "ORIGINAL text with the HUNKS not rejected applied."
  (let* ((lines (split-string original "\n"))
         (final-newline (string-suffix-p "\n" original))
         (lines (if final-newline (butlast lines) lines))
         (out nil) (i 1) (last-newline final-newline))
    (dolist (h hunks)
      (unless (eq (plist-get h :decision) 'rejected)
        (let* ((start (plist-get h :old-start))
               (count (plist-get h :old-count))
               ;; diff gives the line before an insertion when count is 0.
               (first (if (zerop count) (1+ start) start)))
          (while (< i first) (push (nth (1- i) lines) out) (cl-incf i))
          (setq i (+ first count))
          (dolist (l (plist-get h :new-lines)) (push (car l) out))
          (when (>= (1- i) (length lines))
            (setq last-newline (or (null (plist-get h :new-lines))
                                   (cdr (car (last (plist-get h :new-lines))))))))))
    (while (<= i (length lines)) (push (nth (1- i) lines) out) (cl-incf i))
    (let ((s (mapconcat #'identity (nreverse out) "\n")))
      (if (and last-newline (not (string-empty-p s))) (concat s "\n") s))))

(defun gemini-ls--set-text (buffer text)
  "Make BUFFER hold TEXT, changing only what differs (eglot sends didChange)."
  (with-current-buffer buffer
    (unless (equal (buffer-string) text)
      (let ((src (generate-new-buffer " *gemini-src*")))
        (unwind-protect
            (progn
              (with-current-buffer src (insert text))
              (let ((inhibit-read-only t))
                (save-restriction
                  (widen)
                  (replace-buffer-contents src))))
          (kill-buffer src))))))

(defun gemini-ls--open-file (uri)
  "A buffer visiting the file of URI, and whether it is new."
  (let* ((path (gemini-ls--uri-path uri))
         (existing (find-buffer-visiting path)))
    (list (or existing (find-file-noselect path))
          (and (not existing) (not (file-exists-p path))))))

(defun gemini-ls--project-root (buffer)
  "BUFFER's project root, or nil."
  (let ((proj (with-current-buffer buffer (project-current))))
    (and proj (project-root proj))))

(defun gemini-ls--display-name (buffer)
  "BUFFER's file name relative to its project root, for diff headers."
  (let ((file (buffer-file-name buffer))
        (root (gemini-ls--project-root buffer)))
    (if root (file-relative-name file root) (abbreviate-file-name file))))

(defun gemini-ls--edit-files (edit)
  "The file records of EDIT (a WorkspaceEdit), opening its files' buffers.
Signals an error if a file changed since the server read it."
  (let ((pairs nil) (files nil))
    ;; (URI VERSION EDITS) for documentChanges, then changes.  A
    ;; CreateFile has no textDocument: the file's text edit that follows
    ;; it opens the new file's buffer, and saving that creates the file.
    (dolist (change (append (plist-get edit :documentChanges) nil))
      (let ((doc (plist-get change :textDocument)))
        (when doc
          (push (list (plist-get doc :uri) (plist-get doc :version)
                      (plist-get change :edits))
                pairs))))
    (let ((changes (plist-get edit :changes)))
      (while changes
        (push (list (substring (symbol-name (car changes)) 1) nil (cadr changes))
              pairs)
        (setq changes (cddr changes))))
    (condition-case err
        (dolist (p (nreverse pairs))
          (pcase-let* ((`(,uri ,version ,edits) p)
                       (`(,buf ,created) (gemini-ls--open-file uri)))
            (push (gemini-ls--file-create :buffer buf :created created
                                          :was-modified (buffer-modified-p buf))
                  files)
            (with-current-buffer buf
              ;; A version is the one of the buffer gemini-ls has open,
              ;; which its eglot manages (not another language server).
              (when (and version (gemini-ls--buffer-server)
                         (not (equal version eglot--versioned-identifier)))
                (error "The file changed since Gemini read it: %s"
                       (buffer-name buf))))
            (let ((original (with-current-buffer buf
                              (save-restriction (widen) (buffer-string)))))
              (setf (gemini-ls--file-original (car files)) original
                    (gemini-ls--file-proposed (car files))
                    (gemini-ls--apply-edits-to-string original edits buf)))))
      (error
       (gemini-ls--close-files files)
       (signal (car err) (cdr err))))
    (nreverse files)))

(defun gemini-ls--close-files (files)
  "Kill the buffers FILES opened for files that do not exist."
  (dolist (f files)
    (let ((b (gemini-ls--file-buffer f)))
      (when (and (gemini-ls--file-created f) (buffer-live-p b))
        (with-current-buffer b (set-buffer-modified-p nil))
        (kill-buffer b)))))

(defun gemini-ls--save (buffer)
  "Save BUFFER if `gemini-ls-auto-save', creating its directory."
  (when gemini-ls-auto-save
    (with-current-buffer buffer
      (make-directory (file-name-directory buffer-file-name) t)
      (save-buffer))))

(defun gemini-ls--did-change (buffer)
  "Tell the server what BUFFER has now, before it is answered.
Left to itself, eglot sends the change only once Emacs is idle."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (when (gemini-ls--buffer-server)
        (eglot--signal-textDocument/didChange)))))

(defun gemini-ls--apply-plain (edit)
  "Apply EDIT, which needs no review, and save its files.
Return the ApplyWorkspaceEditResult."
  (condition-case err
      (progn
        (dolist (f (gemini-ls--edit-files edit))
          (let ((b (gemini-ls--file-buffer f)))
            (gemini-ls--set-text b (gemini-ls--file-proposed f))
            (when (buffer-modified-p b) (gemini-ls--save b))
            (gemini-ls--did-change b)))
        '(:applied t))
    (error (list :applied :json-false
                 :failureReason (error-message-string err)))))

(cl-defmethod eglot-handle-request
  ((server gemini-ls-server) (_ (eql workspace/applyEdit)) &key edit
   &allow-other-keys)
  "Apply EDIT of SERVER, a change that needs no review (auto_edit).
\"Always Apply\" too.  A change to review comes as `gemini/request'; one
sent as a request would keep Emacs from answering until the review
ends, so it is refused."
  (if (gemini-ls--needs-confirmation-p edit)
      '(:applied :json-false
        :failureReason "gemini-ls.el reviews changes sent as gemini/request only")
    (let ((gemini-ls--edit-encoding (gemini-ls--position-encoding server)))
      (gemini-ls--apply-plain edit))))

;;;; Requests that wait for the user

(cl-defstruct (gemini-ls--request (:constructor gemini-ls--request-create))
  "A `gemini/request' the server waits on."
  server id method params
  ;; The review buffer, once the review is open.
  buffer)

(defun gemini-ls--find-request (server id)
  "The waiting request ID of SERVER."
  (cl-find-if (lambda (r) (and (eq (gemini-ls--request-server r) server)
                               (equal (gemini-ls--request-id r) id)))
              gemini-ls--requests))

(defun gemini-ls--answer (req key value)
  "Answer REQ with KEY (:result or :error) VALUE, unless it was withdrawn."
  (when (memq req gemini-ls--requests)
    (setq gemini-ls--requests (delq req gemini-ls--requests))
    (gemini-ls--status-changed)
    (let ((server (gemini-ls--request-server req)))
      (when (jsonrpc-running-p server)
        (jsonrpc-notify server :gemini/response
                        (list :id (gemini-ls--request-id req) key value))))))

(defun gemini-ls--withdraw (req)
  "Forget REQ without answering it."
  (setq gemini-ls--requests (delq req gemini-ls--requests))
  (gemini-ls--status-changed))

(cl-defmethod eglot-handle-notification
  ((server gemini-ls-server) (_ (eql gemini/request)) &key id method params
   &allow-other-keys)
  "Take request ID of SERVER, which waits for the user: METHOD with PARAMS.
It is a review or a question.  This returns at once; the answer goes as
`gemini/response' once the user has decided."
  (unless (gemini-ls--find-request server id)
    (let ((req (gemini-ls--request-create :server server :id id
                                          :method method :params params)))
      (setq gemini-ls--requests (append gemini-ls--requests (list req)))
      (gemini-ls--status-changed)
      (pcase method
        ;; Only changes to review come this way.
        ("workspace/applyEdit" (gemini-ls--review-next))
        ;; From a timer, so that the process filter returns first and the
        ;; question does not hold up the server's other messages.
        ((or "gemini/confirm" "gemini/ask")
         (run-at-time 0 nil #'gemini-ls--ask-next))
        (_ (gemini-ls--answer
            req :error
            (list :code -32601
                  :message (format "gemini-ls.el cannot handle %s" method))))))))

(cl-defmethod eglot-handle-notification
  ((server gemini-ls-server) (_ (eql gemini/cancelRequest)) &key id
   &allow-other-keys)
  "SERVER no longer waits for request ID: close its review or question."
  (let ((req (gemini-ls--find-request server id)))
    (when req
      (gemini-ls--withdraw req)
      (let ((buf (gemini-ls--request-buffer req)))
        (when (buffer-live-p buf)
          (with-current-buffer buf (gemini-ls--review-end 'withdrawn))))
      (when (eq gemini-ls--asking req)
        ;; Not from the process filter: a throw would leave the messages
        ;; after this one unread until the server writes again.
        (run-at-time 0 nil #'gemini-ls--interrupt req)))))

;;;; Confirmations

(defun gemini-ls--confirm (params)
  "Ask whether the tool call of PARAMS may run; return the result."
  (list :outcome (gemini-ls--confirm-outcome params)))

(defconst gemini-ls--confirm-choices
  '((?y "allow once" "Run it this time")
    (?a "always allow" "Allow such commands for this session")
    (?n "reject" "Do not run it"))
  "The answers to a `gemini/confirm' question.")

(defconst gemini-ls--rewind-choices
  '((?r "revert anyway" "Discard the changes made since the agent's too")
    (?k "keep my changes" "Leave the file as it is"))
  "The answers to a rewind's conflict.
A file changed since the agent's change is reverted anyway or kept;
\"always\" means nothing there.")

(defun gemini-ls--confirm-outcome (params)
  "Ask whether the tool call of PARAMS may run; return the outcome."
  (condition-case nil
      ;; Timers run with quitting inhibited; C-g should reject.
      (let* ((inhibit-quit nil)
             (choice (read-multiple-choice
                      (format "%s %s" (or (plist-get params :title) "Allow?")
                              (or (plist-get params :details) ""))
                      (cond ((equal (plist-get params :kind) "rewind")
                             gemini-ls--rewind-choices)
                            ;; "Always" only where it would hold: not
                            ;; for a command it cannot cover.
                            ((eq (plist-get params :canAllowAlways) t)
                             gemini-ls--confirm-choices)
                            (t (assq-delete-all
                                ?a (copy-sequence gemini-ls--confirm-choices)))))))
        (pcase (car choice)
          ((or ?y ?r) "proceed_once")
          (?a "proceed_always")
          (_ "cancel")))
    (quit "cancel")))

(defconst gemini-ls--decline "Decline"
  "The choice that dismisses a question of the model's.")

(defun gemini-ls--question-prompt (params)
  "The minibuffer prompt of the `gemini/ask' question PARAMS.
A plan to approve is not put in it whole: the server has the plan's
file shown (`window/showDocument') before it asks."
  (let ((title (plist-get params :title)))
    (format "%s%s%s "
            (if (string-empty-p (or title "")) "" (concat title ": "))
            (if (equal (plist-get params :kind) "plan_approval")
                "approve the plan shown? (or type what to change)"
              (or (plist-get params :text) ""))
            (cond ((eq t (plist-get params :multiple)) " (several, comma-separated)")
                  (t "")))))

(defun gemini-ls--question-answer (params picks)
  "The `gemini/ask' result of PICKS, the strings read for PARAMS.
A pick naming an option chooses it; any other is the user's own words
\(read only where the question takes them).  \"Decline\" declines, and
so does nothing at all, except where several options may be chosen:
there nothing is an answer, as Gemini CLI's \"Done\" with none ticked
is, and the model is told the user answered nothing."
  (let* ((labels (mapcar (lambda (o) (cons (plist-get o :label) (plist-get o :id)))
                         (plist-get params :options)))
         (picks (cl-remove-if #'string-empty-p (mapcar #'string-trim picks)))
         (chosen (delq nil (mapcar (lambda (p) (cdr (assoc p labels))) picks)))
         (words (cl-remove-if (lambda (p) (assoc p labels)) picks)))
    (if (or (member gemini-ls--decline picks)
            (and (null picks) (not (eq t (plist-get params :multiple)))))
        (list :declined t)
      (append (list :chosen (vconcat chosen) :declined :json-false)
              (and words (list :text (string-join words ", ")))))))

(defun gemini-ls--read-choice (prompt options)
  "Read one of OPTIONS, at most 8, or \"Decline\", shown after PROMPT.
The options are numbered, as Gemini CLI numbers a question's choices,
and a digit picks one; ? shows what each means.  Return the label
picked."
  (let* ((labels (append (mapcar (lambda (o) (plist-get o :label)) options)
                         (list gemini-ls--decline)))
         (descriptions (append (mapcar (lambda (o) (plist-get o :description)) options)
                               (list "Answer nothing")))
         (choices (cl-loop for label in labels
                           for description in descriptions
                           for key from ?1
                           collect (list key label (or description ""))))
         ;; Room for a question of several lines and its choices after it.
         (max-mini-window-height (max max-mini-window-height 0.5)))
    ;; After a question of several lines, the choices start a line of
    ;; their own, not the end of the last one, wrapped.
    (setq prompt (string-trim-right prompt))
    (nth 1 (read-multiple-choice (if (string-search "\n" prompt) (concat prompt "\n") prompt)
                                 choices))))

(defun gemini-ls--question (params)
  "Put the model's question PARAMS (`gemini/ask') to the user.
Return the result; \\[keyboard-quit] or \"Decline\" declines."
  (let* ((options (plist-get params :options))
         (free (eq t (plist-get params :freeText)))
         (prompt (gemini-ls--question-prompt params))
         (table (append (mapcar (lambda (o) (plist-get o :label)) options)
                        (list gemini-ls--decline)))
         (descriptions (mapcar (lambda (o) (cons (plist-get o :label)
                                                 (plist-get o :description)))
                               options))
         ;; The minibuffer keeps the options' order and shows what each
         ;; means beside it; the labels alone are read, as a description
         ;; may hold the commas that separate several picks.
         (collection
          (lambda (str pred action)
            (if (eq action 'metadata)
                `(metadata (display-sort-function . identity)
                           (annotation-function
                            . ,(lambda (label)
                                 (let ((d (cdr (assoc label descriptions))))
                                   (if (string-empty-p (or d "")) ""
                                     (concat " — " d))))))
              (complete-with-action action table str pred)))))
    (condition-case nil
        (let ((inhibit-quit nil))
          (gemini-ls--question-answer
           params
           (cond ((and (seq-empty-p options) free) (list (read-string prompt)))
                 ;; One of a few options and nothing else (the folder
                 ;; trust question): offered on screen, as Gemini CLI
                 ;; lists them, a digit each.
                 ((and (not (or free (eq t (plist-get params :multiple))))
                       (< (length options) 9))
                  (list (gemini-ls--read-choice prompt options)))
                 ((eq t (plist-get params :multiple))
                  (completing-read-multiple prompt collection nil (not free)))
                 (t (list (completing-read prompt collection nil (not free)))))))
      (quit (list :declined t)))))

(defun gemini-ls--ask-next ()
  "Ask the oldest waiting question, unless a question is on screen."
  (let ((req (cl-find-if (lambda (m) (member m '("gemini/confirm" "gemini/ask")))
                         gemini-ls--requests :key #'gemini-ls--request-method)))
    (when (and req (not gemini-ls--asking))
      (let ((result
             (unwind-protect
                 (progn
                   (setq gemini-ls--asking req)
                   (gemini-ls--status-changed)
                   (catch req
                     (funcall (if (equal (gemini-ls--request-method req) "gemini/ask")
                                  #'gemini-ls--question
                                #'gemini-ls--confirm)
                              (gemini-ls--request-params req))))
               (setq gemini-ls--asking nil)
               (gemini-ls--status-changed))))
        (when result
          (when (equal (gemini-ls--request-method req) "gemini/ask")
            (gemini-ls--record-answer (gemini-ls--request-params req) result))
          (gemini-ls--answer req :result result)))
      (run-at-time 0 nil #'gemini-ls--ask-next))))

(defun gemini-ls--answer-words (params result)
  "RESULT, the answer to the question PARAMS, as the chat records it.
The options chosen, by their labels, then the user's own words; or
that the user dismissed the question, or answered nothing."
  (if (eq (plist-get result :declined) t)
      "dismissed"
    (let* ((labels (mapcar (lambda (o) (cons (plist-get o :id) (plist-get o :label)))
                           (plist-get params :options)))
           (text (plist-get result :text))
           (parts (append (mapcar (lambda (id) (cdr (assoc id labels)))
                                  (plist-get result :chosen))
                          (and (stringp text) (not (string-empty-p text)) (list text)))))
      (if parts (string-join parts ", ") "nothing"))))

(defun gemini-ls--question-line (call-id)
  "The marker of the status of CALL-ID's line in the chat, or nil.
A subagent's call is found by its own id too, the newest first."
  (cdr (cl-find-if (lambda (entry)
                     (or (equal (car entry) call-id)
                         (string-suffix-p (concat "/" call-id) (car entry))))
                   gemini-ls--tool-lines)))

(defun gemini-ls--record-answer (params result)
  "Record in the chat the user's RESULT to the question PARAMS.
Under the line of the call that asked, which shows the question, as
Gemini CLI records it: \"Database → SQLite\"; a question no call
asked (the folder trust question) is recorded with its text."
  (let* ((title (plist-get params :title))
         (answer (gemini-ls--answer-words params result))
         (line (concat (if (string-empty-p (or title "")) "" (concat title " "))
                       "→ " answer)))
    (gemini-ls--with-chat
      (let ((status (and (plist-get params :callId)
                         (gemini-ls--question-line (plist-get params :callId)))))
        (if (not status)
            (progn (gemini-ls--fresh-line)
                   (gemini-ls--insert-styled
                    (format "> %s → %s\n" (string-trim (or (plist-get params :text) title ""))
                            answer)
                    'gemini-ls-user))
          (goto-char status)
          (let ((indent (+ 2 (current-indentation)))
                (at nil))
            (forward-line 1)
            ;; After the answers recorded already: the call's questions in order.
            (while (get-text-property (point) 'gemini-ls-answer) (forward-line 1))
            (setq at (point))
            (gemini-ls--insert-styled (concat (make-string indent ?\s) line) 'gemini-ls-user)
            (insert "\n")
            (put-text-property at (point) 'gemini-ls-answer t)
            ;; A subagent's block whose end this was goes on after it.
            (dolist (block gemini-ls--subagents)
              (when (= (cadr block) at) (set-marker (cadr block) (point))))))))))

(defun gemini-ls--interrupt (req)
  "Take the question of REQ, withdrawn by the server, off the screen."
  (when (eq gemini-ls--asking req)
    ;; Anything that runs while the question waits runs inside it.
    (throw req nil)))

;;;; Edit review

(defvar-local gemini-ls--review nil
  "In a review buffer: plist (:files FILES :request REQUEST).")

(defvar gemini-ls-review-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'gemini-ls-review-finish)
    (define-key map (kbd "C-c C-a") #'gemini-ls-review-accept-all)
    (define-key map (kbd "C-c C-k") #'gemini-ls-review-reject-all)
    (define-key map (kbd "C-c C-y") #'gemini-ls-review-accept-hunk)
    (define-key map (kbd "C-c C-r") #'gemini-ls-review-reject-hunk)
    (define-key map (kbd "C-c C-e") #'gemini-ls-review-ediff)
    (define-key map (kbd "A") #'gemini-ls-review-accept-all)
    (define-key map (kbd "R") #'gemini-ls-review-reject-all)
    (define-key map (kbd "a") #'gemini-ls-review-accept-hunk)
    (define-key map (kbd "r") #'gemini-ls-review-reject-hunk)
    (define-key map (kbd "e") #'gemini-ls-review-ediff)
    (define-key map (kbd "q") #'gemini-ls-review-finish)
    (define-key map (kbd "n") #'diff-hunk-next)
    (define-key map (kbd "p") #'diff-hunk-prev)
    ;; Hunks are found by counting them: none may vanish from the view.
    (define-key map [remap diff-hunk-kill] #'undefined)
    (define-key map [remap diff-file-kill] #'undefined)
    map)
  "Keymap of `gemini-ls-review-mode'.")

(define-minor-mode gemini-ls-review-mode
  "Review a change Gemini proposes.
Move between hunks with n and p.  Undecided hunks are accepted when
you finish.  Killing the buffer rejects the change.
\\{gemini-ls-review-mode-map}"
  :lighter " Review"
  (when gemini-ls-review-mode
    ;; The buffer is read-only, and diff-mode gives its read-only keys
    ;; precedence over minor modes; the review's keys come first.
    (setq-local minor-mode-overriding-map-alist
                (cons (cons 'gemini-ls-review-mode gemini-ls-review-mode-map)
                      minor-mode-overriding-map-alist))))

(defun gemini-ls--help-width ()
  "The width help lines are filled to: the review's window, else the frame's."
  (let ((w (get-buffer-window (current-buffer) t)))
    (max 20 (1- (if w (window-width w) (frame-width))))))

(defun gemini-ls--help-lines (items width)
  "ITEMS, strings, joined by \", \" in lines of at most WIDTH columns.
A line breaks only between items, never inside one (\"R: reject all\"
stays whole); an item longer than WIDTH gets a line of its own."
  (let ((lines nil) (line ""))
    (dolist (item items)
      (let ((joined (if (string-empty-p line) item (concat line ", " item))))
        (if (or (string-empty-p line) (<= (string-width joined) width))
            (setq line joined)
          (push (concat line ",") lines)
          (setq line item))))
    (push line lines)
    (concat (mapconcat #'identity (nreverse lines) "\n") "\n")))

(defun gemini-ls--review-render ()
  "Fill the review buffer from its files and decisions."
  (let ((inhibit-read-only t) (pos (point)))
    (erase-buffer)
    (gemini-ls--insert-styled
     (concat
      "Gemini proposes this change.\n"
      (gemini-ls--help-lines
            (mapcar (lambda (item)
                      (substitute-command-keys
                       (concat "\\<gemini-ls-review-mode-map>" item)))
                    '("\\[gemini-ls-review-accept-hunk]/\\[gemini-ls-review-reject-hunk]: accept/reject hunk"
                      "\\[gemini-ls-review-accept-all]: accept all"
                      "\\[gemini-ls-review-reject-all]: reject all"
                      "\\[gemini-ls-review-finish]: done"
                      "\\[gemini-ls-review-ediff]: ediff"))
      (gemini-ls--help-width)))
     'shadow)
    (dolist (f (plist-get gemini-ls--review :files))
      (let ((name (gemini-ls--display-name (gemini-ls--file-buffer f))))
        (insert (format "--- a/%s\n+++ b/%s\n" name name))
        (dolist (h (gemini-ls--file-hunks f))
          (let ((beg (point)))
            (insert (plist-get h :text))
            (pcase (plist-get h :decision)
              ('rejected
               (save-excursion
                 (goto-char beg) (end-of-line)
                 (gemini-ls--insert-styled "  [rejected]" 'error)))
              ('accepted
               (save-excursion
                 (goto-char beg) (end-of-line)
                 (gemini-ls--insert-styled "  [accepted]" 'success))))))))
    (goto-char (min pos (point-max)))
    (set-buffer-modified-p nil)))

(defun gemini-ls--review-check ()
  "Signal a user error unless this is an open review."
  (unless gemini-ls--review
    (user-error "Not in a Gemini review buffer")))

(defun gemini-ls--review-hunk-at-point ()
  "The (FILE . HUNK) at point in the review buffer."
  (save-excursion
    (end-of-line)
    (unless (re-search-backward "^@@ " nil t)
      (goto-char (point-min))
      (unless (re-search-forward "^@@ " nil t) (user-error "No hunk here"))
      (beginning-of-line))
    (let ((n (1+ (how-many "^@@ " (point-min) (point)))) found)
      (dolist (f (plist-get gemini-ls--review :files))
        (dolist (h (gemini-ls--file-hunks f))
          (when (and (not found) (zerop (cl-decf n)))
            (setq found (cons f h)))))
      found)))

(defun gemini-ls--file-edited-p (file)
  "Non-nil if the user changed FILE's buffer since the review wrote it."
  (let ((b (gemini-ls--file-buffer file)))
    (and (buffer-live-p b)
         (not (equal (with-current-buffer b
                       (save-restriction (widen) (buffer-string)))
                     (gemini-ls--file-shown file))))))

(defun gemini-ls--show (file text)
  "Make FILE's buffer hold TEXT, and remember it."
  (when (buffer-live-p (gemini-ls--file-buffer file))
    (gemini-ls--set-text (gemini-ls--file-buffer file) text)
    (setf (gemini-ls--file-shown file) text)))

(defun gemini-ls--review-sync (file)
  "Make FILE's buffer hold the original with its hunks not rejected."
  (gemini-ls--show file (gemini-ls--merge (gemini-ls--file-original file)
                                          (gemini-ls--file-hunks file))))

(defun gemini-ls--review-decide-hunk (decision)
  "Mark the hunk at point with DECISION and update the real buffer."
  (gemini-ls--review-check)
  (pcase-let ((`(,f . ,h) (gemini-ls--review-hunk-at-point)))
    (when (gemini-ls--file-edited-p f)
      (user-error "%s changed during the review: accept or reject it whole"
                  (buffer-name (gemini-ls--file-buffer f))))
    (plist-put h :decision decision)
    (gemini-ls--review-sync f)
    (gemini-ls--review-render)
    ;; Move on to the next hunk, as diff-mode's n would.
    (end-of-line)
    (if (re-search-forward "^@@ " nil t)
        (beginning-of-line)
      (goto-char (point-max)))))

(defun gemini-ls-review-accept-hunk ()
  "Accept the hunk at point."
  (interactive)
  (gemini-ls--review-decide-hunk 'accepted))

(defun gemini-ls-review-reject-hunk ()
  "Reject the hunk at point: it is reverted in the real buffer."
  (interactive)
  (gemini-ls--review-decide-hunk 'rejected))

(defun gemini-ls-review-finish ()
  "Answer with the hunk decisions; undecided hunks are accepted.
If you edited a file's buffer during the review, it keeps your text."
  (interactive)
  (gemini-ls--review-check)
  (gemini-ls--review-end 'finish))

(defun gemini-ls-review-accept-all ()
  "Accept every hunk and answer."
  (interactive)
  (gemini-ls--review-check)
  (dolist (f (plist-get gemini-ls--review :files))
    (dolist (h (gemini-ls--file-hunks f)) (plist-put h :decision 'accepted)))
  (gemini-ls--review-end 'finish))

(defun gemini-ls-review-reject-all ()
  "Reject the whole change: the buffers get back what they held."
  (interactive)
  (gemini-ls--review-check)
  (gemini-ls--review-end 'reject))

(defun gemini-ls-review-ediff ()
  "Compare the original with the real buffer (holding the proposal) in ediff."
  (interactive)
  (gemini-ls--review-check)
  (pcase-let ((`(,f . ,_) (or (ignore-errors (gemini-ls--review-hunk-at-point))
                              (list (car (plist-get gemini-ls--review :files))))))
    (let ((orig (get-buffer-create
                 (format "*gemini original %s*"
                         (buffer-name (gemini-ls--file-buffer f))))))
      (with-current-buffer orig
        (let ((inhibit-read-only t))
          (erase-buffer) (insert (gemini-ls--file-original f))))
      (ediff-buffers orig (gemini-ls--file-buffer f)))))

(defun gemini-ls--review-open (req)
  "Show the change of REQ in the real buffers and in a review buffer."
  (let* ((params (gemini-ls--request-params req))
         (files (let ((gemini-ls--edit-encoding
                       (gemini-ls--position-encoding (gemini-ls--request-server req))))
                  (gemini-ls--edit-files (plist-get params :edit))))
         (buf (generate-new-buffer "*gemini review*")))
    (condition-case err
        (dolist (f files)
          (setf (gemini-ls--file-hunks f)
                (gemini-ls--parse-hunks
                 (gemini-ls--diff (gemini-ls--file-original f)
                                  (gemini-ls--file-proposed f)
                                  (gemini-ls--display-name (gemini-ls--file-buffer f))))))
      (error (kill-buffer buf)
             (gemini-ls--close-files files)
             (signal (car err) (cdr err))))
    ;; The real buffers show the proposal while the user reviews.
    (dolist (f files) (gemini-ls--show f (gemini-ls--file-proposed f)))
    (with-current-buffer buf
      ;; Rendering edits the buffer; diff-mode must not "fix" it.
      (let ((diff-update-on-the-fly nil)) (diff-mode))
      (gemini-ls-review-mode 1)
      (setq default-directory
            (or (and files (gemini-ls--project-root (gemini-ls--file-buffer (car files))))
                default-directory))
      (setq-local header-line-format
                  (or (plist-get params :label) "Gemini: review the change"))
      (setq gemini-ls--review (list :files files :request req))
      (add-hook 'kill-buffer-hook #'gemini-ls--review-killed nil t)
      (gemini-ls--review-render)
      (setq buffer-read-only t)
      (goto-char (point-min))
      (when (re-search-forward "^@@ " nil t) (beginning-of-line)))
    (setf (gemini-ls--request-buffer req) buf)
    (gemini-ls--status-changed)
    (pop-to-buffer buf)
    ;; Filled again for the width of the window it got.
    (with-current-buffer buf
      (let ((pos (point)))
        (gemini-ls--review-render)
        (goto-char pos)))))

(defun gemini-ls--review-next ()
  "Open the oldest waiting review, unless a review is open."
  (let (req)
    (while (and (not (cl-find-if (lambda (r) (buffer-live-p (gemini-ls--request-buffer r)))
                                 gemini-ls--requests))
                (setq req (cl-find-if
                           (lambda (r)
                             (equal (gemini-ls--request-method r) "workspace/applyEdit"))
                           gemini-ls--requests)))
      (condition-case err
          (gemini-ls--review-open req)
        (error (gemini-ls--answer req :result
                                  (list :applied :json-false
                                        :failureReason (error-message-string err))))))))

(defun gemini-ls--review-killed ()
  "The review buffer is being killed: reject its change."
  (when gemini-ls--review
    (gemini-ls--review-end 'reject t)))

(defun gemini-ls--review-end (how &optional killed)
  "End the review in this buffer with the user's decision HOW.
`finish': the hunk decisions, undecided hunks accepted; `reject':
nothing; `withdrawn': the server no longer waits, so the buffers are
restored and nothing is answered.  KILLED: the buffer is being killed."
  (let* ((review gemini-ls--review)
         (req (plist-get review :request))
         (buf (current-buffer))
         (accepted nil))
    (setq gemini-ls--review nil)
    (dolist (f (plist-get review :files))
      (let ((b (gemini-ls--file-buffer f)))
        (unless (eq how 'finish)
          (dolist (h (gemini-ls--file-hunks f)) (plist-put h :decision 'rejected)))
        (cond
         ((not (buffer-live-p b)))
         ((and (eq how 'finish) (gemini-ls--file-edited-p f))
          ;; Text the user typed during the review is their answer.
          (setq accepted t)
          (gemini-ls--save b))
         ((cl-every (lambda (h) (eq (plist-get h :decision) 'rejected))
                    (gemini-ls--file-hunks f))
          (gemini-ls--show f (gemini-ls--file-original f))
          (with-current-buffer b
            (set-buffer-modified-p (gemini-ls--file-was-modified f)))
          (when (gemini-ls--file-created f)
            (kill-buffer b)))
         (t
          (setq accepted t)
          (gemini-ls--review-sync f)
          (gemini-ls--save b)))
        (gemini-ls--did-change b)))
    (unless killed
      (let ((win (get-buffer-window buf)))
        (if win (quit-window t win) (kill-buffer buf))))
    ;; A user's no carries no failureReason: with one, the server takes it
    ;; for the editor failing and tells the model so (docs/protocol.md).
    (unless (eq how 'withdrawn)
      (gemini-ls--answer req :result
                         (if accepted '(:applied t) '(:applied :json-false))))
    (gemini-ls--review-next)))

;;;; Completion as you type

(defcustom gemini-ls-completion-enabled t
  "Non-nil: Gemini completes code as you type.
`gemini-ls-completion-mode' is then turned on in every buffer eglot
manages with a gemini-ls server that offers inline completion; nil
leaves it off (\\[gemini-ls-complete-at-point] still asks)."
  :type 'boolean
  :safe #'booleanp)

(defcustom gemini-ls-completion-delay 0.2
  "Seconds Emacs must be idle after you type before a suggestion is asked for."
  :type 'number
  :safe #'numberp)

(defcustom gemini-ls-completion-trigger-commands
  '(self-insert-command newline delete-backward-char delete-char
    delete-forward-char backward-delete-char-untabify
    python-indent-dedent-line-backspace c-electric-backspace
    c-electric-delete-forward)
  "Commands after which a suggestion is asked for: typing and deleting.
Commands whose name holds \"self-insert\" or \"electric\" count too."
  :type '(repeat function)
  :risky t)

(defface gemini-ls-completion-ghost '((t :inherit shadow))
  "Face of a suggestion shown at point, before it is accepted.")

(defvar gemini-ls-completion-active-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "TAB") #'gemini-ls-completion-accept)
    (define-key map [tab] #'gemini-ls-completion-accept)
    (define-key map (kbd "M-f") #'gemini-ls-completion-accept-word)
    (define-key map (kbd "C-<right>") #'gemini-ls-completion-accept-word)
    map)
  "Keys active only while a suggestion is shown.
Without one, these keys do what they usually do.")

(defvar-local gemini-ls--completion-active nil
  "Non-nil while a suggestion is shown: `gemini-ls-completion-active-map' is on.")

(defvar gemini-ls--completion-emulation-alist
  `((gemini-ls--completion-active . ,gemini-ls-completion-active-map))
  "Puts `gemini-ls-completion-active-map' before the minor modes' maps.")

(add-to-list 'emulation-mode-map-alists 'gemini-ls--completion-emulation-alist)

(cl-defstruct (gemini-ls--completion-req (:constructor gemini-ls--completion-req-create))
  "A textDocument/inlineCompletion request.
OUTCOME is what the server answered once it has: (:items N) or
\(:error CODE)."
  server id kind tick point outcome)

(cl-defstruct (gemini-ls--ghost (:constructor gemini-ls--ghost-create))
  "A suggestion shown at point.
START is a marker where the item's text begins, TEXT the item's
insertText, AFTER how many characters after point it replaces, POS
where point was when it was shown."
  server item overlay start text after pos)

(defvar-local gemini-ls--completion-timer nil "The idle timer that asks next.")
(defvar-local gemini-ls--completion-pending nil
  "The request in flight, a `gemini-ls--completion-req'.")
(defvar-local gemini-ls--completion-ghost nil
  "The suggestion shown, a `gemini-ls--ghost'.")

;;;###autoload
(define-minor-mode gemini-ls-completion-mode
  "Gemini suggests code as you type, shown as ghost text at point.
When you stop typing for `gemini-ls-completion-delay' seconds, the
suggestion for point is asked of gemini-ls (textDocument/inlineCompletion)
and shown in the face `gemini-ls-completion-ghost'.  While it shows:
\\<gemini-ls-completion-active-map>\\[gemini-ls-completion-accept] inserts it, \
\\[gemini-ls-completion-accept-word] inserts its next word; typing its
next characters keeps the rest; any other command (\\[keyboard-quit],
moving away) takes it away.  Without a suggestion these keys do what
they usually do.  Turned on by `gemini-ls-completion-enabled'."
  :lighter nil
  (cond
   (gemini-ls-completion-mode
    (add-hook 'post-command-hook #'gemini-ls--completion-post-command nil t))
   (t
    (remove-hook 'post-command-hook #'gemini-ls--completion-post-command t)
    (gemini-ls--completion-stop))))

(defun gemini-ls--completion-offered-p (server)
  "Return non-nil if SERVER, a gemini-ls server, can complete inline.
It offers it as {}, which eglot reads as nil: the key counts."
  (and (cl-typep server 'gemini-ls-server)
       (plist-member (eglot--capabilities server) :inlineCompletionProvider)))

(defun gemini-ls--completion-maybe-enable ()
  "Turn `gemini-ls-completion-mode' on or off with eglot's management."
  (if (and eglot--managed-mode gemini-ls-completion-enabled
           (gemini-ls--completion-offered-p (eglot-current-server)))
      (gemini-ls-completion-mode 1)
    (when gemini-ls-completion-mode (gemini-ls-completion-mode -1))))

(add-hook 'eglot-managed-mode-hook #'gemini-ls--completion-maybe-enable)

(defun gemini-ls--completion-typing-p (command)
  "Non-nil if COMMAND types or deletes, after which a suggestion is asked for."
  (and (symbolp command)
       (or (memq command gemini-ls-completion-trigger-commands)
           (string-match-p "self-insert\\|electric" (symbol-name command)))))

(defun gemini-ls--completion-post-command ()
  "After each command: ask again after typing, else take the suggestion away."
  (let ((command this-command))
    (cond
     ((memq command '(gemini-ls-completion-accept gemini-ls-completion-accept-word
                      gemini-ls-complete-at-point)))
     ((gemini-ls--completion-typing-p command)
      ;; The request in flight is for text that is no longer there.
      (gemini-ls--completion-cancel)
      (gemini-ls--completion-type-through)
      ;; Not for the keys a keyboard macro replays.
      (when (and gemini-ls-completion-mode (not executing-kbd-macro))
        (gemini-ls--completion-schedule)))
     (t (gemini-ls--completion-stop)))))

(defun gemini-ls--completion-stop ()
  "Take the suggestion away, cancel the request in flight and the timer."
  (gemini-ls--completion-clear)
  (gemini-ls--completion-cancel)
  (when gemini-ls--completion-timer
    (cancel-timer gemini-ls--completion-timer)
    (setq gemini-ls--completion-timer nil)))

(defun gemini-ls--completion-schedule ()
  "Ask for a suggestion once Emacs has been idle for a while."
  (when gemini-ls--completion-timer (cancel-timer gemini-ls--completion-timer))
  (setq gemini-ls--completion-timer
        (run-with-idle-timer gemini-ls-completion-delay nil
                             #'gemini-ls--completion-idle (current-buffer))))

(defun gemini-ls--completion-idle (buffer)
  "The user stopped typing in BUFFER: ask for a suggestion there."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (setq gemini-ls--completion-timer nil)
      (when (and gemini-ls-completion-mode
                 (eq buffer (window-buffer (selected-window))))
        (gemini-ls--completion-request 2)))))

(defun gemini-ls--completion-diagnostics ()
  "Flymake's diagnostics within 10 lines of point, as LSP Diagnostics."
  (save-excursion
    (let* ((here (point))
           (beg (progn (forward-line -10) (point)))
           (end (progn (goto-char here) (forward-line 11) (point)))
           (diags (gemini-ls--diagnostics beg end)))
      (and diags (> (length diags) 0) diags))))

(defun gemini-ls--completion-request (kind)
  "Ask the server for a suggestion at point; KIND is the triggerKind:
1 the user asked, 2 as the user typed.  Cancels the one in flight."
  (gemini-ls--completion-cancel)
  (let ((server (eglot-current-server)))
    (when (and server (jsonrpc-running-p server))
      ;; The server completes what it knows: the buffer's edits first.
      (eglot--signal-textDocument/didChange)
      (let* ((buffer (current-buffer))
             (diags (gemini-ls--completion-diagnostics))
             (req (gemini-ls--completion-req-create
                   :server server :kind kind
                   :tick (buffer-chars-modified-tick) :point (point)))
             (params (append (eglot--TextDocumentPositionParams)
                             (list :context (list :triggerKind kind))
                             ;; gemini-ls's own field.
                             (and diags (list :diagnostics diags)))))
        (jsonrpc-async-request
         server :textDocument/inlineCompletion params
         :success-fn (lambda (result) (gemini-ls--completion-answered buffer req result))
         :error-fn (lambda (err) (gemini-ls--completion-failed buffer req err))
         :timeout-fn (lambda () (gemini-ls--completion-failed buffer req '(:code timeout))))
        ;; jsonrpc-async-request returns nothing: the request just sent
        ;; has the connection's last id, which $/cancelRequest names.
        (setf (gemini-ls--completion-req-id req) (jsonrpc--next-request-id server))
        (setq gemini-ls--completion-pending req)))))

(defun gemini-ls--completion-cancel ()
  "Cancel the request in flight.
Its answer is dropped, and the server, told with $/cancelRequest,
aborts the model's."
  (let ((req gemini-ls--completion-pending))
    (when req
      (setq gemini-ls--completion-pending nil)
      (let ((server (gemini-ls--completion-req-server req)))
        (when (and (not (gemini-ls--completion-req-outcome req))
                   (jsonrpc-running-p server))
          (jsonrpc-notify server :$/cancelRequest
                          (list :id (gemini-ls--completion-req-id req))))))))

(defun gemini-ls--completion-current-p (buffer req)
  "Non-nil if REQ is BUFFER's request in flight; it no longer is after."
  (and (buffer-live-p buffer)
       (with-current-buffer buffer
         (when (eq req gemini-ls--completion-pending)
           (setq gemini-ls--completion-pending nil)
           t))))

(defun gemini-ls--completion-failed (buffer req err)
  "REQ, BUFFER's request, failed with ERR, a JSON-RPC error object."
  (setf (gemini-ls--completion-req-outcome req) (list :error (plist-get err :code)))
  (when (and (gemini-ls--completion-current-p buffer req)
             (= 1 (gemini-ls--completion-req-kind req)))
    (message "Gemini: no suggestion: %s" (or (plist-get err :message) "timed out"))))

(defun gemini-ls--completion-answered (buffer req result)
  "Show the suggestion RESULT answers REQ, BUFFER's request, if it fits.
The buffer unchanged since (`buffer-chars-modified-tick'), point where
it was, the buffer in the selected window."
  (let ((items (if (vectorp result) result (plist-get result :items))))
    (setf (gemini-ls--completion-req-outcome req) (list :items (length items)))
    (when (gemini-ls--completion-current-p buffer req)
      (with-current-buffer buffer
        (when (and (= (gemini-ls--completion-req-tick req) (buffer-chars-modified-tick))
                   (= (gemini-ls--completion-req-point req) (point))
                   (eq buffer (window-buffer (selected-window))))
          (cond
           ((and (> (length items) 0)
                 (gemini-ls--completion-show (gemini-ls--completion-req-server req)
                                             (aref items 0))))
           ((= 1 (gemini-ls--completion-req-kind req))
            (gemini-ls--completion-clear)
            (message "Gemini: no suggestion here"))
           ;; Typed through: what still shows is the rest, as before.
           (t (gemini-ls--completion-clear))))))))

(defun gemini-ls--ghost-rest (ghost)
  "Return the part of GHOST's text not yet in the buffer before point.
nil when the text between its start and point is not the text's start."
  (let ((start (marker-position (gemini-ls--ghost-start ghost)))
        (text (gemini-ls--ghost-text ghost)))
    (when (and start (<= start (point)) (<= (- (point) start) (length text)))
      (let ((typed (buffer-substring-no-properties start (point))))
        (when (string-prefix-p typed text)
          (substring text (length typed)))))))

(defun gemini-ls--ghost-string (rest)
  "Return REST as the overlay is to draw it.
In the ghost face, the cursor on its start."
  (let ((s (propertize rest 'face 'gemini-ls-completion-ghost)))
    (put-text-property 0 1 'cursor t s)
    s))

(defun gemini-ls--completion-show (server item)
  "Show ITEM, SERVER's InlineCompletionItem, at point; tell the server.
Return nil if it cannot be shown here."
  (let* ((text (plist-get item :insertText))
         (range (plist-get item :range))
         (beg (if range (eglot--lsp-position-to-point (plist-get range :start)) (point)))
         (end (if range (eglot--lsp-position-to-point (plist-get range :end)) (point))))
    (when (and (stringp text) (<= beg (point) end))
      (let* ((ghost (gemini-ls--ghost-create
                     :server server :item item :text text
                     :start (copy-marker beg) :after (- end (point))))
             (rest (gemini-ls--ghost-rest ghost))
             (old gemini-ls--completion-ghost)
             (same (and old (equal rest (gemini-ls--ghost-rest old)))))
        (cond
         ((or (null rest) (string-empty-p rest)) nil)
         (t
          (gemini-ls--completion-clear)
          (let ((ov (make-overlay (point) (point) nil t nil)))
            (overlay-put ov 'after-string (gemini-ls--ghost-string rest))
            (overlay-put ov 'window (selected-window))
            (overlay-put ov 'priority 1000)
            (setf (gemini-ls--ghost-overlay ghost) ov
                  (gemini-ls--ghost-pos ghost) (point)))
          (setq gemini-ls--completion-ghost ghost
                gemini-ls--completion-active t)
          ;; Typing through a suggestion shows the same rest again.
          (unless same
            (jsonrpc-notify server :textDocument/didShowCompletion (list :item item)))
          t))))))

(defun gemini-ls--completion-clear ()
  "Take the suggestion away."
  (let ((ghost gemini-ls--completion-ghost))
    (when ghost
      (delete-overlay (gemini-ls--ghost-overlay ghost))
      (set-marker (gemini-ls--ghost-start ghost) nil)))
  (setq gemini-ls--completion-ghost nil
        gemini-ls--completion-active nil))

(defun gemini-ls--completion-redisplay ()
  "Show the rest of the suggestion at point, or take it away when none is left."
  (let* ((ghost gemini-ls--completion-ghost)
         (rest (and ghost (gemini-ls--ghost-rest ghost))))
    (if (or (null rest) (string-empty-p rest))
        (gemini-ls--completion-clear)
      (let ((ov (gemini-ls--ghost-overlay ghost)))
        (move-overlay ov (point) (point))
        (setf (gemini-ls--ghost-pos ghost) (point))
        (overlay-put ov 'after-string (gemini-ls--ghost-string rest))))))

(defun gemini-ls--completion-type-through ()
  "Keep showing the rest of the suggestion after typing its start.
Else (a deletion, say) take it away."
  (let ((ghost gemini-ls--completion-ghost))
    (when ghost
      (if (> (point) (gemini-ls--ghost-pos ghost))
          (gemini-ls--completion-redisplay)
        (gemini-ls--completion-clear)))))

(defun gemini-ls--utf16-length (string)
  "STRING's length in UTF-16 code units, as LSP counts."
  (+ (length string) (cl-count-if (lambda (c) (> c #xFFFF)) string)))

(defun gemini-ls--completion-run-command (ghost)
  "Run GHOST's item's command (gemini.acceptCompletion) on its server."
  (let ((command (plist-get (gemini-ls--ghost-item ghost) :command))
        (server (gemini-ls--ghost-server ghost)))
    (when (and command (jsonrpc-running-p server))
      (jsonrpc-async-request
       server :workspace/executeCommand
       (list :command (plist-get command :command)
             :arguments (or (plist-get command :arguments) []))
       :success-fn #'ignore :error-fn #'ignore :timeout-fn #'ignore))))

(defun gemini-ls--completion-fallback ()
  "Run what the keys of this command do without a suggestion."
  (gemini-ls--completion-clear)
  (let ((command (key-binding (this-command-keys-vector) t)))
    (when (and command (not (memq command '(gemini-ls-completion-accept
                                             gemini-ls-completion-accept-word))))
      (setq this-command command)
      (call-interactively command))))

(defun gemini-ls-completion-accept ()
  "Insert the suggestion shown at point."
  (interactive)
  (let* ((ghost gemini-ls--completion-ghost)
         (rest (and ghost (gemini-ls--ghost-rest ghost))))
    (if (not rest)
        (gemini-ls--completion-fallback)
      (gemini-ls--completion-clear)
      (let ((after (gemini-ls--ghost-after ghost)))
        (when (> after 0)
          (delete-region (point) (min (point-max) (+ (point) after)))))
      (insert rest)
      (gemini-ls--completion-run-command ghost))))

(defun gemini-ls-completion-accept-word ()
  "Insert the next word of the suggestion shown at point."
  (interactive)
  (let* ((ghost gemini-ls--completion-ghost)
         (rest (and ghost (gemini-ls--ghost-rest ghost))))
    (cond
     ((not rest) (gemini-ls--completion-fallback))
     ;; The last word: the whole suggestion is taken.
     ((not (and (string-match "\\`\\W*\\w+" rest) (< (match-end 0) (length rest))))
      (gemini-ls-completion-accept))
     (t
      (insert (substring rest 0 (match-end 0)))
      (let ((accepted (substring (gemini-ls--ghost-text ghost)
                                 0 (- (point) (gemini-ls--ghost-start ghost)))))
        (jsonrpc-notify (gemini-ls--ghost-server ghost)
                        :textDocument/didPartiallyAcceptCompletion
                        (list :item (gemini-ls--ghost-item ghost)
                              :acceptedLength (gemini-ls--utf16-length accepted))))
      (gemini-ls--completion-redisplay)))))

(defun gemini-ls-complete-at-point ()
  "Ask Gemini for a suggestion at point now, and show it as ghost text.
Works with `gemini-ls-completion-mode' off too."
  (interactive)
  (unless (gemini-ls--completion-offered-p (ignore-errors (eglot-current-server)))
    (user-error "No gemini-ls server with inline completion here"))
  ;; What takes the suggestion away when you do something else.
  (add-hook 'post-command-hook #'gemini-ls--completion-post-command nil t)
  (gemini-ls--completion-clear)
  (gemini-ls--completion-request 1))

;;;; Next edits

(defface gemini-ls-next-edit-old '((t :inherit diff-removed :strike-through t))
  "The text a next edit replaces."
  :group 'gemini-ls)

(defface gemini-ls-next-edit-new '((t :inherit diff-added))
  "The text a next edit puts in its place."
  :group 'gemini-ls)

(defvar-local gemini-ls--next-edit nil
  "The next edit shown: (:server :edits :tick :overlays :start).")

(defvar gemini-ls-next-edit-map
  (let ((map (make-sparse-keymap)))
    ;; Only where the edit is shown: elsewhere (another buffer, or once
    ;; it is gone) TAB keeps its own binding, even while the transient
    ;; map lingers.
    (define-key map (kbd "TAB")
                `(menu-item "" gemini-ls-next-edit-accept
                            :filter ,(lambda (cmd) (and gemini-ls--next-edit cmd))))
    map)
  "Keys while a next edit is shown; any other key takes it away.")

(defun gemini-ls-next-edit ()
  "Show the edit Gemini predicts you make next, anywhere in the buffer.
It is asked of gemini-ls (textDocument/copilotInlineEdit) for the
buffer as it is, and shown where it goes: the text it replaces struck
through, the new text after it.
\\<gemini-ls-next-edit-map>\\[gemini-ls-next-edit-accept] jumps to it when it is out of view, else applies it;
any other key takes it away."
  (interactive)
  (let ((server (ignore-errors (eglot-current-server)))
        (buffer (current-buffer)))
    (unless (gemini-ls--completion-offered-p server)
      (user-error "No gemini-ls server with next edits here"))
    (gemini-ls--next-edit-clear)
    (eglot--signal-textDocument/didChange)
    (let ((tick (buffer-chars-modified-tick)))
      (jsonrpc-async-request
       server :textDocument/copilotInlineEdit
       (list :textDocument (eglot--VersionedTextDocumentIdentifier)
             :position (eglot--pos-to-lsp-position))
       :success-fn (lambda (result) (gemini-ls--next-edit-answered buffer server tick result))
       :error-fn (lambda (err) (message "Gemini: no next edit: %s" (plist-get err :message)))
       :timeout-fn #'ignore))))

(defun gemini-ls--next-edit-answered (buffer server tick result)
  "Show the edits of RESULT, SERVER's answer for BUFFER at TICK.
Only if BUFFER has not changed since."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (let ((edits (append (plist-get result :edits) nil)))
        (cond
         ((/= tick (buffer-chars-modified-tick)))
         ((null edits) (message "Gemini: no next edit foreseen"))
         (t (gemini-ls--next-edit-show server edits tick)))))))

(defun gemini-ls--next-edit-show (server edits tick)
  "Show EDITS, SERVER's, made for the buffer at TICK; tell the server."
  (let (overlays start)
    (dolist (e edits)
      (let* ((range (plist-get e :range))
             (beg (eglot--lsp-position-to-point (plist-get range :start)))
             (ov (make-overlay beg (eglot--lsp-position-to-point (plist-get range :end)))))
        (overlay-put ov 'face 'gemini-ls-next-edit-old)
        (overlay-put ov 'after-string (propertize (plist-get e :text) 'face 'gemini-ls-next-edit-new))
        (push ov overlays)
        (setq start (min beg (or start beg)))))
    (setq gemini-ls--next-edit (list :server server :edits edits :tick tick
                                     :overlays overlays :start start))
    (jsonrpc-notify server :textDocument/didShowInlineEdit (list :item (car edits)))
    (set-transient-map gemini-ls-next-edit-map
                       (lambda () (and gemini-ls--next-edit
                                       (eq this-command #'gemini-ls-next-edit-accept)))
                       #'gemini-ls--next-edit-clear)
    (message (if (pos-visible-in-window-p start)
                 "Gemini: next edit: TAB applies it"
               (format "Gemini: next edit at line %d: TAB jumps there"
                       (line-number-at-pos start))))))

(defun gemini-ls--next-edit-clear ()
  "Take the next edit shown away."
  (when gemini-ls--next-edit
    (mapc #'delete-overlay (plist-get gemini-ls--next-edit :overlays))
    (setq gemini-ls--next-edit nil)))

(defun gemini-ls-next-edit-accept ()
  "Jump to the next edit shown when it is out of view, else apply it."
  (interactive)
  (let ((next gemini-ls--next-edit))
    (cond
     ((null next) (user-error "No next edit shown"))
     ((/= (plist-get next :tick) (buffer-chars-modified-tick))
      (gemini-ls--next-edit-clear)
      (user-error "The next edit no longer applies: the buffer changed"))
     ((not (or (pos-visible-in-window-p (plist-get next :start))
               (= (line-number-at-pos) (line-number-at-pos (plist-get next :start)))))
      (push-mark)
      (goto-char (plist-get next :start))
      (message "Gemini: TAB applies the next edit"))
     (t
      (gemini-ls--next-edit-clear)
      (eglot--apply-text-edits
       (mapcar (lambda (e) (list :range (plist-get e :range) :newText (plist-get e :text)))
               (plist-get next :edits)))
      (gemini-ls--completion-run-command
       (gemini-ls--ghost-create :server (plist-get next :server)
                                :item (car (plist-get next :edits))))))))

(provide 'gemini-ls)
;;; gemini-ls.el ends here
