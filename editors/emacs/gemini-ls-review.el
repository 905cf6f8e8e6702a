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
;; to accept or reject, whole or hunk by hunk.  The proposal waits in a
;; buffer of its own that visits no file, to read and edit: no save
;; reaches the file before the user accepts, and a new file is made only
;; then.

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
  ;; The file's absolute name.
  path
  ;; The buffer visiting it, as the change was read; nil for a new file,
  ;; which gets one only once the change is accepted.
  buffer
  ;; The file's text then ("" for a new file), what Gemini proposes,
  ;; and the hunks of the diff between them, each with its decision.
  original proposed hunks
  ;; Non-nil if the file does not exist yet.
  created
  ;; The buffer holding the proposal during the review
  ;; (`gemini-ls--proposal'): it visits no file, so nothing saves it.
  proposal
  ;; The text the review last put in the proposal buffer: anything else
  ;; there means the user edited the proposal.
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
Or in `gemini-ls--edit-encoding' when it is bound.  BUFFER nil (a new
file): as eglot counts by default."
  (let ((vars (cl-remove-if-not #'boundp gemini-ls--column-vars)))
    (cl-progv vars (mapcar (lambda (v)
                             (if buffer (buffer-local-value v buffer) (default-value v)))
                           vars)
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

(defconst gemini-ls--hunk-header-re
  "^@@ -\\([0-9]+\\)\\(?:,\\([0-9]+\\)\\)? \\+\\([0-9]+\\)\\(?:,\\([0-9]+\\)\\)? @@"
  "A unified diff's hunk header; what follows it on its line is ignored.")

(defconst gemini-ls--hunk-context 3
  "Lines of context the review shows around each change, as diff -u does.")

(defun gemini-ls--read-hunk ()
  "Read the unified hunk whose header is at point, and move past it.
Return (OLD NEW ENTRIES): OLD and NEW the numbers of the first old and
new lines of the hunk, ENTRIES its lines, each (CHAR TEXT NEWLINE-P),
CHAR ?\\s, ?- or ?+, NEWLINE-P nil where a \"\\ No newline\" line
follows.  The body is as long as the header counts; nil if it is not."
  (when (looking-at gemini-ls--hunk-header-re)
    (let* ((old-n (if (match-string 2) (string-to-number (match-string 2)) 1))
           (new-n (if (match-string 4) (string-to-number (match-string 4)) 1))
           ;; A count of 0 names the line before the hunk.
           (old (+ (string-to-number (match-string 1)) (if (zerop old-n) 1 0)))
           (new (+ (string-to-number (match-string 3)) (if (zerop new-n) 1 0)))
           (entries nil))
      (forward-line 1)
      (while (and (or (> old-n 0) (> new-n 0)) (not (eobp))
                  (memq (char-after) '(?\s ?- ?+)))
        (let ((c (char-after)))
          (pcase c
            (?\s (cl-decf old-n) (cl-decf new-n))
            (?- (cl-decf old-n))
            (?+ (cl-decf new-n)))
          (push (list c (buffer-substring (1+ (point)) (line-end-position)) t) entries)
          (forward-line 1)
          (when (looking-at "\\\\ ")
            (setf (nth 2 (car entries)) nil)
            (forward-line 1))))
      (and (zerop old-n) (zerop new-n)
           (list old new (nreverse entries))))))

(defun gemini-ls--make-hunk (entries old new)
  "The review's hunk of ENTRIES, whose first old line is OLD, first new NEW.
A plist: :text, the hunk as the review shows it; :old-start, :old-count
and :new-lines, its change alone (from its first changed line to its
last), which `gemini-ls--merge' applies: :old-start the first old line
changed (for an insertion, the line before it), :new-lines ((TEXT
. NEWLINE-P) ...); :decision nil.  A hunk of context alone changes
nothing: :old-count 0, :new-lines nil."
  (let* ((changed (lambda (e) (not (eq (car e) ?\s))))
         (first (cl-position-if changed entries))
         (last (cl-position-if changed entries :from-end t))
         (core (and first (cl-subseq entries first (1+ last))))
         (before (if first (cl-subseq entries 0 first) entries))
         (core-old (+ old (cl-count-if (lambda (e) (memq (car e) '(?\s ?-))) before)))
         (old-count (cl-count-if (lambda (e) (memq (car e) '(?\s ?-))) core))
         (shown-old (cl-count-if (lambda (e) (memq (car e) '(?\s ?-))) entries))
         (shown-new (cl-count-if (lambda (e) (memq (car e) '(?\s ?+))) entries)))
    (list :old-start (if (zerop old-count) (1- core-old) core-old)
          :old-count old-count
          :new-lines (cl-loop for e in core
                              unless (eq (car e) ?-) collect (cons (nth 1 e) (nth 2 e)))
          :text (concat (format "@@ -%d,%d +%d,%d @@\n"
                                (if (zerop shown-old) (1- old) old) shown-old
                                (if (zerop shown-new) (1- new) new) shown-new)
                        (mapconcat (lambda (e)
                                     (concat (string (car e)) (nth 1 e) "\n"
                                             (unless (nth 2 e) "\\ No newline at end of file\n")))
                                   entries ""))
          :decision nil)))

(defun gemini-ls--split-changes (old new entries)
  "The hunks of ENTRIES, a diff hunk from old line OLD and new line NEW.
One hunk per change (a run of changed lines), each with up to
`gemini-ls--hunk-context' lines of context that hold no other change,
so changes however close are taken or dropped each on its own.  Two
hunks may show the same lines of context, as git add -p's split does."
  (let* ((v (vconcat entries)) (len (length v))
         (olds (make-vector (1+ len) old)) (news (make-vector (1+ len) new))
         (runs nil) (hunks nil))
    (dotimes (i len)
      (let ((c (car (aref v i))))
        (aset olds (1+ i) (+ (aref olds i) (if (memq c '(?\s ?-)) 1 0)))
        (aset news (1+ i) (+ (aref news i) (if (memq c '(?\s ?+)) 1 0)))))
    (let ((i 0))
      (while (< i len)
        (if (eq (car (aref v i)) ?\s)
            (cl-incf i)
          (let ((s i))
            (while (and (< i len) (not (eq (car (aref v i)) ?\s))) (cl-incf i))
            (push (cons s i) runs)))))
    (setq runs (nreverse runs))
    (let ((prev-end 0))
      (while runs
        (let* ((s (caar runs)) (e (cdar runs))
               (next (if (cdr runs) (car (cadr runs)) len))
               (a (max (- s gemini-ls--hunk-context) prev-end))
               (b (min (+ e gemini-ls--hunk-context) next)))
          (push (gemini-ls--make-hunk (append (cl-subseq v a b) nil)
                                      (aref olds a) (aref news a))
                hunks)
          (setq prev-end e runs (cdr runs)))))
    (nreverse hunks)))

(defun gemini-ls--parse-hunks (diff)
  "The review's hunks of unified DIFF, one per change (`gemini-ls--make-hunk')."
  (let (hunks)
    (with-temp-buffer
      (insert diff)
      (goto-char (point-min))
      (while (re-search-forward gemini-ls--hunk-header-re nil t)
        (goto-char (match-beginning 0))
        (let ((h (gemini-ls--read-hunk)))
          (if h
              (setq hunks (nconc hunks (apply #'gemini-ls--split-changes h)))
            (forward-line 1)))))
    hunks))

(defun gemini-ls--merge (original hunks)
  "ORIGINAL text with the HUNKS not rejected applied."
  (let* ((lines (split-string original "\n"))
         (final-newline (string-suffix-p "\n" original))
         (lines (if final-newline (butlast lines) lines))
         (out nil) (i 1) (last-newline final-newline))
    (dolist (h hunks)
      (unless (or (eq (plist-get h :decision) 'rejected)
                  ;; A hunk of context alone (a split's) changes nothing.
                  (and (zerop (plist-get h :old-count)) (null (plist-get h :new-lines))))
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

(defun gemini-ls--project-root (directory)
  "The root of DIRECTORY's project, or nil."
  (let ((proj (project-current nil directory)))
    (and proj (project-root proj))))

(defun gemini-ls--review-root (server file)
  "The directory the review names FILE relative to.
Its project's root; else, for a file of no project, the root of SERVER's
project, the workspace the change was made in; else the file system's
root.  So a diff header is a/NAME with NAME relative, as `diff-mode' and
magit read it, never a//tmp/...: an absolute name after a/."
  (or (gemini-ls--project-root (file-name-directory file))
      (let ((root (and server (ignore-errors (project-root (eglot--project server))))))
        (and root (file-in-directory-p file root) root))
      (expand-file-name "/" (file-name-directory file))))

(defun gemini-ls--display-name (f)
  "The name of F's file in the diff headers: relative to F's root."
  (file-relative-name (gemini-ls--file-path f) (gemini-ls--file-root f)))

(defun gemini-ls--edit-files (edit)
  "The file records of EDIT (a WorkspaceEdit), opening its files' buffers.
Only of the files that exist: a file that does not gets no buffer, and is made
only when the change is applied (`gemini-ls--write').
Signals an error if a file changed since the server read it."
  (let ((pairs nil) (files nil))
    ;; (URI VERSION EDITS) for documentChanges, then changes.  A
    ;; CreateFile has no textDocument: the file's text edit that follows
    ;; it names the new file.
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
    (dolist (p (nreverse pairs))
      (pcase-let* ((`(,uri ,version ,edits) p)
                   (path (gemini-ls--uri-path uri))
                   (buf (or (find-buffer-visiting path)
                            (and (file-exists-p path) (find-file-noselect path)))))
        (when buf
          (with-current-buffer buf
            ;; A version is the one of the buffer gemini-ls has open,
            ;; which its eglot manages (not another language server).
            (when (and version (gemini-ls--buffer-server)
                       (not (equal version eglot--versioned-identifier)))
              (error "The file changed since Gemini read it: %s"
                     (buffer-name buf)))))
        (let ((original (if buf (gemini-ls--buffer-text buf) "")))
          (push (gemini-ls--file-create
                 :path path :buffer buf :created (not buf)
                 :original original
                 :proposed (gemini-ls--apply-edits-to-string original edits buf))
                files))))
    (nreverse files)))

(defun gemini-ls--buffer-text (buffer)
  "All of BUFFER's text, narrowed or not."
  (with-current-buffer buffer (save-restriction (widen) (buffer-string))))

(defun gemini-ls--target-text (f)
  "The text of F's file now: its buffer's, else the disk's; nil if none."
  (let ((b (find-buffer-visiting (gemini-ls--file-path f))))
    (cond (b (gemini-ls--buffer-text b))
          ((file-exists-p (gemini-ls--file-path f))
           (with-temp-buffer
             (insert-file-contents (gemini-ls--file-path f))
             (buffer-string))))))

(defun gemini-ls--changed-since-proposed (f)
  "Non-nil if F's file is no longer what the change was made against.
Its buffer was edited, or a new file has appeared with text in it
\(an empty buffer visiting it loses nothing).  Applying the change would
then lose what was done there."
  (let ((now (gemini-ls--target-text f)))
    (if (gemini-ls--file-created f)
        (not (member now '(nil "")))
      (not (equal now (gemini-ls--file-original f))))))

(defun gemini-ls--write (f text)
  "Put TEXT in F's file's buffer, and save it if `gemini-ls-auto-save'.
A new file's buffer is made now; saving it creates the file and its
directory.  The server is told what the buffer holds before it is
answered."
  (let ((b (or (find-buffer-visiting (gemini-ls--file-path f))
               (find-file-noselect (gemini-ls--file-path f)))))
    (gemini-ls--set-text b text)
    (when (and gemini-ls-auto-save (buffer-modified-p b))
      (with-current-buffer b
        (make-directory (file-name-directory buffer-file-name) t)
        (save-buffer)))
    (gemini-ls--did-change b)))

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
          (gemini-ls--write f (gemini-ls--file-proposed f)))
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

;; The proposal stays out of the file's buffer and off the disk until
;; the user accepts it.  It lives in a buffer of its own that visits no
;; file (`gemini-ls--proposal'): nothing that saves buffers (C-x s,
;; `save-some-buffers', `auto-save-visited-mode') writes it, and eglot,
;; which manages only buffers visiting files, neither sends it to a
;; server nor asks completions in it.  The review's hunk decisions are
;; made in that buffer, and the user may edit it; accepting writes its
;; text to the file (`gemini-ls--write'), rejecting only kills it.

(defvar-local gemini-ls--review nil
  "In a review buffer: plist (:files FILES :request REQUEST :timer TIMER).
TIMER, when set, shows the user's edits of a proposal in the review.")

(defvar-local gemini-ls--proposal-review nil
  "In a proposal buffer: the review buffer it belongs to.")

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
    ;; RET and o: the proposal, not the file, which holds the original.
    ;; Bound here, as n and p are: Emacs 30's diff-mode binds o only in a
    ;; buffer made read-only by `read-only-mode'.  RET last, so the help
    ;; line names it.
    (define-key map (kbd "o") #'gemini-ls-review-edit-proposal)
    (define-key map (kbd "RET") #'gemini-ls-review-edit-proposal)
    (define-key map [remap diff-goto-source] #'gemini-ls-review-edit-proposal)
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

(defvar gemini-ls-proposal-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'gemini-ls-proposal-accept)
    (define-key map (kbd "C-c C-k") #'gemini-ls-proposal-reject)
    (define-key map [remap save-buffer] #'gemini-ls-proposal-save)
    map)
  "Keymap of `gemini-ls-proposal-mode'.")

(define-minor-mode gemini-ls-proposal-mode
  "A file as Gemini proposes it, to read and edit before you decide.
The buffer visits no file: nothing saves it.  Accepting the review
writes what it holds, your edits included, to the file.
\\{gemini-ls-proposal-mode-map}"
  :lighter " Proposal")

(defun gemini-ls--existing-directory (file)
  "The closest directory of FILE that exists."
  (let ((dir (file-name-directory file)))
    (while (and (not (file-directory-p dir))
                (not (equal dir (file-name-directory (directory-file-name dir)))))
      (setq dir (file-name-directory (directory-file-name dir))))
    dir))

(defun gemini-ls--proposal (f)
  "The buffer holding F's proposal, made from what the review last showed.
Made if need be, called in F's review buffer.  It has the file's major mode,
for its highlighting, but visits no file."
  (let ((b (gemini-ls--file-proposal f)) (review (current-buffer)))
    (unless (buffer-live-p b)
      (setq b (generate-new-buffer
               (format "*gemini proposal: %s*" (gemini-ls--display-name f))))
      (with-current-buffer b
        (insert (gemini-ls--file-shown f))
        (setq default-directory (gemini-ls--existing-directory (gemini-ls--file-path f)))
        (with-demoted-errors "Gemini: the proposal's major mode: %S"
          (let ((old (gemini-ls--file-buffer f)))
            (if (buffer-live-p old)
                (funcall (buffer-local-value 'major-mode old))
              ;; Chosen as visiting the file would choose it, but its
              ;; hooks run once the file's name is gone: run with it,
              ;; they would take this buffer for the file's (eglot
              ;; would open the proposal on the server as the file).
              (delay-mode-hooks
                (let ((buffer-file-name (gemini-ls--file-path f)))
                  (set-auto-mode)))
              (run-mode-hooks))))
        ;; After the major mode, which kills local variables.
        (setq-local buffer-offer-save nil)
        (setq buffer-auto-save-file-name nil)
        (setq gemini-ls--proposal-review review)
        (gemini-ls-proposal-mode 1)
        (setq-local header-line-format
                    (concat (format "Gemini's proposal for %s, not saved: "
                                    (gemini-ls--display-name f))
                            (substitute-command-keys
                             "\\<gemini-ls-proposal-mode-map>\
\\[gemini-ls-proposal-accept] accept, \\[gemini-ls-proposal-reject] reject")))
        (add-hook 'after-change-functions #'gemini-ls--proposal-changed nil t)
        (set-buffer-modified-p nil)
        ;; Undo starts from the proposal: it cannot empty the buffer.
        (setq buffer-undo-list nil)
        (goto-char (point-min)))
      (setf (gemini-ls--file-proposal f) b))
    b))

(defun gemini-ls--proposal-changed (&rest _)
  "The proposal changed: show it in the review once Emacs is idle."
  (let ((review gemini-ls--proposal-review))
    (when (buffer-live-p review)
      (with-current-buffer review
        (when (and gemini-ls--review (not (plist-get gemini-ls--review :timer)))
          (setq gemini-ls--review
                (plist-put gemini-ls--review :timer
                           (run-with-idle-timer 0.5 nil #'gemini-ls--review-refresh-in review))))))))

(defun gemini-ls--review-refresh-in (review)
  "Show in REVIEW what its proposals hold now."
  (when (buffer-live-p review)
    (with-current-buffer review
      (when gemini-ls--review
        (setq gemini-ls--review (plist-put gemini-ls--review :timer nil))
        (gemini-ls--review-refresh)))))

(defun gemini-ls--file-diff-hunks (f)
  "The hunks of the diff from F's original to its proposal."
  (gemini-ls--parse-hunks
   (gemini-ls--diff (gemini-ls--file-original f) (gemini-ls--file-proposed f)
                    (gemini-ls--display-name f))))

(defun gemini-ls--review-refresh ()
  "Take the user's edits of the proposals as what Gemini proposes.
The review then shows their diff, its hunks undecided.  Return non-nil
if a proposal had been edited."
  (let ((changed nil))
    (dolist (f (plist-get gemini-ls--review :files))
      (let ((b (gemini-ls--file-proposal f)))
        (when (buffer-live-p b)
          (let ((text (gemini-ls--buffer-text b)))
            (unless (equal text (gemini-ls--file-shown f))
              (setq changed t)
              (setf (gemini-ls--file-proposed f) text
                    (gemini-ls--file-shown f) text
                    (gemini-ls--file-hunks f) (gemini-ls--file-diff-hunks f)))))))
    (when changed (gemini-ls--review-render))
    changed))

(defun gemini-ls--review-shown-hunks ()
  "Return the hunks on view in the review buffer: each file's, in order.
nil if the buffer is no longer a diff of the review's files."
  (save-excursion
    (goto-char (point-min))
    (let ((files nil) (ok t))
      (while (and ok (not (eobp)))
        (cond ((looking-at "--- .*\n\\+\\+\\+ ")
               (push nil files)
               (forward-line 2))
              ((looking-at gemini-ls--hunk-header-re)
               (let ((h (and files (gemini-ls--read-hunk))))
                 (if h
                     (push (apply #'gemini-ls--make-hunk (nth 2 h) (butlast h)) (car files))
                   (setq ok nil))))
              (t (forward-line 1))))
      (and ok (= (length files) (length (plist-get gemini-ls--review :files)))
           (nreverse (mapcar #'reverse files))))))

(defun gemini-ls--hunk-within-p (hunk outer)
  "Non-nil if HUNK's change lies within OUTER's: a part of it."
  (let ((first (lambda (h) (+ (plist-get h :old-start)
                              (if (zerop (plist-get h :old-count)) 1 0)))))
    (and (<= (funcall first outer) (funcall first hunk))
         (<= (+ (funcall first hunk) (plist-get hunk :old-count))
             (+ (funcall first outer) (plist-get outer :old-count))))))

(defun gemini-ls--review-take-shown ()
  "Take the hunks on view in the review buffer as the review's.
A `diff-mode' command that edits the diff, as `diff-split-hunk' does,
changes them: each part of a split hunk keeps its decision, so nothing
the user rejected is accepted.  Anything else that makes the diff no
longer the change is undone, with a user error saying so."
  (when (buffer-modified-p)
    (let* ((index (how-many "^@@ " (point-min) (line-end-position)))
           (files (plist-get gemini-ls--review :files))
           (shown (gemini-ls--review-shown-hunks))
           (ok (and shown
                    (cl-every
                     (lambda (pair)
                       (let ((f (car pair)) (hunks (cdr pair)))
                         (dolist (h hunks)
                           (let ((from (cl-find-if (lambda (o) (gemini-ls--hunk-within-p h o))
                                                   (gemini-ls--file-hunks f))))
                             (plist-put h :decision (and from (plist-get from :decision)))))
                         (and (equal (gemini-ls--merge (gemini-ls--file-original f) hunks)
                                     (gemini-ls--merge (gemini-ls--file-original f)
                                                       (gemini-ls--file-hunks f)))
                              (equal (gemini-ls--merge (gemini-ls--file-original f)
                                                       (mapcar (lambda (h) (plist-put (copy-sequence h) :decision nil))
                                                               hunks))
                                     (gemini-ls--file-proposed f)))))
                     (cl-mapcar #'cons files shown)))))
      (when ok
        (cl-mapc (lambda (f hunks) (setf (gemini-ls--file-hunks f) hunks)) files shown))
      (gemini-ls--review-render)
      (goto-char (point-min))
      (when (> index 0) (re-search-forward "^@@ " nil t index) (beginning-of-line))
      (unless ok
        (user-error (substitute-command-keys
                     "The review's diff was edited: it shows the change again.  \
Split a hunk with \\<diff-mode-map>\\[diff-split-hunk]; edit the proposal with \
\\<gemini-ls-review-mode-map>\\[gemini-ls-review-edit-proposal]"))))))

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
                      "\\[gemini-ls-review-edit-proposal]: edit the proposal"
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

(defun gemini-ls--review-sync (file)
  "Make FILE's proposal the original with its hunks not rejected."
  (let ((text (gemini-ls--merge (gemini-ls--file-original file)
                                (gemini-ls--file-hunks file))))
    (setf (gemini-ls--file-shown file) text)
    (gemini-ls--set-text (gemini-ls--proposal file) text)))

(defun gemini-ls--review-decide-hunk (decision)
  "Mark the hunk at point with DECISION and update the proposal."
  (gemini-ls--review-check)
  (gemini-ls--review-take-shown)
  (when (gemini-ls--review-refresh)
    (user-error "You edited the proposal: the review shows it now, decide again"))
  (pcase-let ((`(,f . ,h) (gemini-ls--review-hunk-at-point)))
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
  "Reject the hunk at point: the proposal gets back the original there."
  (interactive)
  (gemini-ls--review-decide-hunk 'rejected))

(defun gemini-ls-review-finish ()
  "Answer with the hunk decisions; undecided hunks are accepted.
Each file gets what its proposal holds, your edits included."
  (interactive)
  (gemini-ls--review-check)
  (gemini-ls--review-take-shown)
  (gemini-ls--review-end 'finish))

(defun gemini-ls-review-accept-all ()
  "Accept every hunk and answer."
  (interactive)
  (gemini-ls--review-check)
  (gemini-ls--review-take-shown)
  (gemini-ls--review-refresh)
  (dolist (f (plist-get gemini-ls--review :files))
    (dolist (h (gemini-ls--file-hunks f)) (plist-put h :decision 'accepted))
    (gemini-ls--review-sync f))
  (gemini-ls--review-end 'finish))

(defun gemini-ls-review-reject-all ()
  "Reject the whole change, leaving every file as it is."
  (interactive)
  (gemini-ls--review-check)
  (gemini-ls--review-end 'reject))

(defun gemini-ls--review-file-at-point ()
  "The (FILE . HUNK) at point in the review, else the first file's."
  (or (ignore-errors (gemini-ls--review-hunk-at-point))
      (list (car (plist-get gemini-ls--review :files)))))

(defun gemini-ls--hunk-line (file hunk)
  "The line of FILE's proposal where HUNK begins.
The diff's line, moved by the rejected hunks before it."
  (let ((line (if (string-match "^@@ -[0-9,]+ \\+\\([0-9]+\\)" (plist-get hunk :text))
                  (string-to-number (match-string 1 (plist-get hunk :text)))
                1)))
    (cl-loop for h in (gemini-ls--file-hunks file)
             until (eq h hunk)
             when (eq (plist-get h :decision) 'rejected)
             do (cl-incf line (- (plist-get h :old-count)
                                 (length (plist-get h :new-lines)))))
    (max line 1)))

(defun gemini-ls-review-edit-proposal ()
  "Show the proposal for the file at point, at its hunk, to read or edit.
What you type there is what accepting writes."
  (interactive)
  (gemini-ls--review-check)
  (gemini-ls--review-take-shown)
  (gemini-ls--review-refresh)
  (pcase-let* ((`(,f . ,h) (gemini-ls--review-file-at-point))
               (proposal (gemini-ls--proposal f)))
    (pop-to-buffer proposal)
    (when h
      (goto-char (point-min))
      (forward-line (1- (gemini-ls--hunk-line f h))))))

(defun gemini-ls-review-ediff ()
  "Compare the original with the proposal in ediff.
Edits made to the proposal there are what accepting writes."
  (interactive)
  (gemini-ls--review-check)
  (gemini-ls--review-take-shown)
  (gemini-ls--review-refresh)
  (pcase-let* ((`(,f . ,_) (gemini-ls--review-file-at-point))
               (proposal (gemini-ls--proposal f))
               (orig (get-buffer-create
                      (format "*gemini original %s*" (gemini-ls--display-name f)))))
    (with-current-buffer orig
      (let ((inhibit-read-only t))
        (erase-buffer) (insert (gemini-ls--file-original f))))
    (ediff-buffers orig proposal)))

(defun gemini-ls--in-proposal-review (command)
  "Run COMMAND in the review of the current proposal buffer."
  (let ((review gemini-ls--proposal-review))
    (unless (and (buffer-live-p review) (buffer-local-value 'gemini-ls--review review))
      (user-error "This proposal's review has ended"))
    (with-current-buffer review (funcall command))))

(defun gemini-ls-proposal-accept ()
  "Accept the change: this file as you read it here, the others as decided."
  (interactive)
  (gemini-ls--in-proposal-review #'gemini-ls-review-finish))

(defun gemini-ls-proposal-reject ()
  "Reject the whole change, leaving every file as it is."
  (interactive)
  (gemini-ls--in-proposal-review #'gemini-ls-review-reject-all))

(defun gemini-ls-proposal-save ()
  "Refuse to save a proposal: only accepting it writes the file."
  (interactive)
  (user-error (substitute-command-keys
               "This is Gemini's proposal, not the file: \\<gemini-ls-proposal-mode-map>\
\\[gemini-ls-proposal-accept] accepts it, \\[gemini-ls-proposal-reject] rejects it")))

(defun gemini-ls--review-open (req)
  "Show the change of REQ in a review buffer.
Each file's proposal goes in a buffer of its own (`gemini-ls--proposal')."
  (let* ((params (gemini-ls--request-params req))
         (files (let ((gemini-ls--edit-encoding
                       (gemini-ls--position-encoding (gemini-ls--request-server req))))
                  (gemini-ls--edit-files (plist-get params :edit))))
         (buf (generate-new-buffer "*gemini review*")))
    (condition-case err
        (dolist (f files)
          (setf (gemini-ls--file-root f)
                (gemini-ls--review-root (gemini-ls--request-server req) (gemini-ls--file-path f))
                (gemini-ls--file-shown f) (gemini-ls--file-proposed f)
                (gemini-ls--file-hunks f) (gemini-ls--file-diff-hunks f)))
      (error (kill-buffer buf)
             (signal (car err) (cdr err))))
    (with-current-buffer buf
      ;; Rendering edits the buffer; diff-mode must not "fix" it.
      (let ((diff-update-on-the-fly nil)) (diff-mode))
      (gemini-ls-review-mode 1)
      ;; Where the headers' names are relative to: diff-mode's
      ;; `diff-find-file-name' finds the files from there.
      (setq default-directory
            (or (and files (gemini-ls--file-root (car files))) default-directory))
      (setq-local header-line-format
                  (or (plist-get params :label) "Gemini: review the change"))
      (setq gemini-ls--review (list :files files :request req))
      (add-hook 'kill-buffer-hook #'gemini-ls--review-killed nil t)
      (dolist (f files) (gemini-ls--proposal f))
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

(defun gemini-ls--final-text (f)
  "The text accepting the review writes to F's file, or nil: none.
A file's proposal as it is; nothing where it is the file's text, or
for a new file whose every hunk was rejected."
  (let ((text (gemini-ls--file-shown f))
        (hunks (gemini-ls--file-hunks f)))
    (if (gemini-ls--file-created f)
        (unless (and hunks (cl-every (lambda (h) (eq (plist-get h :decision) 'rejected))
                                     hunks))
          text)
      (unless (equal text (gemini-ls--file-original f)) text))))

(defun gemini-ls--review-end (how &optional killed)
  "End the review in this buffer with the user's decision HOW.
`finish': each file gets its proposal (the hunk decisions, undecided
hunks accepted, and the user's edits); `reject': nothing; `withdrawn':
the server no longer waits, so nothing is answered.  A file that changed
since the change was proposed is not overwritten: the review stays open
and says so.  KILLED: the buffer is being killed."
  (let* ((review gemini-ls--review)
         (req (plist-get review :request))
         (files (plist-get review :files))
         (buf (current-buffer))
         (writes nil)
         (failure nil))
    (when (eq how 'finish)
      (gemini-ls--review-refresh)
      (dolist (f files)
        (let ((text (gemini-ls--final-text f)))
          (when text (push (cons f text) writes))))
      (setq writes (nreverse writes))
      (let ((changed (cl-find-if #'gemini-ls--changed-since-proposed writes :key #'car)))
        (when changed
          (user-error (if (gemini-ls--file-created (car changed))
                          "%s was made since Gemini proposed it: reject the change"
                        "%s changed since Gemini proposed this: undo that there, or reject the change")
                      (gemini-ls--display-name (car changed))))))
    (setq gemini-ls--review nil)
    (when (plist-get review :timer) (cancel-timer (plist-get review :timer)))
    (condition-case err
        (dolist (w writes) (gemini-ls--write (car w) (cdr w)))
      (error (setq failure (error-message-string err))
             (message "Gemini: the change could not be written: %s" failure)))
    (dolist (f files)
      (let ((p (gemini-ls--file-proposal f)))
        (when (buffer-live-p p)
          (let ((win (get-buffer-window p)))
            (if win (quit-window t win) (kill-buffer p))))))
    (unless killed
      (let ((win (get-buffer-window buf)))
        (if win (quit-window t win) (kill-buffer buf))))
    ;; A user's no carries no failureReason: with one, the server takes it
    ;; for the editor failing and tells the model so (docs/protocol.md).
    (unless (eq how 'withdrawn)
      (gemini-ls--answer req :result
                         (cond (failure (list :applied :json-false :failureReason failure))
                               (writes '(:applied t))
                               (t '(:applied :json-false)))))
    (gemini-ls--review-next)))

(provide 'gemini-ls-review)
;;; gemini-ls-review.el ends here
