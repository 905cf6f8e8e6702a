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

;;;###autoload (autoload 'gemini-ls-install-server "gemini-ls" nil t)
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

(provide 'gemini-ls-install)
;;; gemini-ls-install.el ends here
