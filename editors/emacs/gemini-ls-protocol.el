;;; gemini-ls-protocol.el --- What gemini-ls is sent: prompts and their context  -*- lexical-binding: t; -*-

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

;; A prompt with its context (the file, the selection, diagnostics), the
;; diagnostics Emacs shows, asked with `gemini/diagnostics', and a
;; prompt's run with `gemini/prompt'.

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
(require 'gemini-ls-updates)

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

;; A language server may publish, after an edit landed, the diagnostics of
;; a text it saw halfway through it (a rename's files landing one by one);
;; they show until it checks the last text.  The version each eglot server
;; last published diagnostics of is noted, so that a buffer whose text is
;; newer is answered as pending (docs/protocol.md §9c).

(defvar-local gemini-ls--checked nil
  "What the buffer's eglot server last published diagnostics of.
\(SERVER VERSION TICK): the document VERSION it named, and the buffer's
`buffer-chars-modified-tick' when they came; nil when it named none.")

(defvar-local gemini-ls--behind-since nil
  "When the buffer's server was first seen behind its text, or nil.")

(defvar gemini-ls-pending-seconds 5
  "How long a server seen behind a buffer's text counts as pending.
A server need not publish again when its diagnostics did not change.")

(cl-defmethod eglot-handle-notification :before
  (server (_method (eql textDocument/publishDiagnostics)) &key uri version &allow-other-keys)
  "Note the document VERSION of URI whose diagnostics SERVER published."
  (dolist (buffer (eglot--managed-buffers server))
    (with-current-buffer buffer
      (when (equal uri (plist-get (eglot--TextDocumentIdentifier) :uri))
        (setq gemini-ls--checked (and (numberp version)
                                      (list server version (buffer-chars-modified-tick)))
              gemini-ls--behind-since nil)))))

(defun gemini-ls--pending-p (buffer)
  "Whether BUFFER's language server has not yet checked its text.
Its last diagnostics are of an older version, or the buffer changed
since they came, or has changes eglot did not send yet; for
`gemini-ls-pending-seconds' at most after it is first seen."
  (with-current-buffer buffer
    (pcase gemini-ls--checked
      (`(,server ,version ,tick)
       (when (and (eq server (eglot-current-server))
                  (or (< version eglot--versioned-identifier)
                      eglot--recent-changes
                      (> (buffer-chars-modified-tick) tick)))
         (let ((since (or gemini-ls--behind-since
                          (setq gemini-ls--behind-since (float-time)))))
           (< (- (float-time) since) gemini-ls-pending-seconds)))))))

(defun gemini-ls--diagnostics-item (uri buffer)
  "The `gemini/diagnostics' item of URI, which BUFFER (or none) visits."
  (append (list :uri uri :diagnostics (gemini-ls--shown-diagnostics buffer))
          (when (and (buffer-live-p buffer) (gemini-ls--pending-p buffer))
            (list :pending t))))

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
                  (gemini-ls--diagnostics-item uri (find-buffer-visiting (gemini-ls--uri-path uri))))
                uris)
      (delq nil
            (mapcar (lambda (b)
                      (let ((shown (and (buffer-file-name b) (gemini-ls--shown-diagnostics b))))
                        (when (> (length shown) 0)
                          (gemini-ls--diagnostics-item (gemini-ls--uri (buffer-file-name b)) b))))
                    (buffer-list)))))))

(defvar-local gemini-ls--last-prompt nil
  "The chat's last prompt, as (PROMPT . CONTEXT), for `gemini-ls-retry'.")

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
            gemini-ls--last-kind nil
            gemini-ls--last-prompt (cons prompt context)
            gemini-ls--error-kind nil))
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
         ;; A sentence for a person: no protocol method's name.
         (let ((msg (format "Gemini could not run the prompt: %s" (plist-get err :message))))
           (gemini-ls--with-chat
             (gemini-ls--fresh-line)
             (gemini-ls--insert-styled (concat msg "\n") 'error)
             ;; A prompt refused before it ran (no key): its kind is
             ;; in the error's data.
             (gemini-ls--insert-fixes (plist-get (plist-get err :data) :errorKind)))
           (gemini-ls--warn-once msg)))
       :timeout-fn
       (lambda ()
         (with-current-buffer chat (setq gemini-ls--busy nil gemini-ls--running nil))
         (gemini-ls--status-changed))))))

(defun gemini-ls-retry ()
  "Send the chat's last prompt again, in its session."
  (interactive)
  (let* ((chat (gemini-ls--chat-buffer))
         (last (buffer-local-value 'gemini-ls--last-prompt chat)))
    (unless last (user-error "Gemini: no prompt to retry"))
    (gemini-ls--send (car last) (cdr last) (buffer-local-value 'gemini-ls--chat-server chat))))

(provide 'gemini-ls-protocol)
;;; gemini-ls-protocol.el ends here
