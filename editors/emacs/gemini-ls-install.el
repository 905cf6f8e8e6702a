;;; gemini-ls-install.el --- Installing the gemini-ls server  -*- lexical-binding: t; -*-

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

;; `gemini-ls-install-server': the server from the project's releases,
;; checked against their SHA256SUMS, without blocking Emacs.

;; A part of the gemini-ls package: gemini-ls.el loads it.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'eglot)
(require 'jsonrpc)
(require 'seq)
(require 'project)
(require 'url)
(require 'gemini-ls-server)

(defcustom gemini-ls-release-url
  "https://github.com/gemini-ls/gemini-ls/releases/latest/download/"
  "Where `gemini-ls-install-server' downloads from.
A URL (https, http or file) of a directory holding the release
archives, gemini-ls-OS-ARCH.tar.gz (.zip for Windows), and their
SHA256SUMS."
  :type 'string
  :risky t
  :group 'gemini-ls)

;;;; Installing the server

;; The install works in the background: a download or a build with Go can
;; take minutes, and Emacs stays usable meanwhile, one line in the echo
;; area saying what it does and for how long.  A download is bounded as
;; eglot bounds its connection (`eglot-connect-timeout', 30 s): a release
;; host that sends nothing in `gemini-ls-install-connect-timeout' seconds
;; (offline: url.el may never call back when a name does not resolve) is
;; given up, and so is a download still going after
;; `gemini-ls-install-timeout'.  With no release to be had, the user is
;; asked, as eglot and magit ask before they act (`y-or-n-p'), whether Go
;; builds the server instead, as the Neovim plugin's :GeminiInstall does.

(defcustom gemini-ls-install-connect-timeout 30
  "Seconds a download of the server may wait for the first byte.
Past them (offline, a name that does not resolve, a host that does not
answer) the download is given up and a build with Go offered."
  :type 'natnum
  :safe #'natnump
  :group 'gemini-ls)

(defcustom gemini-ls-install-timeout 600
  "Seconds a download of the server may take in all."
  :type 'natnum
  :safe #'natnump
  :group 'gemini-ls)

(defconst gemini-ls-go-package "github.com/gemini-ls/gemini-ls/cmd/gemini-ls@latest"
  "What `go install' builds when the package is not in a gemini-ls checkout.
The latest release, as `gemini-ls-release-url' downloads by default.")

(defvar url-http-end-of-headers)
(defvar url-http-response-status)

(define-error 'gemini-ls-no-release "No gemini-ls release to be had")

(defun gemini-ls--release-archive ()
  "The name of the release archive of gemini-ls for this machine."
  (let ((os (pcase system-type
              ('gnu/linux "linux")
              ('darwin "darwin")
              ('windows-nt "windows")
              (_ (signal 'gemini-ls-no-release (list (format "no gemini-ls release for %s" system-type))))))
        (arch (pcase (car (split-string system-configuration "-"))
                ((or "x86_64" "amd64") "amd64")
                ((or "aarch64" "arm64") "arm64")
                (cpu (signal 'gemini-ls-no-release (list (format "no gemini-ls release for %s" cpu)))))))
    (format "gemini-ls-%s-%s.%s" os arch (if (equal os "windows") "zip" "tar.gz"))))

(defun gemini-ls--exe ()
  "The file name of the gemini-ls binary on this system."
  (if (eq system-type 'windows-nt) "gemini-ls.exe" "gemini-ls"))

(defvar gemini-ls--install nil
  "The install of gemini-ls under way, or nil.
A plist: :what it does now, :started (a time), :process the process or
url.el buffer it waits for, :download-started when that download began,
:tmp its directory, :timer that watches it and shows its progress,
:on-done its callback.  One at a time: two would race to rename their
binaries into the same place.")

(defconst gemini-ls--install-cancel-hint "M-x gemini-ls-install-cancel stops it"
  "How to stop the install under way, as its messages say.")

(defun gemini-ls--install-progress-line (install width)
  "The line saying what INSTALL does and for how long, in WIDTH columns.
The hint to cancel goes first where the whole line would not fit."
  (let ((what (format "Gemini: %s… %d s" (plist-get install :what)
                      (float-time (time-since (plist-get install :started))))))
    (truncate-string-to-width
     (if (< (+ (string-width what) (length gemini-ls--install-cancel-hint) 3) width)
         (format "%s (%s)" what gemini-ls--install-cancel-hint)
       what)
     width nil nil "…")))

(defun gemini-ls--install-progress (install)
  "Show in the echo area what INSTALL does, and for how long.
One line, cut to the echo area's width, and not logged in *Messages*
\(one a second would bury the rest); not while the minibuffer reads:
it would hide what is typed."
  (unless (active-minibuffer-window)
    (let ((message-log-max nil))
      (message "%s" (gemini-ls--install-progress-line
                     install (1- (window-width (minibuffer-window))))))))

(defun gemini-ls--install-tick ()
  "Each second of the install under way: bound its download, show it."
  (let ((install gemini-ls--install))
    (when install
      (let ((why (gemini-ls--download-overdue install)))
        (if why
            (gemini-ls--download-abandon install why)
          (gemini-ls--install-progress install)))
      (force-mode-line-update t))))

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
    (force-mode-line-update t)
    (when (plist-get install :on-done)
      (funcall (plist-get install :on-done) bin why))))

(defmacro gemini-ls--install-step (install what &rest body)
  "Run BODY as INSTALL's next step, doing WHAT, unless INSTALL was stopped.
No release to be had (`gemini-ls-no-release') offers a build with Go;
another error in BODY ends INSTALL with its message."
  (declare (indent 2) (debug t))
  `(when (eq ,install gemini-ls--install)
     (setq gemini-ls--install (plist-put ,install :what ,what))
     (condition-case err
         (progn ,@body)
       (gemini-ls-no-release (gemini-ls--no-release ,install (cadr err)))
       (error (gemini-ls--install-end ,install nil (error-message-string err))))))

(defun gemini-ls--install-place (install file)
  "Put FILE, the binary made, in `gemini-ls-install-dir'; end INSTALL."
  (make-directory gemini-ls-install-dir t)
  (let ((bin (expand-file-name (gemini-ls--exe) gemini-ls-install-dir)))
    ;; Replaced whole, never half-written, should a server run it.
    (rename-file file bin t)
    (set-file-modes bin #o755)
    (gemini-ls--install-end install bin nil)))

;;;; Downloading the release

(defun gemini-ls--download (install url file then)
  "Save URL, an https, http or file URL, as FILE, then call THEN.
In the background, as INSTALL's step; a failure ends INSTALL, or
offers a build with Go."
  (let ((parsed (url-generic-parse-url url)))
    (if (equal (url-type parsed) "file")
        (progn (condition-case err
                   (copy-file (url-unhex-string (url-filename parsed)) file t)
                 (file-error (signal 'gemini-ls-no-release
                                     (list (format "cannot read %s: %s" url (error-message-string err))))))
               (funcall then))
      ;; url.el may never call back for a name that does not resolve:
      ;; known now, it is offline at once, not after the time-out.
      (when (gemini-ls--unresolvable-p parsed)
        (signal 'gemini-ls-no-release
                (list (format "cannot resolve %s (offline?)" (url-host parsed)))))
      (plist-put install :download-started (current-time))
      (plist-put install :download-host (url-host parsed))
      (plist-put
       install :process
       (condition-case err
           (url-retrieve url (lambda (status) (gemini-ls--downloaded install url file status then))
                         nil t)
         (error (signal 'gemini-ls-no-release
                        (list (format "cannot download %s: %s" url (error-message-string err))))))))))

(defun gemini-ls--unresolvable-p (url)
  "Non-nil if URL's host is a name that does not resolve, reached directly.
Through a proxy, the proxy resolves it: nothing is known here."
  (let ((host (url-host url)))
    (url-do-setup)
    (and host
         (member (or (url-find-proxy-for-url url host) "DIRECT") '("DIRECT"))
         ;; Its failure is said in the echo area (Emacs 28): the install says it.
         (not (let ((inhibit-message t) (message-log-max nil))
                (network-lookup-address-info host))))))

(defun gemini-ls--downloaded (install url file status then)
  "Take INSTALL's download of URL, its url.el STATUS: save it as FILE, THEN.
In the download's buffer, which goes; nothing when INSTALL no longer
waits for it (given up, cancelled)."
  (let ((buffer (current-buffer)))
    (unwind-protect
        (when (eq buffer (plist-get install :process))
          (plist-put install :process nil)
          (plist-put install :download-started nil)
          (gemini-ls--install-step install (plist-get install :what)
            (cond ((plist-get status :error)
                   (signal 'gemini-ls-no-release
                           (list (format "cannot download %s: %s" url
                                         (error-message-string (plist-get status :error))))))
                  ((not (eql url-http-response-status 200))
                   (signal 'gemini-ls-no-release
                           (list (format "cannot download %s: HTTP status %s" url url-http-response-status)))))
            (let ((coding-system-for-write 'no-conversion))
              (write-region (1+ url-http-end-of-headers) (point-max) file nil 'silent))
            (funcall then)))
      (kill-buffer buffer))))

(defun gemini-ls--download-overdue (install)
  "Why INSTALL's download is given up now, or nil while it may go on."
  (let ((buffer (plist-get install :process))
        (started (plist-get install :download-started)))
    (when (and started (buffer-live-p buffer))
      (let ((waited (float-time (time-since started))))
        (cond ((and (> waited gemini-ls-install-connect-timeout)
                    (zerop (buffer-size buffer)))
               (format "no answer from %s in %d s (offline?)"
                       (plist-get install :download-host) gemini-ls-install-connect-timeout))
              ((> waited gemini-ls-install-timeout)
               (format "the download from %s took over %d s"
                       (plist-get install :download-host) gemini-ls-install-timeout)))))))

(defun gemini-ls--stop-waiting (install)
  "Stop the process or url.el download INSTALL waits for, if any."
  (let ((waited (plist-get install :process)))
    (plist-put install :process nil)
    (plist-put install :download-started nil)
    (cond ((processp waited) (delete-process waited))
          ((buffer-live-p waited)
           (let ((proc (get-buffer-process waited)))
             (when proc
               ;; url.el's sentinel would then read a buffer killed.
               (set-process-sentinel proc #'ignore)
               (delete-process proc)))
           (kill-buffer waited)))))

(defun gemini-ls--download-abandon (install why)
  "Give up INSTALL's download, overdue for WHY; offer a build with Go."
  (gemini-ls--stop-waiting install)
  (gemini-ls--no-release install why))

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

(defun gemini-ls--run-step (install command then &optional failed env dir next)
  "Run COMMAND, a list, as INSTALL's step in the background, then THEN.
ENV is added to the environment, DIR is where it runs.  A failure ends
INSTALL with FAILED (else the program's name), what COMMAND said, and
NEXT, what works next, if given."
  (let ((out (generate-new-buffer " *gemini-ls-install*"))
        (process-environment (append env process-environment))
        (default-directory (or dir default-directory)))
    (plist-put
     install :process
     (make-process
      :name "gemini-ls-install" :buffer out :noquery t :connection-type 'pipe
      :command command
      :sentinel
      (lambda (proc _event)
        (unless (process-live-p proc)
          (let ((said (with-current-buffer out (string-trim (buffer-string)))))
            (kill-buffer out)
            (gemini-ls--install-step install (plist-get install :what)
              (unless (eql 0 (process-exit-status proc))
                (error "%s: %s%s" (or failed (car command)) (gemini-ls--last-lines said 6)
                       (if next (concat "\nNext: " next) "")))
              (funcall then)))))))))

(defun gemini-ls--last-lines (text n)
  "The last N lines of TEXT."
  (string-join (last (split-string text "\n") n) "\n"))

(defun gemini-ls--install-release (install)
  "Download the release archive into INSTALL's directory, check, install it."
  (let* ((archive (gemini-ls--release-archive))
         (base (file-name-as-directory gemini-ls-release-url))
         (tmp (plist-get install :tmp))
         (file (expand-file-name archive tmp))
         (sums (expand-file-name "SHA256SUMS" tmp))
         (exe (gemini-ls--exe)))
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
                  (gemini-ls--run-step
                   install (list "tar" "-xf" file "-C" tmp exe)
                   (lambda () (gemini-ls--install-place install (expand-file-name exe tmp)))
                   (format "Could not unpack %s" archive))))))))))))

;;;; Building with Go

(defun gemini-ls--checkout ()
  "The root of the gemini-ls checkout (a clone) this package came from, or nil.
The one whose editors/emacs `gemini-ls' was loaded from; else the one
`make emacs-package' built the installed package in, which it names in
the package's file gemini-ls-clone, if it is still a checkout."
  (let* ((lib (locate-library "gemini-ls"))
         (dir (and lib (file-name-directory lib)))
         (named (and dir (expand-file-name "gemini-ls-clone" dir))))
    (or (and dir (gemini-ls--checkout-p (expand-file-name "../.." dir)))
        (and named (file-readable-p named)
             (gemini-ls--checkout-p
              (with-temp-buffer
                (insert-file-contents named nil 0 4096)
                (string-trim (buffer-string))))))))

(defun gemini-ls--checkout-p (root)
  "ROOT as a directory name if it is a gemini-ls checkout, else nil."
  (let ((mod (and (file-name-absolute-p root) (expand-file-name "go.mod" root))))
    (when (and mod (file-readable-p mod))
      (with-temp-buffer
        (insert-file-contents mod nil 0 200)
        (and (looking-at "module github\\.com/gemini-ls/gemini-ls$")
             (file-name-as-directory root))))))

(defun gemini-ls--next-steps ()
  "What works next when Go could not build gemini-ls, for the user."
  (let ((root (gemini-ls--checkout)))
    (format "run make install in %s, or set gemini-ls-server-command to a gemini-ls you have"
            (if root (abbreviate-file-name (directory-file-name root))
              "a clone of https://github.com/gemini-ls/gemini-ls"))))

(defun gemini-ls--build-command (dir)
  "How Go builds gemini-ls into DIR here: (COMMAND ENV WHERE WORDS).
In the gemini-ls checkout the package sits in, `go build' there (WHERE);
else `go install' of `gemini-ls-go-package' run in DIR, where no go.mod
is in the way, into DIR (GOBIN).  ENV is added to the environment;
WORDS say which, for the user."
  (let ((root (gemini-ls--checkout)))
    (if root
        (list (list "go" "build" "-o" (expand-file-name (gemini-ls--exe) dir) "./cmd/gemini-ls")
              '("CGO_ENABLED=0") root (concat "go build in " (abbreviate-file-name root)))
      (list (list "go" "install" gemini-ls-go-package)
            (list "CGO_ENABLED=0" (concat "GOBIN=" dir)) dir
            (concat "go install " gemini-ls-go-package)))))

(defun gemini-ls--install-build (install)
  "Build gemini-ls with Go as INSTALL's step, and install it."
  (pcase-let* ((tmp (plist-get install :tmp))
               (`(,command ,env ,where ,words) (gemini-ls--build-command tmp)))
    (message "Gemini: building gemini-ls with Go: %s (minutes; %s)" words gemini-ls--install-cancel-hint)
    (gemini-ls--install-step install "building gemini-ls with Go"
      (gemini-ls--run-step
       install command
       (lambda () (gemini-ls--install-place install (expand-file-name (gemini-ls--exe) tmp)))
       (concat (nth 1 command) " failed")
       env where (gemini-ls--next-steps)))))

(defun gemini-ls--no-release (install why)
  "No release to install for INSTALL, for WHY: offer a build with Go.
Asked as eglot and magit ask, with `y-or-n-p', once the minibuffer is
free; \\[keyboard-quit] answers no."
  (if (not (executable-find "go"))
      (gemini-ls--install-end
       install nil (format "%s; with Go installed (https://go.dev/dl/), M-x gemini-ls-build-server builds it" why))
    (plist-put install :what "asking whether Go builds it")
    (gemini-ls--ask-build install why)))

(defun gemini-ls--ask-build (install why)
  "Ask whether Go builds gemini-ls, INSTALL's download failed for WHY."
  (cond ((not (eq install gemini-ls--install)))
        ((active-minibuffer-window)
         (run-at-time 1 nil #'gemini-ls--ask-build install why))
        (t
         (run-at-time
          0 nil
          (lambda ()
            (when (eq install gemini-ls--install)
              (if (with-local-quit
                    (y-or-n-p (format "Gemini: %s.  Build gemini-ls with Go instead (%s, minutes)? "
                                      why (nth 3 (gemini-ls--build-command
                                                  (plist-get install :tmp))))))
                  (gemini-ls--install-build install)
                (gemini-ls--install-end
                 install nil (format "%s; M-x gemini-ls-build-server builds it with Go" why)))))))))

;;;; The commands

(defun gemini-ls--install-begin (on-done how)
  "Begin an install of gemini-ls that HOW, a function, carries on.
HOW is called with the install; ON-DONE is called at its end."
  (when gemini-ls--install
    (user-error "Gemini: gemini-ls is being installed already (%s); %s"
                (plist-get gemini-ls--install :what) gemini-ls--install-cancel-hint))
  (let ((install (list :what "starting" :started (current-time)
                       :tmp (make-temp-file "gemini-ls-install" t) :on-done on-done)))
    (plist-put install :timer (run-at-time 1 1 #'gemini-ls--install-tick))
    (setq gemini-ls--install install)
    (gemini-ls--install-step install "starting"
      (funcall how install))
    (when (eq install gemini-ls--install)
      (gemini-ls--install-progress install))))

;;;###autoload (autoload 'gemini-ls-install-server "gemini-ls" nil t)
(defun gemini-ls-install-server (&optional on-done)
  "Install gemini-ls in `gemini-ls-install-dir' from `gemini-ls-release-url'.
The release archive for this machine is downloaded, checked against the
release's SHA256SUMS and unpacked (with tar); the chat and eglot then
run it, unless `gemini-ls-server-command' names another.  It works in
the background, the echo area saying what it does;
\\[gemini-ls-install-cancel] stops it.  With no release to be had
\(offline, no answer within `gemini-ls-install-connect-timeout'), a
build with Go is offered, as \\[gemini-ls-build-server] makes.  ON-DONE,
when given, is called at the end with the binary installed and nil, or
nil and why not."
  (interactive)
  (gemini-ls--install-begin
   on-done
   (lambda (install)
     (let ((inhibit-message t))
       (message "Gemini: installing gemini-ls from %s" gemini-ls-release-url))
     (gemini-ls--install-release install))))

;;;###autoload (autoload 'gemini-ls-build-server "gemini-ls" nil t)
(defun gemini-ls-build-server (&optional on-done)
  "Build gemini-ls with Go and install it in `gemini-ls-install-dir'.
From the gemini-ls checkout this package sits in (a clone), else with
`go install' of `gemini-ls-go-package', as the Neovim plugin's
:GeminiInstall builds it; the first build takes minutes.  In the
background, as `gemini-ls-install-server' works; ON-DONE is its."
  (interactive)
  (unless (executable-find "go")
    (user-error "Gemini: building gemini-ls needs Go (https://go.dev/dl/)"))
  (gemini-ls--install-begin on-done #'gemini-ls--install-build))

(defun gemini-ls-install-cancel ()
  "Stop the install of gemini-ls under way; nothing is installed."
  (interactive)
  (let ((install gemini-ls--install))
    (unless install
      (user-error "Gemini: no install of gemini-ls is under way"))
    (setq gemini-ls--install nil)
    (cancel-timer (plist-get install :timer))
    (gemini-ls--stop-waiting install)
    (delete-directory (plist-get install :tmp) t)
    (force-mode-line-update t)
    (message "Gemini: the install was cancelled after %d s; nothing was installed"
             (float-time (time-since (plist-get install :started))))))

(provide 'gemini-ls-install)
;;; gemini-ls-install.el ends here
