;;; gemini-ls-review.el --- Reviewing the agent's edits  -*- lexical-binding: t; -*-

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

;; Edits the agent applies, and the review of those it proposes: a diff
;; to accept or reject, whole or hunk by hunk.

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
(require 'gemini-ls-confirm)
(require 'gemini-ls-language)
(require 'diff-mode)

(defcustom gemini-ls-auto-save t
  "Save a file once its change is accepted.
Shell commands the agent runs next then see the change on disk."
  :type 'boolean
  :safe #'booleanp
  :group 'gemini-ls)

;;;; Edits

(cl-defstruct (gemini-ls--file (:constructor gemini-ls--file-create))
  "One file of a proposed change."
  buffer original proposed hunks created was-modified
  ;; The text the review last put in the buffer: anything else there
  ;; means the user edited it during the review.
  shown
  ;; The directory the diff's headers name the file relative to
  ;; (`gemini-ls--review-root').
  root)

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

(defun gemini-ls--review-root (server buffer)
  "The directory the review names BUFFER's file relative to.
Its project's root; else, for a file of no project, the root of SERVER's
project, the workspace the change was made in; else the file system's
root.  So a diff header is a/NAME with NAME relative, as `diff-mode' and
magit read it, never a//tmp/...: an absolute name after a/."
  (let ((file (buffer-file-name buffer)))
    (or (gemini-ls--project-root buffer)
        (let ((root (and server (ignore-errors (project-root (eglot--project server))))))
          (and root (file-in-directory-p file root) root))
        (expand-file-name "/" (file-name-directory file)))))

(defun gemini-ls--display-name (f)
  "The name of F's file in the diff headers: relative to F's root."
  (file-relative-name (buffer-file-name (gemini-ls--file-buffer f))
                      (gemini-ls--file-root f)))

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
      (let ((name (gemini-ls--display-name f)))
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
          (setf (gemini-ls--file-root f)
                (gemini-ls--review-root (gemini-ls--request-server req) (gemini-ls--file-buffer f)))
          (setf (gemini-ls--file-hunks f)
                (gemini-ls--parse-hunks
                 (gemini-ls--diff (gemini-ls--file-original f)
                                  (gemini-ls--file-proposed f)
                                  (gemini-ls--display-name f)))))
      (error (kill-buffer buf)
             (gemini-ls--close-files files)
             (signal (car err) (cdr err))))
    ;; The real buffers show the proposal while the user reviews.
    (dolist (f files) (gemini-ls--show f (gemini-ls--file-proposed f)))
    (with-current-buffer buf
      ;; Rendering edits the buffer; diff-mode must not "fix" it.
      (let ((diff-update-on-the-fly nil)) (diff-mode))
      (gemini-ls-review-mode 1)
      ;; Where the headers' names are relative to: diff-mode's
      ;; `diff-goto-source' finds the files from there.
      (setq default-directory
            (or (and files (gemini-ls--file-root (car files))) default-directory))
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

(provide 'gemini-ls-review)
;;; gemini-ls-review.el ends here
