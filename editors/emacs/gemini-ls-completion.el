;;; gemini-ls-completion.el --- Completion in gemini-ls: commands, as you type, next edits  -*- lexical-binding: t; -*-

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

;; "/" completes the commands a prompt may start with; completion as you
;; type shows the server's suggestion as ghost text; next edits.

;; A part of the gemini-ls package: gemini-ls.el loads it.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'eglot)
(require 'jsonrpc)
(require 'seq)
(require 'project)
(require 'gemini-ls-server)
(require 'gemini-ls-protocol)

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

(defun gemini-ls--forget-commands (server _params)
  "Drop SERVER's cached `gemini/commands' list: it read its commands again.
A `commands' update (/commands reload) says so; the next \"/\" asks
for the list afresh instead of using one up to
`gemini-ls--commands-ttl' seconds old."
  (when (or (null server) (eq (car gemini-ls--commands-cache) server))
    (setq gemini-ls--commands-cache nil)))

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

;;;; Completion as you type

(defcustom gemini-ls-completion-enabled t
  "Non-nil: Gemini completes code as you type.
`gemini-ls-completion-mode' is then turned on in every buffer eglot
manages with a gemini-ls server that offers inline completion; nil
leaves it off (\\[gemini-ls-complete-at-point] still asks)."
  :type 'boolean
  :safe #'booleanp
  :group 'gemini-ls)

(defcustom gemini-ls-completion-delay 0.2
  "Seconds Emacs must be idle after you type before a suggestion is asked for."
  :type 'number
  :safe #'numberp
  :group 'gemini-ls)

(defcustom gemini-ls-completion-trigger-commands
  '(self-insert-command newline delete-backward-char delete-char
    delete-forward-char backward-delete-char-untabify
    python-indent-dedent-line-backspace c-electric-backspace
    c-electric-delete-forward)
  "Commands after which a suggestion is asked for: typing and deleting.
Commands whose name holds \"self-insert\" or \"electric\" count too."
  :type '(repeat function)
  :risky t
  :group 'gemini-ls)

(defface gemini-ls-completion-ghost '((t :inherit shadow))
  "Face of a suggestion shown at point, before it is accepted."
  :group 'gemini-ls)

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

;;;###autoload (autoload 'gemini-ls-completion-mode "gemini-ls" nil t)
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

(defun gemini-ls--completion-server ()
  "The gemini-ls server that completes in this buffer, or nil.
Only a buffer eglot manages: the server knows only the documents eglot
opened, so a buffer visiting no file (a review's proposal, say) asks
nothing, whatever server its project and mode would find."
  (let ((server (and eglot--managed-mode buffer-file-name
                     (ignore-errors (eglot-current-server)))))
    (and (gemini-ls--completion-offered-p server) server)))

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
  (let ((server (gemini-ls--completion-server)))
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
  (unless (gemini-ls--completion-server)
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
  (let ((server (gemini-ls--completion-server))
        (buffer (current-buffer)))
    (unless server
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

(provide 'gemini-ls-completion)
;;; gemini-ls-completion.el ends here
