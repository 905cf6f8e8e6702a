;;; gemini-ls-test.el --- ERT tests for gemini-ls.el  -*- lexical-binding: t; -*-

;; Run by run.sh: the real gemini-ls binary (GEMINI_LS_BIN) against the
;; fake Gemini API (FAKEGEMINI_BIN), one fake per test with its own script.

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'gemini-ls)
(require 'url-util)

(defvar gemini-ls-test--timeout 30 "Seconds a test waits for the server.")

(defvar gemini-ls-test--api-key "test"
  "GEMINI_API_KEY for the server; nil leaves it unset.")

(defun gemini-ls-test--wait (pred what)
  "Wait until PRED is non-nil, or fail naming WHAT."
  (let ((deadline (+ (float-time) gemini-ls-test--timeout)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred) (ert-fail (format "timed out waiting for %s" what)))))

(defvar gemini-ls-test--record nil
  "If non-nil, the file where fakegemini records the requests it gets.")

(defun gemini-ls-test--start-fake (script)
  "Start fakegemini with SCRIPT (a Lisp value encoded as JSON).
Return (PROCESS . URL)."
  (let* ((file (make-temp-file "gemini-script" nil ".json"
                               (json-encode script)))
         (buf (generate-new-buffer " *fakegemini*"))
         (proc (make-process :name "fakegemini" :buffer buf
                             :command (append
                                       (list (getenv "FAKEGEMINI_BIN")
                                             "--script" file)
                                       (when gemini-ls-test--record
                                         (list "--record" gemini-ls-test--record)))
                             :connection-type 'pipe
                             :noquery t)))
    (gemini-ls-test--wait
     (lambda () (with-current-buffer buf
                  (save-excursion (goto-char (point-min))
                                  (re-search-forward "^GOOGLE_GEMINI_BASE_URL=\\(.*\\)\n" nil t))))
     "fakegemini's URL")
    (cons proc (with-current-buffer buf
                 (goto-char (point-min))
                 (re-search-forward "^GOOGLE_GEMINI_BASE_URL=\\(.*\\)$")
                 (match-string 1)))))

(defmacro gemini-ls-test--with-server (script files &rest body)
  "Run BODY with a project of FILES ((NAME . TEXT)...) and a server.
The model follows SCRIPT.  In BODY, `dir' is the project directory and
`buf' visits the first file, managed by eglot."
  (declare (indent 2))
  `(let* ((fake (gemini-ls-test--start-fake ,script))
          (dir (file-name-as-directory (make-temp-file "gemini-proj" t)))
          (process-environment
           (append (list (if gemini-ls-test--api-key
                               (concat "GEMINI_API_KEY=" gemini-ls-test--api-key)
                             "GEMINI_API_KEY")
                         "GOOGLE_API_KEY" "GOOGLE_GENAI_USE_VERTEXAI"
                         (concat "GOOGLE_GEMINI_BASE_URL=" (cdr fake))
                         "GEMINI_MODEL=gemini-test")
                   process-environment))
          (project-find-functions (list (lambda (_) (cons 'transient dir))))
          (gemini-ls-server-command (getenv "GEMINI_LS_BIN"))
          ;; eglot runs gemini-ls for the first file's mode (text,
          ;; Python), as for a user who hands it that mode.
          (eglot-server-programs (copy-sequence eglot-server-programs))
          (eglot-sync-connect t)
          (eglot-autoshutdown nil)
          (inhibit-message t)
          (server nil)
          (buf nil))
     (unwind-protect
         (progn
           (dolist (f ,files)
             (make-directory (file-name-directory (expand-file-name (car f) dir)) t)
             (with-temp-file (expand-file-name (car f) dir) (insert (cdr f))))
           (setq buf (find-file-noselect (expand-file-name (car (car ,files)) dir)))
           (with-current-buffer buf
             (gemini-ls-register major-mode)
             (apply #'eglot (eglot--guess-contact))
             (setq server (eglot-current-server)))
           (should (cl-typep server 'gemini-ls-server))
           (when (get-buffer "*gemini*") (kill-buffer "*gemini*"))
           ,@body)
       (dolist (b (gemini-ls-test--review-buffers)) (kill-buffer b))
       (setq gemini-ls--requests nil)
       (when server (ignore-errors (let ((eglot-autoreconnect nil))
                                     (eglot-shutdown server))))
       (dolist (b (buffer-list))
         (when (and (buffer-file-name b)
                    (string-prefix-p dir (buffer-file-name b)))
           (with-current-buffer b (set-buffer-modified-p nil))
           (kill-buffer b)))
       (delete-process (car fake))
       (delete-directory dir t))))

(defun gemini-ls-test--prompt (buf text)
  "Send TEXT from BUF and wait for the prompt to end."
  (with-current-buffer buf (gemini-ls-prompt text))
  (gemini-ls-test--wait
   (lambda () (not (buffer-local-value 'gemini-ls--busy (get-buffer "*gemini*"))))
   "the prompt's answer"))

(defun gemini-ls-test--chat ()
  "The chat's transcript: its text above the prompt area."
  (with-current-buffer "*gemini*"
    (buffer-substring-no-properties (point-min) gemini-ls--output-end)))

(defun gemini-ls-test--file (dir name)
  "Contents of file NAME in DIR, on disk."
  (with-temp-buffer (insert-file-contents (expand-file-name name dir)) (buffer-string)))

(defun gemini-ls-test--edit-script (args)
  "A script: replace with ARGS, then the text Done."
  (vector `((chunks . [((text . "Editing.\n"))
                       ((call . ((name . "replace") (args . ,args))))]))
          '((text . "Done."))))

(defmacro gemini-ls-test--with-greeting-edit (&rest body)
  "Run BODY as `gemini-ls-test--with-server' does, for a greeting edit.
The project is a.txt, \"hello world\", and the model replaces world
with Emacs."
  (declare (indent 0))
  `(gemini-ls-test--with-server
       (gemini-ls-test--edit-script '((file_path . "a.txt")
                                      (old_string . "world")
                                      (new_string . "Emacs")))
       '(("a.txt" . "hello world\n"))
     ,@body))

(ert-deftest gemini-ls-test-streamed-answer ()
  "Thoughts and text deltas stream into the chat."
  (gemini-ls-test--with-server
      [((chunks . [((thought . t) (text . "**Reading** I look at the file."))
                   ((text . "Hello "))
                   ((text . "from the fake model."))]))]
      '(("a.txt" . "one\n"))
    (gemini-ls-test--prompt buf "say hello")
    (let ((chat (gemini-ls-test--chat)))
      (should (string-match-p "## You\n\nsay hello" chat))
      (should (string-match-p "> thought: Reading" chat))
      (should (string-match-p "Hello from the fake model\\." chat)))
    (with-current-buffer "*gemini*"
      ;; Fontified as on screen: markdown-mode's font-lock manages the
      ;; `invisible' and `face' properties of the text it fontifies.
      (font-lock-ensure)
      ;; The thought's text is folded away.
      (goto-char (point-min))
      (search-forward "I look at the file")
      (should (eq (get-char-property (match-beginning 0) 'invisible)
                  'gemini-ls-thought))
      (should (invisible-p (match-beginning 0)))
      (should gemini-ls--session-id)
      ;; A Markdown chat where markdown-mode is installed (CI's Emacs 28
      ;; has elpa-markdown-mode, its Emacs 30 does not): the folding and
      ;; the faces above hold in both.
      (should (derived-mode-p (if (locate-library "markdown-mode")
                                  'markdown-mode
                                'text-mode))))))

(defun gemini-ls-test--busy-p ()
  "Non-nil while the chat has a prompt under way."
  (buffer-local-value 'gemini-ls--busy (get-buffer "*gemini*")))

(defun gemini-ls-test--start (buf text)
  "Send TEXT from BUF; do not wait for the answer."
  (with-current-buffer buf (gemini-ls-prompt text)))

(defun gemini-ls-test--wait-done ()
  "Wait for the running prompt to end."
  (gemini-ls-test--wait (lambda () (not (gemini-ls-test--busy-p)))
                        "the prompt's answer"))

(defun gemini-ls-test--review-buffers ()
  "The open review buffers."
  (cl-remove-if-not (lambda (b) (buffer-local-value 'gemini-ls--review b))
                    (buffer-list)))

(defun gemini-ls-test--review ()
  "Wait for a review to open, as the user would; return its buffer."
  (gemini-ls-test--wait #'gemini-ls-test--review-buffers "the review buffer")
  (car (gemini-ls-test--review-buffers)))

(defun gemini-ls-test--proposal (review name)
  "The buffer of REVIEW holding the proposal for file NAME, as shown."
  (let ((f (cl-find name (plist-get (buffer-local-value 'gemini-ls--review review) :files)
                    :key #'gemini-ls--display-name :test #'equal)))
    (should f)
    (with-current-buffer review (gemini-ls--proposal f))))

(defmacro gemini-ls-test--recording (var &rest body)
  "Run BODY, pushing every notification Emacs sends, (METHOD . PARAMS), on VAR."
  (declare (indent 1))
  `(let ((orig (symbol-function 'jsonrpc-notify)))
     (cl-letf (((symbol-function 'jsonrpc-notify)
                (lambda (conn method params)
                  (push (cons method params) ,var)
                  (funcall orig conn method params))))
       ,@body)))

(defun gemini-ls-test--responses (notes)
  "The params of the gemini/response notifications in NOTES, oldest first."
  (mapcar #'cdr (reverse (cl-remove-if-not
                          (lambda (n) (eq (car n) :gemini/response)) notes))))

(defun gemini-ls-test--status ()
  "The Gemini status of the mode line.
Batch Emacs formats no mode line, so this evaluates the entry itself;
tmux-screens.sh sees it in a real one."
  (let ((entry (cl-find-if (lambda (e) (equal e '(:eval (gemini-ls--mode-line))))
                           mode-line-misc-info)))
    (should entry)
    (eval (cadr entry) t)))

(ert-deftest gemini-ls-test-review-names-a-file-of-no-project ()
  "A file of no project is named relative to the server's workspace.
The review's headers read --- a/a.txt, as `diff-mode' and magit expect,
never a//tmp/...: an absolute name after a/; and `diff-mode' finds the
file from them."
  (gemini-ls-test--with-greeting-edit
    ;; The file's directory is no project now; the server's is the one
    ;; it was started for.
    (let ((project-find-functions nil))
      (should-not (with-current-buffer buf (project-current)))
      (gemini-ls-test--start buf "greet Emacs")
      (with-current-buffer (gemini-ls-test--review)
        (should (string-match-p "^--- a/a\\.txt\n\\+\\+\\+ b/a\\.txt$" (buffer-string)))
        (should-not (string-match-p "^--- a//" (buffer-string)))
        (should (equal default-directory dir))
        (goto-char (point-min))
        (re-search-forward "^@@ ")
        (should (equal (expand-file-name (diff-find-file-name)) (expand-file-name "a.txt" dir)))
        (gemini-ls-review-accept-all))
      (gemini-ls-test--wait-done))))

(ert-deftest gemini-ls-test-edit-accepted ()
  "An accepted change reaches the file on disk; the tool line says ok.
The review does not block Emacs; its answer goes as gemini/response."
  (gemini-ls-test--with-greeting-edit
    (should (eq t (plist-get (plist-get (plist-get (eglot-client-capabilities server)
                                                   :experimental)
                                        :gemini)
                             :requestNotifications)))
    (let (notes)
      (gemini-ls-test--recording notes
        (gemini-ls-test--start buf "greet Emacs")
        (with-current-buffer (gemini-ls-test--review)
          ;; The proposal has a buffer of its own; the file's is untouched.
          (should (equal (with-current-buffer (gemini-ls-test--proposal (current-buffer) "a.txt")
                           (buffer-string))
                         "hello Emacs\n"))
          (should (equal (with-current-buffer buf (buffer-string)) "hello world\n"))
          (should-not (buffer-modified-p buf))
          (should (string-match-p "^--- a/a.txt$" (buffer-string)))
          (should (string-match-p "^-hello world$" (buffer-string)))
          (should (string-match-p "^\\+hello Emacs$" (buffer-string)))
          (should (equal header-line-format "Gemini: edit a.txt (+1 −1)"))
          (should buffer-read-only)
          ;; The review's keys win over diff-mode's read-only ones.
          (should (eq (key-binding "A") #'gemini-ls-review-accept-all))
          (should (eq (key-binding "q") #'gemini-ls-review-finish))
          (should (eq (key-binding "n") #'diff-hunk-next))
          ;; diff-mode's keys to the source show the proposal instead.
          (should (eq (key-binding (kbd "RET")) #'gemini-ls-review-edit-proposal))
          (should (eq (key-binding "o") #'gemini-ls-review-edit-proposal))
          (gemini-ls-review-accept-all))
        (should-not (gemini-ls-test--review-buffers))
        (gemini-ls-test--wait-done))
      (let ((responses (gemini-ls-test--responses notes)))
        (should (= 1 (length responses)))
        (should (string-prefix-p "g" (plist-get (car responses) :id)))
        (should (equal (plist-get (car responses) :result) '(:applied t)))))
    (should (equal (gemini-ls-test--file dir "a.txt") "hello Emacs\n"))
    (should-not (buffer-modified-p buf))
    (should (string-match-p "- Edit a.txt \\[ok\\]" (gemini-ls-test--chat)))
    (should (string-match-p "Done\\." (gemini-ls-test--chat)))))

(ert-deftest gemini-ls-test-edit-region ()
  "`gemini-ls-edit-region' has the region rewritten outside the chat:
the rewrite is reviewed, accepted, and the user told."
  (let ((messages nil)
        (gemini-ls-test--record (make-temp-file "gemini-requests" nil ".jsonl")))
    (gemini-ls-test--with-server (vector '((text . "Emacs"))) '(("a.txt" . "hello world\n"))
      (cl-letf* ((real-message (symbol-function 'message))
                 ((symbol-function 'message)
                  (lambda (fmt &rest args)
                    (when fmt (push (apply #'format fmt args) messages))
                    (apply real-message fmt args))))
        (with-current-buffer buf (gemini-ls-edit-region 7 12 "name the editor"))
        (with-current-buffer (gemini-ls-test--review)
          (should (string-match-p "^-hello world$" (buffer-string)))
          (should (string-match-p "^\\+hello Emacs$" (buffer-string)))
          (gemini-ls-review-accept-all))
        (gemini-ls-test--wait
         (lambda () (member "Gemini edited the selection in a.txt." messages))
         "the edit's outcome"))
      (should (equal (gemini-ls-test--file dir "a.txt") "hello Emacs\n"))
      (should-not (get-buffer "*gemini*"))
      (let ((sent (with-temp-buffer (insert-file-contents gemini-ls-test--record) (buffer-string))))
        (should (string-match-p "hello \\\\u003cselection\\\\u003eworld\\\\u003c/selection\\\\u003e" sent))
        (should (string-match-p "Instruction: name the editor" sent))))))

(ert-deftest gemini-ls-test-edit-rejected ()
  "A rejected change leaves the file and the buffer unchanged."
  (gemini-ls-test--with-greeting-edit
    (let (notes)
      (gemini-ls-test--recording notes
        (gemini-ls-test--start buf "greet Emacs")
        (with-current-buffer (gemini-ls-test--review) (gemini-ls-review-reject-all))
        (gemini-ls-test--wait-done))
      (should (equal (mapcar (lambda (r) (plist-get r :result))
                             (gemini-ls-test--responses notes))
                     '((:applied :json-false)))))
    (should (equal (gemini-ls-test--file dir "a.txt") "hello world\n"))
    (should (equal (with-current-buffer buf (buffer-string)) "hello world\n"))
    (should-not (buffer-modified-p buf))
    (should (string-match-p "- Edit a.txt \\[rejected\\]" (gemini-ls-test--chat)))))

(ert-deftest gemini-ls-test-review-killed ()
  "Killing the review buffer rejects the change."
  (gemini-ls-test--with-greeting-edit
    (gemini-ls-test--start buf "greet Emacs")
    (kill-buffer (gemini-ls-test--review))
    (gemini-ls-test--wait-done)
    (should (equal (with-current-buffer buf (buffer-string)) "hello world\n"))
    (should-not (buffer-modified-p buf))
    (should (equal (gemini-ls-test--file dir "a.txt") "hello world\n"))
    (should (string-match-p "- Edit a.txt \\[rejected\\]" (gemini-ls-test--chat)))))

(defun gemini-ls-test--new-file-script ()
  "A script: write notes/new.md, then the text Done."
  (vector '((chunks . [((call . ((name . "write_file")
                                  (args . ((file_path . "notes/new.md")
                                           (content . "# New\n"))))))]))
          '((text . "Done."))))

(ert-deftest gemini-ls-test-new-file-accepted ()
  "An accepted new file is created on disk."
  (gemini-ls-test--with-server (gemini-ls-test--new-file-script)
      '(("a.txt" . "x\n"))
    (gemini-ls-test--start buf "write notes")
    (with-current-buffer (gemini-ls-test--review) (gemini-ls-review-accept-all))
    (gemini-ls-test--wait-done)
    (should (equal (gemini-ls-test--file dir "notes/new.md") "# New\n"))
    (should (string-match-p "\\[ok\\]" (gemini-ls-test--chat)))))

(ert-deftest gemini-ls-test-new-file-rejected ()
  "A rejected new file is not created, and its buffer is gone."
  (gemini-ls-test--with-server (gemini-ls-test--new-file-script)
      '(("a.txt" . "x\n"))
    (gemini-ls-test--start buf "write notes")
    (with-current-buffer (gemini-ls-test--review)
      ;; No buffer visits the new file before it is accepted.
      (should-not (find-buffer-visiting (expand-file-name "notes/new.md" dir)))
      (should (equal (with-current-buffer (gemini-ls-test--proposal (current-buffer) "notes/new.md")
                       (buffer-string))
                     "# New\n"))
      (gemini-ls-review-reject-all))
    (gemini-ls-test--wait-done)
    (should-not (file-exists-p (expand-file-name "notes/new.md" dir)))
    (should-not (find-buffer-visiting (expand-file-name "notes/new.md" dir)))
    (should (string-match-p "\\[rejected\\]" (gemini-ls-test--chat)))))

(ert-deftest gemini-ls-test-edit-partially-accepted ()
  "Rejecting one hunk reverts it; the other hunk reaches the disk."
  (let* ((lines (mapcar (lambda (i) (format "line %d" i)) (number-sequence 1 20)))
         (old (concat (mapconcat #'identity lines "\n") "\n"))
         (two (replace-regexp-in-string "^line 2$" "LINE TWO" old))
         (new (replace-regexp-in-string "^line 18$" "LINE EIGHTEEN" two))
         (review nil))
    (gemini-ls-test--with-server
        (vector `((chunks . [((call . ((name . "write_file")
                                        (args . ((file_path . "a.txt")
                                                 (content . ,new))))))]))
                '((text . "Done.")))
        `(("a.txt" . ,old))
      (gemini-ls-test--start buf "shout two lines")
      (with-current-buffer (setq review (gemini-ls-test--review))
        (should (= 2 (how-many "^@@ " (point-min) (point-max))))
        ;; Point starts on the first hunk: accept it, reject the second.
        (gemini-ls-review-accept-hunk)
        (should (looking-at "^@@ -15,"))
        (gemini-ls-review-reject-hunk)
        (should (string-match-p "\\[rejected\\]" (buffer-string)))
        ;; The proposal shows the decisions; the file's buffer is untouched.
        (should (equal (with-current-buffer (gemini-ls-test--proposal (current-buffer) "a.txt")
                         (buffer-string))
                       two))
        (should (equal (with-current-buffer buf (buffer-string)) old))
        ;; RET shows the proposal at the hunk at point.
        (goto-char (point-min))
        (re-search-forward "^@@ -15,")
        (save-current-buffer
          (call-interactively (key-binding (kbd "RET")))
          (should (eq (current-buffer) (gemini-ls-test--proposal review "a.txt")))
          (should (= (line-number-at-pos) 15))
          (should (looking-at "line 15$")))
        (gemini-ls-review-finish))
      (gemini-ls-test--wait-done)
      (should (equal (gemini-ls-test--file dir "a.txt") two)))))

(defun gemini-ls-test--twelve-lines (&rest changes)
  "Return a 12-line text, \"line 1\" to \"line 12\", some lines replaced.
Each of CHANGES is (N . TEXT), which puts TEXT (it may hold several
lines) in place of line N."
  (mapconcat (lambda (i) (concat (or (cdr (assq i changes)) (format "line %d" i)) "\n"))
             (number-sequence 1 12) ""))

(ert-deftest gemini-ls-test-review-close-changes-apart ()
  "Two changes four lines apart are two hunks, taken or dropped each alone.
Accepting the first and rejecting the second writes exactly the first;
the edit's line in the chat says it was accepted in part."
  (let ((old (gemini-ls-test--twelve-lines))
        (both (gemini-ls-test--twelve-lines '(3 . "LINE THREE") '(7 . "LINE SEVEN")))
        (first (gemini-ls-test--twelve-lines '(3 . "LINE THREE"))))
    (gemini-ls-test--with-server
        (vector `((chunks . [((call . ((name . "write_file")
                                        (args . ((file_path . "a.txt")
                                                 (content . ,both))))))]))
                '((text . "Done.")))
        `(("a.txt" . ,old))
      (gemini-ls-test--start buf "shout two lines")
      (with-current-buffer (gemini-ls-test--review)
        (should (= 2 (how-many "^@@ " (point-min) (point-max))))
        (should (looking-at "^@@ -1,6 \\+1,6 @@$"))
        (gemini-ls-review-accept-hunk)
        ;; The second hunk shows the lines between the changes again, as
        ;; git add -p's split does, but not the first change.
        (should (looking-at "^@@ -4,7 \\+4,7 @@\n line 4\n line 5\n line 6\n-line 7\n\\+LINE SEVEN\n"))
        (gemini-ls-review-reject-hunk)
        (should (equal (with-current-buffer (gemini-ls-test--proposal (current-buffer) "a.txt")
                         (buffer-string))
                       first))
        (gemini-ls-review-finish))
      (gemini-ls-test--wait-done)
      (should (equal (gemini-ls-test--file dir "a.txt") first))
      (should (string-match-p "- WriteFile a\\.txt \\[accepted in part: 1 of 2 changes\\]"
                              (gemini-ls-test--chat))))))

(defun gemini-ls-test--review-of (server dir text)
  "Open the review of a change of a.txt in DIR to TEXT, from SERVER."
  (eglot-handle-notification
   server 'gemini/request :id "x1" :method "workspace/applyEdit"
   :params (list :label "Gemini: edit a.txt"
                 :edit `(:documentChanges
                         [(:textDocument (:uri ,(gemini-ls--uri (expand-file-name "a.txt" dir))
                                          :version nil)
                           :edits [(:range (:start (:line 0 :character 0)
                                            :end (:line 12 :character 0))
                                    :newText ,text :annotationId "gemini.edit")])]
                         :changeAnnotations (:gemini.edit (:label "Gemini: edit a.txt"
                                                           :needsConfirmation t)))))
  (gemini-ls-test--review))

(ert-deftest gemini-ls-test-review-split-hunk ()
  "`diff-split-hunk' makes two hunks the review takes or drops each alone.
Line 3 becomes X, and Y is added after it: one change.  Split before
the +Y line, r rejects Y (no wrong-type error) and a accepts X; the file
gets X alone.  A hunk rejected and then split stays rejected in each
part: a on the first part accepts nothing of the second."
  (let ((old (gemini-ls-test--twelve-lines))
        (new (gemini-ls-test--twelve-lines '(3 . "X\nY")))
        (split (lambda ()
                 (goto-char (point-min))
                 (re-search-forward "^\\+Y$")
                 (beginning-of-line)
                 (diff-split-hunk)
                 (should (= 2 (how-many "^@@ " (point-min) (point-max))))
                 (should (looking-at "^\\+Y$")))))
    (gemini-ls-test--with-server [] `(("a.txt" . ,old))
      (let (notes)
        (gemini-ls-test--recording notes
          (with-current-buffer (gemini-ls-test--review-of server dir new)
            (should (= 1 (how-many "^@@ " (point-min) (point-max))))
            (funcall split)
            (gemini-ls-review-reject-hunk)
            (should (string-match-p "^@@ -4,3 \\+4,4 @@  \\[rejected\\]\n\\+Y\n line 4$" (buffer-string)))
            (goto-char (point-min))
            (re-search-forward "^@@ ")
            (gemini-ls-review-accept-hunk)
            (should (string-match-p "^@@ -1,3 \\+1,3 @@  \\[accepted\\]\n line 1\n line 2\n-line 3\n\\+X\n@@"
                                    (buffer-string)))
            (gemini-ls-review-finish)))
        (should (equal (gemini-ls-test--file dir "a.txt") (gemini-ls-test--twelve-lines '(3 . "X"))))
        (should (equal (plist-get (car (gemini-ls-test--responses notes)) :result) '(:applied t))))
      (with-temp-file (expand-file-name "a.txt" dir) (insert old))
      (with-current-buffer buf (revert-buffer t t))
      (with-current-buffer (gemini-ls-test--review-of server dir new)
        (gemini-ls-review-reject-hunk)
        (funcall split)
        (goto-char (point-min))
        (re-search-forward "^@@ ")
        (gemini-ls-review-accept-hunk)
        (should (= 1 (how-many "\\[rejected\\]" (point-min) (point-max))))
        (should (string-match-p "^@@ -4,3 \\+4,4 @@  \\[rejected\\]\n\\+Y$" (buffer-string)))
        (gemini-ls-review-finish))
      (should (equal (gemini-ls-test--file dir "a.txt") (gemini-ls-test--twelve-lines '(3 . "X")))))))

(ert-deftest gemini-ls-test-edited-during-review ()
  "What the user types in the proposal during the review is what is kept.
The review then shows the edited proposal's diff, to decide again."
  (gemini-ls-test--with-greeting-edit
    (let (notes)
      (gemini-ls-test--recording notes
        (gemini-ls-test--start buf "greet Emacs")
        (let ((review (gemini-ls-test--review)))
          (with-current-buffer (gemini-ls-test--proposal review "a.txt")
            (goto-char (point-max))
            (insert "and more\n"))
          (with-current-buffer review
            ;; A decision on the hunks shown before the edit would
            ;; overwrite the user's text: the review shows it first.
            (should-error (gemini-ls-review-reject-hunk) :type 'user-error)
            (should (string-match-p "^\\+and more$" (buffer-string)))
            (gemini-ls-review-finish)))
        (gemini-ls-test--wait-done))
      (should (equal (plist-get (car (gemini-ls-test--responses notes)) :result)
                     '(:applied t))))
    (should (equal (gemini-ls-test--file dir "a.txt") "hello Emacs\nand more\n"))
    (should (equal (with-current-buffer buf (buffer-string)) "hello Emacs\nand more\n"))))

(ert-deftest gemini-ls-test-cancel-during-review ()
  "Cancelling the prompt closes its review and restores the buffer."
  (gemini-ls-test--with-greeting-edit
    (let (notes)
      (gemini-ls-test--recording notes
        (gemini-ls-test--start buf "greet Emacs")
        (let* ((review (gemini-ls-test--review))
               (proposal (gemini-ls-test--proposal review "a.txt")))
          (should-not (buffer-modified-p buf))
          (with-current-buffer buf (gemini-ls-cancel))
          (gemini-ls-test--wait (lambda () (not (buffer-live-p review)))
                                "the review to close")
          (should-not (buffer-live-p proposal))
          (should (equal (with-current-buffer buf (buffer-string)) "hello world\n"))
          (should-not (buffer-modified-p buf))
          (gemini-ls-test--wait-done)))
      (should-not (gemini-ls-test--responses notes)))
    (should-not gemini-ls--requests)
    (should (equal (gemini-ls-test--file dir "a.txt") "hello world\n"))
    (should (string-match-p "\\[cancelled\\]" (gemini-ls-test--chat)))))

(ert-deftest gemini-ls-test-cancel-during-new-file-review ()
  "Cancelling during the review of a new file kills the file's buffer."
  (gemini-ls-test--with-server (gemini-ls-test--new-file-script)
      '(("a.txt" . "x\n"))
    (gemini-ls-test--start buf "write notes")
    (let ((review (gemini-ls-test--review)))
      (should-not (find-buffer-visiting (expand-file-name "notes/new.md" dir)))
      (with-current-buffer buf (gemini-ls-cancel))
      (gemini-ls-test--wait (lambda () (not (buffer-live-p review)))
                            "the review to close"))
    (gemini-ls-test--wait-done)
    (should-not (find-buffer-visiting (expand-file-name "notes/new.md" dir)))
    (should-not (file-exists-p (expand-file-name "notes/new.md" dir)))
    (should (string-match-p "\\[cancelled\\]" (gemini-ls-test--chat)))))

(ert-deftest gemini-ls-test-mode-line-status ()
  "The mode line says what Gemini does: idle, thinking, reviewing."
  (gemini-ls-test--with-greeting-edit
    (should (string-match-p "Gemini " (gemini-ls-test--status)))
    (should-not (string-match-p "Gemini:" (gemini-ls-test--status)))
    (gemini-ls-test--start buf "greet Emacs")
    (should (string-match-p "Gemini:thinking" (gemini-ls-test--status)))
    (with-current-buffer (gemini-ls-test--review)
      (should (string-match-p "Gemini:reviewing" (gemini-ls-test--status)))
      (gemini-ls-review-accept-all))
    (should (string-match-p "Gemini:\\(thinking\\|running Edit a.txt\\)" (gemini-ls-test--status)))
    (gemini-ls-test--wait-done)
    (should (string-match-p "Gemini " (gemini-ls-test--status)))
    (should-not (string-match-p "Gemini:" (gemini-ls-test--status))))
  ;; No server left.
  (should-not (string-match-p "Gemini" (gemini-ls-test--status))))

(defun gemini-ls-test--annotated (dir name text)
  "An annotated WorkspaceEdit for file NAME in DIR, parsed as by eglot.
It replaces the first line with TEXT."
  `(:documentChanges
    [(:textDocument (:uri ,(gemini-ls--uri (expand-file-name name dir)) :version nil)
      :edits [(:range (:start (:line 0 :character 0) :end (:line 1 :character 0))
               :newText ,text :annotationId "gemini.edit")])]
    :changeAnnotations (:gemini.edit (:label ,(concat "Gemini: edit " name)
                                      :needsConfirmation t))))

(ert-deftest gemini-ls-test-reviews-queue ()
  "Reviews open one at a time, in order; a withdrawn one never opens."
  (gemini-ls-test--with-server [] '(("a.txt" . "one\n") ("b.txt" . "two\n"))
    (let ((b (find-file-noselect (expand-file-name "b.txt" dir)))
          (request (lambda (id name text)
                     (eglot-handle-notification
                      server 'gemini/request :id id :method "workspace/applyEdit"
                      :params (list :label (concat "Gemini: edit " name)
                                    :edit (gemini-ls-test--annotated dir name text)))))
          notes)
      (gemini-ls-test--recording notes
        (funcall request "x1" "a.txt" "ONE\n")
        (funcall request "x2" "b.txt" "TWO\n")
        (funcall request "x3" "a.txt" "UNO\n")
        (should (= 1 (length (gemini-ls-test--review-buffers))))
        (should (equal (with-current-buffer (gemini-ls-test--proposal (gemini-ls-test--review) "a.txt")
                         (buffer-string))
                       "ONE\n"))
        (should (equal (with-current-buffer buf (buffer-string)) "one\n"))
        (should (equal (with-current-buffer b (buffer-string)) "two\n"))
        (eglot-handle-notification server 'gemini/cancelRequest :id "x3")
        (with-current-buffer (gemini-ls-test--review) (gemini-ls-review-accept-all))
        (with-current-buffer (gemini-ls-test--review)
          (should (equal header-line-format "Gemini: edit b.txt"))
          (should (equal (with-current-buffer buf (buffer-string)) "ONE\n"))
          (should (equal (with-current-buffer (gemini-ls-test--proposal (current-buffer) "b.txt")
                           (buffer-string))
                         "TWO\n"))
          (should (equal (with-current-buffer b (buffer-string)) "two\n"))
          (gemini-ls-review-reject-all))
        (should-not (gemini-ls-test--review-buffers))
        (should-not gemini-ls--requests))
      (should (equal (mapcar (lambda (r) (list (plist-get r :id)
                                               (plist-get (plist-get r :result) :applied)))
                             (gemini-ls-test--responses notes))
                     '(("x1" t) ("x2" :json-false))))
      (should (equal (gemini-ls-test--file dir "a.txt") "ONE\n"))
      (should (equal (gemini-ls-test--file dir "b.txt") "two\n"))
      (should (equal (with-current-buffer b (buffer-string)) "two\n")))))

(defun gemini-ls-test--two-file-edit (dir)
  "A change to review in DIR: a.txt's world to Emacs, a new notes/new.py.
And a new notes/todo.md, in `markdown-mode' where it is installed,
`fundamental-mode' where not (Emacs 30 has no mode for it)."
  (let ((new (gemini-ls--uri (expand-file-name "notes/new.py" dir)))
        (raw (gemini-ls--uri (expand-file-name "notes/todo.md" dir))))
    `(:documentChanges
      [(:textDocument (:uri ,(gemini-ls--uri (expand-file-name "a.txt" dir)) :version nil)
        :edits [(:range (:start (:line 0 :character 6) :end (:line 0 :character 11))
                 :newText "Emacs" :annotationId "gemini.edit")])
       (:kind "create" :uri ,new :annotationId "gemini.edit")
       (:textDocument (:uri ,new :version nil)
        :edits [(:range (:start (:line 0 :character 0) :end (:line 0 :character 0))
                 :newText "x = 1\n" :annotationId "gemini.edit")])
       (:kind "create" :uri ,raw :annotationId "gemini.edit")
       (:textDocument (:uri ,raw :version nil)
        :edits [(:range (:start (:line 0 :character 0) :end (:line 0 :character 0))
                 :newText "# To do\n" :annotationId "gemini.edit")])]
      :changeAnnotations (:gemini.edit (:label "Gemini: two files" :needsConfirmation t)))))

(defun gemini-ls-test--save-everything ()
  "Run now whatever would save the buffers.
`auto-save-visited-mode' once its interval passed (its timer's own
call), `save-some-buffers' as \[save-some-buffers] answered with ! would, and
`do-auto-save'."
  (should auto-save--timer)
  (apply (timer--function auto-save--timer) (timer--args auto-save--timer))
  (save-some-buffers t)
  (do-auto-save t))

(defmacro gemini-ls-test--with-two-file-review (review &rest body)
  "Run BODY with REVIEW bound to the review of a two-file change.
As `gemini-ls-test--with-server' does, with `auto-save-visited-mode' on,
for `gemini-ls-test--two-file-edit'; `notes' gets the notifications
sent, `new' is the new file's name.  Nothing is saved before BODY."
  (declare (indent 1))
  `(gemini-ls-test--with-server [] '(("a.txt" . "hello world\n"))
     (let ((new (expand-file-name "notes/new.py" dir)) (notes nil))
       (auto-save-visited-mode 1)
       (unwind-protect
           (gemini-ls-test--recording notes
             (eglot-handle-notification
              server 'gemini/request :id "x1" :method "workspace/applyEdit"
              :params (list :label "Gemini: two files" :edit (gemini-ls-test--two-file-edit dir)))
             (let ((,review (gemini-ls-test--review)))
               ;; Nothing saves the proposal.
               (gemini-ls-test--save-everything)
               (should (equal (gemini-ls-test--file dir "a.txt") "hello world\n"))
               (should (equal (with-current-buffer buf (buffer-string)) "hello world\n"))
               (should-not (buffer-modified-p buf))
               (should-not (file-exists-p new))
               (should-not (file-exists-p (file-name-directory new)))
               (should-not (find-buffer-visiting new))
               ,@body))
         (auto-save-visited-mode -1)))))

(ert-deftest gemini-ls-test-proposal-off-disk-until-accepted ()
  "Nothing reaches the disk before the user accepts, whatever saves buffers.
With `auto-save-visited-mode' on, its save run, `save-some-buffers' and
`do-auto-save': a.txt and its buffer keep their text and notes/new.py is
neither made nor visited.  The proposals visit no file, have their file's
major mode, are not managed by eglot (though its server would take them
by their project and mode) and ask no completion or next edit.
Accepted, each file holds its proposal, the user's edit included."
  (gemini-ls-test--with-two-file-review review
    (let ((a (gemini-ls-test--proposal review "a.txt"))
          (py (gemini-ls-test--proposal review "notes/new.py")))
      (with-current-buffer a
        (should (equal (buffer-string) "hello Emacs\n"))
        (should-not buffer-file-name)
        (should (eq major-mode 'text-mode))
        (should (eq (eglot-current-server) server))
        (should-not eglot--managed-mode)
        (should-not gemini-ls-completion-mode)
        (should-error (gemini-ls-complete-at-point) :type 'user-error)
        (should-error (gemini-ls-next-edit) :type 'user-error)
        (should-error (gemini-ls-proposal-save) :type 'user-error)
        ;; Undo starts from the proposal, not from an empty buffer.
        (should-error (undo) :type 'user-error)
        (goto-char (point-max))
        (insert "typed by me\n"))
      (with-current-buffer py
        (should (equal (buffer-string) "x = 1\n"))
        (should-not buffer-file-name)
        (should (eq major-mode 'python-mode))
        (should-not eglot--managed-mode))
      (with-current-buffer (gemini-ls-test--proposal review "notes/todo.md")
        (should-not buffer-file-name)
        (should (eq major-mode (if (fboundp 'markdown-mode) 'markdown-mode 'fundamental-mode)))
        (should-not eglot--managed-mode))
      ;; Nor the user's edit of it.
      (gemini-ls-test--save-everything)
      (should (equal (gemini-ls-test--file dir "a.txt") "hello world\n"))
      (should-not (file-exists-p new))
      ;; Nor does eglot tell the server of a proposal, as the file's text.
      (should-not (cl-find-if (lambda (n) (string-match-p "new\\.py\\|todo\\.md\\|Emacs"
                                                          (format "%S" n)))
                              notes))
      (with-current-buffer review (gemini-ls-review-accept-all))
      (should-not (buffer-live-p a))
      (should-not (buffer-live-p py)))
    (should (equal (gemini-ls-test--file dir "a.txt") "hello Emacs\ntyped by me\n"))
    (should (equal (gemini-ls-test--file dir "notes/new.py") "x = 1\n"))
    (should (equal (gemini-ls-test--file dir "notes/todo.md") "# To do\n"))
    (should (equal (with-current-buffer buf (buffer-string)) "hello Emacs\ntyped by me\n"))
    (should-not (buffer-modified-p buf))
    (should (equal (mapcar (lambda (r) (plist-get r :result)) (gemini-ls-test--responses notes))
                   '((:applied t))))))

(ert-deftest gemini-ls-test-proposal-rejected-changes-nothing ()
  "Rejected, after buffers were saved: no file changed, none made."
  (gemini-ls-test--with-two-file-review review
    (with-current-buffer (gemini-ls-test--proposal review "a.txt")
      (insert "typed by me\n"))
    (with-current-buffer review (gemini-ls-review-reject-all))
    (gemini-ls-test--save-everything)
    (should (equal (gemini-ls-test--file dir "a.txt") "hello world\n"))
    (should (equal (with-current-buffer buf (buffer-string)) "hello world\n"))
    (should-not (buffer-modified-p buf))
    (should-not (file-exists-p new))
    (should-not (find-buffer-visiting new))
    (should-not (file-exists-p (expand-file-name "notes" dir)))
    (should (equal (mapcar (lambda (r) (plist-get r :result)) (gemini-ls-test--responses notes))
                   '((:applied :json-false))))))

(ert-deftest gemini-ls-test-file-changed-during-review ()
  "A file edited during its review is not overwritten by accepting.
The review stays open and says why; rejecting it keeps the user's text."
  (gemini-ls-test--with-greeting-edit
    (gemini-ls-test--start buf "greet Emacs")
    (let ((review (gemini-ls-test--review)))
      (with-current-buffer buf (goto-char (point-max)) (insert "mine\n"))
      (with-current-buffer review
        (should (string-match-p "a\\.txt changed since Gemini proposed this"
                                (cadr (should-error (gemini-ls-review-accept-all)
                                                    :type 'user-error))))
        (should (buffer-live-p review))
        (gemini-ls-review-reject-all)))
    (gemini-ls-test--wait-done)
    (should (equal (with-current-buffer buf (buffer-string)) "hello world\nmine\n"))
    (should (equal (gemini-ls-test--file dir "a.txt") "hello world\n"))))

(ert-deftest gemini-ls-test-new-file-made-during-review ()
  "A new file made by someone else during its review is not overwritten.
Accepting is refused while it holds text; an empty buffer visiting it,
as \\[find-file] of the name gives, loses nothing, and accepting fills it."
  (gemini-ls-test--with-two-file-review review
    (make-directory (file-name-directory new))
    (with-temp-file new (insert "mine\n"))
    (with-current-buffer review
      (should (string-match-p "notes/new\\.py was made since Gemini proposed it"
                              (cadr (should-error (gemini-ls-review-accept-all)
                                                  :type 'user-error)))))
    (should (equal (gemini-ls-test--file dir "notes/new.py") "mine\n"))
    (should (equal (gemini-ls-test--file dir "a.txt") "hello world\n"))
    (delete-file new)
    (find-file-noselect new)
    (with-current-buffer review (gemini-ls-review-accept-all))
    (should (equal (gemini-ls-test--file dir "notes/new.py") "x = 1\n"))
    (should (equal (gemini-ls-test--file dir "a.txt") "hello Emacs\n"))))

(ert-deftest gemini-ls-test-unknown-request ()
  "A gemini/request for a method Emacs does not know is answered with an error."
  (gemini-ls-test--with-server [] '(("a.txt" . "x\n"))
    (let (notes)
      (gemini-ls-test--recording notes
        (eglot-handle-notification server 'gemini/request
                                   :id "x1" :method "foo/bar" :params nil))
      (let ((r (car (gemini-ls-test--responses notes))))
        (should (equal (plist-get r :id) "x1"))
        (should-not (plist-member r :result))
        (should (equal (plist-get (plist-get r :error) :code) -32601))
        (should (string-match-p "foo/bar" (plist-get (plist-get r :error) :message)))))
    (should-not gemini-ls--requests)))

(ert-deftest gemini-ls-test-annotated-request-refused ()
  "A change to review sent as a request is refused, not applied unseen."
  (gemini-ls-test--with-server [] '(("a.txt" . "one\n"))
    (let ((r (eglot-handle-request server 'workspace/applyEdit
                                   :edit (gemini-ls-test--annotated dir "a.txt" "ONE\n"))))
      (should (eq (plist-get r :applied) :json-false))
      (should (plist-get r :failureReason)))
    (should (equal (with-current-buffer buf (buffer-string)) "one\n"))
    (should-not (gemini-ls-test--review-buffers))))

(ert-deftest gemini-ls-test-plain-edit-applied ()
  "With approvalMode auto_edit a change is applied and saved without review.
As in Gemini CLI, a folder the user has not trusted runs in the default
mode whatever is asked, so the test trusts it."
  (let ((gemini-ls-initialization-options '(:approvalMode "auto_edit"))
        (process-environment (cons "GEMINI_CLI_TRUST_WORKSPACE=true" process-environment)))
    (gemini-ls-test--with-greeting-edit
      (let ((opened nil))
        (add-hook 'gemini-ls-review-mode-hook (lambda () (setq opened t)))
        (unwind-protect (gemini-ls-test--prompt buf "greet Emacs")
          (setq gemini-ls-review-mode-hook nil))
        (should-not opened))
      (should (equal (with-current-buffer buf (buffer-string)) "hello Emacs\n"))
      (should-not (buffer-modified-p buf))
      (should (equal (gemini-ls-test--file dir "a.txt") "hello Emacs\n"))
      (should (string-match-p "- Edit a.txt \\[ok\\]" (gemini-ls-test--chat))))))

(ert-deftest gemini-ls-test-shell-confirmed ()
  "Allowing a shell command once runs it in the project."
  (gemini-ls-test--with-server
      (vector '((chunks . [((call . ((name . "run_shell_command")
                                      (args . ((command . "touch marker"))))))]))
              '((text . "Ran it.")))
      '(("a.txt" . "x\n"))
    (let ((asked nil) (status nil) (notes nil))
      (gemini-ls-test--recording notes
        (cl-letf (((symbol-function 'read-multiple-choice)
                   (lambda (prompt choices &rest _)
                     (setq asked prompt
                           status (gemini-ls-test--status))
                     (assq ?y choices))))
          (gemini-ls-test--prompt buf "make a marker")))
      (should (string-match-p "touch marker" asked))
      ;; While the question is asked the mode line says so, not "reviewing".
      (should (string-match-p "Gemini:asking" status))
      (should-not (string-match-p "reviewing" status))
      (should (equal (plist-get (car (gemini-ls-test--responses notes)) :result)
                     '(:outcome "proceed_once")))
      (should (file-exists-p (expand-file-name "marker" dir)))
      (should (string-match-p "\\[ok\\]" (gemini-ls-test--chat))))))

(defun gemini-ls-test--header ()
  "The chat's header line on screen, without its key hints.
Evaluated here: `format-mode-line' gives \"\" in batch Emacs."
  (with-current-buffer (gemini-ls--chat-buffer)
    (should (equal header-line-format '(:eval (gemini-ls--header-line))))
    (substring-no-properties (gemini-ls--header-state))))

(defun gemini-ls-test--header-after-turn-p (state)
  "Whether the chat's header line is STATE then the session's cost, short.
The fake model's answers count their tokens roughly and none cached, in
a context window well under 1% full: the cost is the tokens alone, with
no \"0 cached\" and no \"context 0%\"."
  (string-match-p (concat "\\`" (regexp-quote state) " · [0-9.]+k? tokens\\'")
                  (gemini-ls-test--header)))

(ert-deftest gemini-ls-test-directory-cannot-configure-the-server ()
  "A repository's .dir-locals.el chooses neither the server nor its settings.
The options naming a program, where it comes from, or what the agent
may do are risky, the others safe (issue 62); a directory's
`eglot-workspace-configuration', which eglot takes as safe, is not sent
to gemini-ls, while the global one is."
  (dolist (v '(gemini-ls-server-command gemini-ls-install-dir gemini-ls-release-url
               gemini-ls-initialization-options gemini-ls-completion-trigger-commands))
    (should (risky-local-variable-p v))
    (should-not (safe-local-variable-p v (default-value v))))
  (dolist (v '(gemini-ls-auto-save gemini-ls-max-files gemini-ls-completion-enabled
               gemini-ls-completion-delay))
    (should (safe-local-variable-p v (default-value v)))
    (should-not (risky-local-variable-p v)))
  (should-not (safe-local-variable-p 'gemini-ls-max-files "all"))
  (gemini-ls-test--with-server [] '(("a.txt" . "x\n"))
    (let ((eglot-workspace-configuration '(:gemini (:model "mine"))))
      (with-current-buffer buf
        (setq-local eglot-workspace-configuration
                    '(:gemini (:tools (:discoveryCommand "touch pwned"))))
        (should (equal (eglot--workspace-configuration-plist server)
                       '(:gemini (:model "mine"))))))))

(ert-deftest gemini-ls-test-approval-mode-shown ()
  "The chat's header line names the session's approval mode as 0.61 does.
Nothing for the default, plan once the model's confirmed
enter_plan_mode switches it; the chat notes the switch.  The chat's
mode line says Gemini once: its mode, and no status beside it."
  (gemini-ls-test--with-server
      (vector '((chunks . [((call . ((name . "enter_plan_mode")
                                      (args . ((reason . "design first"))))))]))
              '((text . "Planning now.")))
      '(("a.txt" . "x\n"))
    (gemini-ls-test--wait (lambda () (equal (gemini-ls-test--header) "ready · gemini-test"))
                          "the header line to show the model")
    (with-current-buffer (gemini-ls--chat-buffer)
      (should (equal mode-name "Gemini"))
      (should (equal (gemini-ls--mode-line) "")))
    (let ((asked 0))
      (cl-letf (((symbol-function 'read-multiple-choice)
                 (lambda (_prompt choices &rest _)
                   (cl-incf asked)
                   (assq ?y choices))))
        (gemini-ls-test--prompt buf "plan it"))
      (should (= asked 1)))
    (should (equal (gemini-ls-approval-mode) "plan"))
    (should (gemini-ls-test--header-after-turn-p "ready · gemini-test · plan"))
    (should (equal (gemini-ls-test--status) "Gemini (gemini-test, plan) "))
    (should (string-match-p "^> mode: plan$" (gemini-ls-test--chat)))))

(ert-deftest gemini-ls-test-approval-mode-names ()
  "Approval modes read as in 0.61: its footer's words, its picker's names."
  (should-not (gemini-ls--mode-indicator "default"))
  (should (equal (gemini-ls--mode-indicator "auto_edit") "auto-accept edits"))
  (should (equal (gemini-ls--mode-indicator "plan") "plan"))
  (should (equal (gemini-ls--mode-indicator "yolo") "YOLO"))
  (let ((gemini-ls-initialization-options nil) offered)
    (when (get-buffer "*gemini*") (kill-buffer "*gemini*"))
    ;; Shown at once, numbered: read-multiple-choice, not completing-read.
    (cl-letf (((symbol-function 'completing-read)
               (lambda (&rest _) (error "The approval modes were hidden behind completing-read")))
              ((symbol-function 'read-multiple-choice)
               (lambda (_prompt choices &rest _)
                 (should (equal (mapcar #'car choices) '(?1 ?2 ?3 ?4)))
                 (setq offered (mapcar #'cadr choices))
                 (nth 1 choices))))
      (should (equal (gemini-ls--read-approval-mode) "auto_edit")))
    (should (equal offered '("Default (current) — Prompts for approval"
                             "Auto Edit — Auto-approves edit tools"
                             "Plan — Read-only mode"
                             "YOLO — Auto-approves all tools")))))

(ert-deftest gemini-ls-test-shell-rejected ()
  "Rejecting a shell command does not run it."
  (gemini-ls-test--with-server
      (vector '((chunks . [((call . ((name . "run_shell_command")
                                      (args . ((command . "touch marker"))))))]))
              '((text . "Not run.")))
      '(("a.txt" . "x\n"))
    (cl-letf (((symbol-function 'read-multiple-choice)
               (lambda (_prompt choices &rest _) (assq ?n choices))))
      (gemini-ls-test--prompt buf "make a marker"))
    (should-not (file-exists-p (expand-file-name "marker" dir)))
    (should (string-match-p "\\[rejected\\]" (gemini-ls-test--chat)))))

(ert-deftest gemini-ls-test-shell-quit ()
  "\\[keyboard-quit] at the question rejects the shell command."
  (gemini-ls-test--with-server
      (vector '((chunks . [((call . ((name . "run_shell_command")
                                      (args . ((command . "touch marker"))))))]))
              '((text . "Not run.")))
      '(("a.txt" . "x\n"))
    (let (notes)
      (gemini-ls-test--recording notes
        (cl-letf (((symbol-function 'read-multiple-choice)
                   (lambda (&rest _) (signal 'quit nil))))
          (gemini-ls-test--prompt buf "make a marker")))
      (should (equal (plist-get (car (gemini-ls-test--responses notes)) :result)
                     '(:outcome "cancel"))))
    (should-not (file-exists-p (expand-file-name "marker" dir)))
    (should (string-match-p "\\[rejected\\]" (gemini-ls-test--chat)))))

(ert-deftest gemini-ls-test-cancel-during-question ()
  "Cancelling the prompt takes its question off the screen, unanswered."
  (gemini-ls-test--with-server
      (vector '((chunks . [((call . ((name . "run_shell_command")
                                      (args . ((command . "touch marker"))))))]))
              '((text . "Not run.")))
      '(("a.txt" . "x\n"))
    (let ((asked nil) (outlived nil) (notes nil))
      (gemini-ls-test--recording notes
        (cl-letf (((symbol-function 'read-multiple-choice)
                   (lambda (_prompt choices &rest _)
                     (setq asked t)
                     (with-current-buffer buf (gemini-ls-cancel))
                     ;; The user does not answer; the withdrawal ends the wait.
                     (let ((deadline (+ (float-time) gemini-ls-test--timeout)))
                       (while (< (float-time) deadline)
                         (accept-process-output nil 0.05)))
                     (setq outlived t)
                     (assq ?y choices))))
          (gemini-ls-test--start buf "make a marker")
          (gemini-ls-test--wait-done)))
      (should asked)
      (should-not outlived)
      (should-not (gemini-ls-test--responses notes)))
    (should-not gemini-ls--asking)
    (should-not gemini-ls--requests)
    (should-not (file-exists-p (expand-file-name "marker" dir)))
    (should (string-match-p "\\[cancelled\\]" (gemini-ls-test--chat)))))

(defun gemini-ls-test--count-in-chat (regexp)
  "How many times REGEXP matches in the chat's transcript."
  (gemini-ls-test--count (gemini-ls-test--chat) regexp))

(ert-deftest gemini-ls-test-startup-problems-in-chat ()
  "Opening the chat starts its server, and its start-up problems show there.
Once each, where the user looks, saying what was ignored: a broken
settings.json (the whole file ignored), an MCP server that did not start
\(its tools unavailable), no credentials (and how to sign in); the
header line says there are no credentials, not \"ready\"."
  (let* ((home (make-temp-file "gemini-home" t))
         (dir (file-name-as-directory (make-temp-file "gemini-proj" t)))
         (system (expand-file-name "system-settings.json" home))
         (missing (expand-file-name "no-such-mcp-server" home))
         (process-environment
          (append (list (concat "HOME=" home) "GEMINI_API_KEY" "GOOGLE_API_KEY"
                        "GOOGLE_GENAI_USE_VERTEXAI" "GEMINI_MODEL=gemini-test"
                        "GEMINI_CLI_TRUST_WORKSPACE=true"
                        (concat "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" system))
                  process-environment))
         (project-find-functions (list (lambda (_) (cons 'transient dir))))
         (gemini-ls-server-command (getenv "GEMINI_LS_BIN"))
         (eglot-sync-connect t)
         ;; Only this test's server: the chat would follow another one.
         (gemini-ls--servers nil)
         (inhibit-message t))
    (make-directory (expand-file-name ".gemini" home))
    (with-temp-file (expand-file-name ".gemini/settings.json" home)
      (insert "{\"model\": {\"name\": \"gemini-test\",}\n"))
    (with-temp-file system
      (insert (format "{\"mcpServers\": {\"docs\": {\"command\": %S}}}" missing)))
    (when (get-buffer "*gemini*") (kill-buffer "*gemini*"))
    (unwind-protect
        (with-temp-buffer
          (setq default-directory dir)
          (gemini-ls-chat)
          (gemini-ls-test--wait
           (lambda () (and (string-match-p "MCP server docs" (gemini-ls-test--chat))
                           (string-match-p "No credentials" (gemini-ls-test--chat))))
           "the MCP server's failure and the credentials in the chat")
          (let ((chat (gemini-ls-test--chat)))
            (should (string-match-p
                     (concat "^> Warning: settings file " (regexp-quote (expand-file-name ".gemini/settings.json" home))
                             ":[0-9]+:[0-9]+: .*the file was ignored$")
                     chat))
            (should (string-match-p
                     (concat "^> Warning: MCP server docs failed to start; its tools are unavailable: .*"
                             (regexp-quote missing))
                     chat))
            (should (string-match-p "^> No credentials: GEMINI_API_KEY environment variable not found" chat))
            (should (string-match-p "^> In Emacs, M-x gemini-ls-login signs in with Google\\.$" chat)))
          (should (string-prefix-p "no credentials: M-x gemini-ls-login" (gemini-ls-test--header)))
          ;; Once: opening the chat again, and the server saying it again,
          ;; in the words the chat showed, tell nothing more.
          (gemini-ls-chat)
          (let ((chat (gemini-ls-test--chat)))
            (should (string-match "^> Warning: \\(MCP server docs failed to start.*\\)$" chat))
            (eglot-handle-notification (gemini-ls--chat-server) 'window/showMessage :type 2
                                       :message (concat "Gemini: " (match-string 1 chat))))
          (should (= 1 (gemini-ls-test--count-in-chat "settings file")))
          (should (= 1 (gemini-ls-test--count-in-chat "MCP server docs")))
          (should (= 1 (gemini-ls-test--count-in-chat "No credentials"))))
      (dolist (s gemini-ls--servers)
        (ignore-errors (let ((eglot-autoreconnect nil)) (eglot-shutdown s))))
      (kill-buffer "*gemini*")
      (delete-directory home t)
      (delete-directory dir t))))

(ert-deftest gemini-ls-test-chat-without-server ()
  "With no server installed, the chat says so and how to install one.
In the chat, when it opens, and in its header line, not \"ready\"."
  (let* ((gemini-ls-server-command nil)
         (gemini-ls-install-dir (make-temp-file "gemini-install" t))
         ;; A PATH without gemini-ls (nil would search default-directory).
         (exec-path (list gemini-ls-install-dir))
         (gemini-ls--servers nil)
         (proj (file-name-as-directory (make-temp-file "gemini-proj" t))))
    ;; A gemini-ls in the chat's directory (a clone's root after make
    ;; build) is not on exec-path: it is not run.
    (copy-file (getenv "GEMINI_LS_BIN") (expand-file-name "gemini-ls" proj))
    (when (get-buffer "*gemini*") (kill-buffer "*gemini*"))
    (unwind-protect
        (save-window-excursion
          (with-temp-buffer
            (setq default-directory proj)
            (let ((inhibit-message t)) (gemini-ls-chat)))
          (should (equal (gemini-ls-test--chat)
                         "> The gemini-ls server is not installed: M-x gemini-ls-install-server installs it (or put gemini-ls on PATH)\n"))
          (should (equal (gemini-ls-test--header) "no server: M-x gemini-ls-install-server")))
      (kill-buffer "*gemini*")
      (delete-directory proj t)
      (delete-directory gemini-ls-install-dir t))))

(ert-deftest gemini-ls-test-missing-key-warned-once ()
  "A prompt without credentials shows the server's error, warned once."
  (let ((gemini-ls-test--api-key nil)
        (warnings nil))
    (clrhash gemini-ls--warned)
    (gemini-ls-test--with-server [] '(("a.txt" . "x\n"))
      (cl-letf (((symbol-function 'display-warning)
                 (lambda (_type msg &rest _) (push msg warnings))))
        (gemini-ls-test--prompt buf "hello")
        (gemini-ls-test--prompt buf "hello again"))
      (should (= 1 (length warnings)))
      (should (string-match-p "GEMINI_API_KEY" (car warnings)))
      (should (string-match-p "^Gemini could not run the prompt: .*GEMINI_API_KEY"
                              (gemini-ls-test--chat)))
      ;; Said to a person: no line starts with a protocol method's name.
      (should-not (string-match-p "^gemini/" (gemini-ls-test--chat)))
      (should-not (string-match-p "gemini/" (car warnings))))))

(ert-deftest gemini-ls-test-sessions-and-context ()
  "The region goes as context; sessions are listed and can be continued."
  (gemini-ls-test--with-server
      [((text . "first")) ((text . "second"))]
      '(("a.txt" . "alpha\nbeta\n"))
    (let (sent)
      (with-current-buffer buf
        (transient-mark-mode 1)
        (goto-char (point-min)) (forward-line 1)
        (push-mark (point) t t) (end-of-line)
        (let ((orig (symbol-function 'jsonrpc-async-request)))
          (cl-letf (((symbol-function 'jsonrpc-async-request)
                     (lambda (conn method params &rest args)
                       (setq sent params)
                       (apply orig conn method params args))))
            (gemini-ls-prompt "what is this"))))
      (should (string-suffix-p "/a.txt" (plist-get (plist-get sent :context) :uri)))
      (should (equal (plist-get (plist-get sent :context) :range)
                     '(:start (:line 1 :character 0) :end (:line 1 :character 4)))))
    (gemini-ls-test--wait
     (lambda () (not (buffer-local-value 'gemini-ls--busy (get-buffer "*gemini*"))))
     "the first answer")
    (let ((first (buffer-local-value 'gemini-ls--session-id (get-buffer "*gemini*"))))
      (should first)
      (gemini-ls-new-session)
      (gemini-ls-test--prompt buf "another topic")
      (should-not (equal first (buffer-local-value 'gemini-ls--session-id
                                                   (get-buffer "*gemini*"))))
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (_prompt table &rest _)
                   (cl-find-if (lambda (c) (string-prefix-p "what is this" c))
                               (all-completions "" table)))))
        (with-current-buffer buf (gemini-ls-sessions)))
      (should (equal first (buffer-local-value 'gemini-ls--session-id
                                               (get-buffer "*gemini*")))))))

(defun gemini-ls-test--model-requests (file)
  "What reached the model, from fakegemini's record FILE, oldest first.
One list per request: the texts of its contents' parts."
  (with-temp-buffer
    (insert-file-contents file)
    (mapcar (lambda (line)
              (let* ((json-object-type 'plist)
                     (json-array-type 'list)
                     (request (json-read-from-string line)))
                (cl-loop for content in (plist-get (plist-get request :body) :contents)
                         append (cl-loop for part in (plist-get content :parts)
                                         when (plist-get part :text) collect it))))
            (split-string (buffer-string) "\n" t))))

;; A new server, as after Emacs restarted, lists the session an earlier one
;; saved, shows its conversation, and the next prompt continues it.
;; Emacs 30's eglot may trip over its own change tracker while shutting
;; down in batch (as the cleanup of every test does); the process must
;; end either way.
(defun gemini-ls-test--restart-server (server buf &optional new-chat)
  "Stop SERVER and connect BUF to a new gemini-ls process, as after a restart.
With NEW-CHAT, the chat buffer goes too, between the two.  Return the
new server."
  (let ((eglot-autoreconnect nil))
    (ignore-errors (eglot-shutdown server))
    (when (jsonrpc-running-p server) (jsonrpc-shutdown server t)))
  (when new-chat
    (kill-buffer "*gemini*"))
  (with-current-buffer buf
    (apply #'eglot (eglot--guess-contact))
    (eglot-current-server)))

(ert-deftest gemini-ls-test-session-resumed-after-restart ()
  "A session saved by an earlier gemini-ls is listed, shown and continued."
  (let ((gemini-ls-test--record (make-temp-file "gemini-requests" nil ".jsonl")))
    (gemini-ls-test--with-server
        [((text . "noted: 42"))
         ((error . ((code . 429) (status . "RESOURCE_EXHAUSTED")
                    (message . "slow down") (retryDelay . "100ms"))))
         ((text . "it was 42"))]
        '(("a.txt" . "alpha\n"))
      (gemini-ls-test--prompt buf "remember 42")
      (let ((first (buffer-local-value 'gemini-ls--session-id (get-buffer "*gemini*")))
            offered)
        (should first)
        ;; Restart: a new server process, a new chat.
        (setq server (gemini-ls-test--restart-server server buf t))
        (cl-letf (((symbol-function 'completing-read)
                   (lambda (_prompt table &rest _)
                     (setq offered (all-completions "" table))
                     (car offered))))
          (with-current-buffer buf (gemini-ls-sessions)))
        (should (equal offered '("remember 42  (1 prompt, just now, saved)")))
        (should (equal first (buffer-local-value 'gemini-ls--session-id
                                                 (get-buffer "*gemini*"))))
        (should (string-match-p
                 "\\*Continuing: remember 42\\*\n\n## You\n\nremember 42\n\n## Gemini\n\nnoted: 42\n"
                 (gemini-ls-test--chat)))
        ;; The follow-up goes to the same session, and the model sees it all.
        (gemini-ls-test--prompt buf "what was it?")
        (should (equal first (buffer-local-value 'gemini-ls--session-id
                                                 (get-buffer "*gemini*"))))
        (let ((last (car (last (gemini-ls-test--model-requests gemini-ls-test--record)))))
          (should (cl-find "remember 42" last :test #'equal))
          (should (cl-find "noted: 42" last :test #'equal))
          (should (equal "what was it?" (car (last last)))))
        (should (string-match-p "it was 42" (gemini-ls-test--chat)))
        (should (string-match-p
                 "> The model is rate-limited (429 RESOURCE_EXHAUSTED); retrying in 0.1 s (attempt 1)"
                 (gemini-ls-test--chat)))
        ;; An unknown session is an error shown plainly; the session stays.
        (gemini-ls-resume "NOSUCHSESSION" nil server)
        (should (string-match-p
                 "Could not continue the session: .*unknown session \"NOSUCHSESSION\""
                 (gemini-ls-test--chat)))
        (should (equal first (buffer-local-value 'gemini-ls--session-id
                                                 (get-buffer "*gemini*"))))))))

;; `gemini-ls-delete-session' deletes the session picked once the user
;; agrees (`gemini/deleteSession'): it leaves the list, also a new
;; server's; declining deletes nothing; the chat's own session deleted,
;; the chat starts a new one.
(ert-deftest gemini-ls-test-delete-session ()
  "A session picked is deleted only once confirmed, and is listed no more."
  (gemini-ls-test--with-server
      [((text . "noted: first")) ((text . "noted: second"))]
      '(("a.txt" . "alpha\n"))
    (gemini-ls-test--prompt buf "first topic")
    (gemini-ls-new-session)
    (gemini-ls-test--prompt buf "second topic")
    (let ((second (buffer-local-value 'gemini-ls--session-id (get-buffer "*gemini*")))
          asked read-prompt)
      (cl-labels ((listed ()
                    (mapcar #'gemini-ls--session-label (gemini-ls--list-sessions server)))
                  (restart ()
                    ;; A new server process, as after Emacs restarted; the
                    ;; chat stays.
                    (setq server (gemini-ls-test--restart-server server buf)))
                  (delete (pick answer)
                    (cl-letf (((symbol-function 'completing-read)
                               (lambda (prompt table &rest _)
                                 (setq read-prompt prompt)
                                 (cl-find-if (lambda (c) (string-prefix-p pick c))
                                             (all-completions "" table))))
                              ((symbol-function 'yes-or-no-p)
                               (lambda (question) (setq asked question) answer)))
                      (with-current-buffer buf (gemini-ls-delete-session)))))
        ;; Declined: nothing goes.
        (should-not (delete "first topic" nil))
        (should (equal read-prompt "Delete session: "))
        (should (equal asked "Delete the session “first topic”, its conversation and its saved file, for good? "))
        (should (equal (listed) '("second topic  (1 prompt, just now)"
                                  "first topic  (1 prompt, just now)")))
        ;; Confirmed, a session saved by an earlier server: it goes, also
        ;; from the next server's list; the chat keeps its session.
        (restart)
        (should (equal (listed) '("second topic  (1 prompt, just now, saved)"
                                  "first topic  (1 prompt, just now, saved)")))
        (should (delete "first topic" t))
        (should (equal (listed) '("second topic  (1 prompt, just now, saved)")))
        (should (equal second (gemini-ls--chat-value 'gemini-ls--session-id)))
        (should (string-match-p "noted: second" (gemini-ls-test--chat)))
        (restart)
        (should (equal (listed) '("second topic  (1 prompt, just now, saved)")))
        ;; The chat's own session: the chat starts a new one.
        (should (delete "second topic" t))
        (should-not (gemini-ls--chat-value 'gemini-ls--session-id))
        (should (equal "" (string-trim (gemini-ls-test--chat))))
        (should (equal (cdr (should-error (with-current-buffer buf (gemini-ls-delete-session))
                                          :type 'user-error))
                       '("No Gemini sessions yet")))
        ;; What the server refused is said plainly.
        (cl-letf (((symbol-function 'yes-or-no-p) (lambda (_) t)))
          (let ((err (should-error (gemini-ls--delete-session
                                    server '(:sessionId "NOSUCHSESSION" :title "gone"))
                                   :type 'user-error)))
            (should (string-match-p
                     "\\`Could not delete the session “gone”: .*unknown session \"NOSUCHSESSION\""
                     (cadr err)))))))))

(ert-deftest gemini-ls-test-tool-call-location ()
  "A call's file and line show under its row, a button that opens them.
Its kind is a tag after the status.  An edit's line is where its change
starts in the editor's text, unsaved lines included."
  (let ((gemini-ls-initialization-options '(:approvalMode "auto_edit"))
        (process-environment (cons "GEMINI_CLI_TRUST_WORKSPACE=true" process-environment)))
    (gemini-ls-test--with-server
        (vector '((chunks . [((call . ((name . "read_file")
                                       (args . ((file_path . "b.txt") (start_line . 3))))))]))
                '((chunks . [((call . ((name . "replace")
                                       (args . ((file_path . "a.txt") (old_string . "TODO")
                                                (new_string . "done"))))))]))
                '((text . "Read and fixed.")))
        '(("a.txt" . "a\nTODO\n") ("b.txt" . "one\ntwo\nthree\nfour\n"))
      ;; a.txt's TODO is on line 2 on disk and on line 4 in the editor,
      ;; unsaved: the edit's line is the editor's.
      (with-current-buffer buf
        (goto-char (point-min))
        (insert "# Notes\n\n")
        (eglot--signal-textDocument/didChange))
      (gemini-ls-test--prompt buf "read b, fix a")
      (let ((chat (gemini-ls-test--chat)))
        (should (string-match-p "^- ReadFile b\\.txt.* \\[ok\\] (read)\n  → b\\.txt:3\n" chat))
        (should (string-match-p "^- Edit a\\.txt \\[ok\\] (edit)\n  → a\\.txt:4\n" chat)))
      (dolist (at '(("b.txt" 3 "three") ("a.txt" 4 "done")))
        (with-current-buffer "*gemini*"
          (goto-char (point-min))
          (search-forward (format "→ %s:" (car at)))
          (goto-char (+ (match-beginning 0) 2))
          (let ((button (button-at (point))))
            (should button)
            (should (eq (button-type button) 'gemini-ls-location))
            (push-button (point))
            ;; The file, in the window the button chose, at the line.
            (should (equal (buffer-file-name) (expand-file-name (car at) dir)))
            (should (eq (window-buffer (selected-window)) (current-buffer)))
            (should (= (line-number-at-pos) (nth 1 at)))
            (should (looking-at (nth 2 at)))))))))

(ert-deftest gemini-ls-test-plan-in-place ()
  "The write_todos list is the chat's plan: one block, each in its place."
  (when (get-buffer "*gemini*") (kill-buffer "*gemini*"))
  (gemini-ls--insert-update "toolCall" '(:callId "c1" :name "write_todos" :title "Set 2 todo(s)" :toolKind "think"
                                         :todos [(:description "Read the code" :status "in_progress")
                                                 (:description "Fix it" :status "pending")]))
  (gemini-ls--insert-update "toolResult" '(:callId "c1" :name "write_todos" :status "ok" :display ""))
  (gemini-ls--insert-update "text" '(:text "Reading."))
  (gemini-ls--insert-update "toolCall" '(:callId "c2" :name "write_todos" :title "Set 2 todo(s)" :toolKind "think"
                                         :todos [(:description "Read the code" :status "completed")
                                                 (:description "Fix it" :status "in_progress")]))
  (should (equal (gemini-ls-test--chat)
                 (concat "- Set 2 todo(s) [ok] (think)\n"
                         "> Plan:\n"
                         "> ✓ Read the code\n"
                         "> ◐ Fix it\n"
                         "Reading.\n"
                         "- Set 2 todo(s) [running] (think)\n")))
  (gemini-ls--insert-update "toolCall" '(:callId "c3" :name "write_todos" :title "Clear" :toolKind "think" :todos []))
  (should (string-prefix-p (concat "- Set 2 todo(s) [ok] (think)\n"
                                   "> Plan: none (the to-do list was cleared)\n"
                                   "Reading.\n")
                           (gemini-ls-test--chat))))

(ert-deftest gemini-ls-test-topic-shown ()
  "A topic update shows the title, the summary of a new topic and the intent."
  (when (get-buffer "*gemini*") (kill-buffer "*gemini*"))
  (gemini-ls--insert-update "text" '(:text "Looking."))
  (gemini-ls--insert-update "topic" '(:title "Serving files" :newTopic t
                                       :text "Start a web server."
                                       :intent "Start the server."))
  (gemini-ls--insert-update "topic" '(:title "Serving files" :newTopic :json-false
                                       :text "Not new." :intent "Check it serves."))
  (should (equal (gemini-ls-test--chat)
                 (concat "Looking.\n"
                         "> Topic: Serving files\n"
                         "> Start a web server.\n"
                         "> Now: Start the server.\n"
                         "> Topic: Serving files\n"
                         "> Now: Check it serves.\n")))
  (with-current-buffer "*gemini*"
    (goto-char (point-min))
    (search-forward "> Topic:")
    (should (eq (get-char-property (match-beginning 0) 'face) 'gemini-ls-topic))))

(ert-deftest gemini-ls-test-commands-update-drops-the-list ()
  "A commands update (/commands reload) drops that server's cached commands.
Another server's list is kept."
  (let ((gemini-ls--commands-cache (cons 'server (cons (current-time) '((:name "old"))))))
    (gemini-ls--insert-update "commands" '(:sessionId "S1") 'other)
    (should gemini-ls--commands-cache)
    (gemini-ls--insert-update "commands" '(:sessionId "S1") 'server)
    (should-not gemini-ls--commands-cache)))

(ert-deftest gemini-ls-test-session-times-and-notes ()
  "When a session was used reads as people say it; notes and loops show."
  (let ((now (encode-time (iso8601-parse "2026-11-22T12:00:00Z"))))
    (should (equal "just now" (gemini-ls--ago "2026-11-22T11:59:55.123Z" now)))
    (should (equal "5 min ago" (gemini-ls--ago "2026-11-22T11:55:00Z" now)))
    (should (equal "3 h ago" (gemini-ls--ago "2026-11-22T10:00:00+01:00" now)))
    (should (equal "yesterday" (gemini-ls--ago "2026-11-21T06:00:00Z" now)))
    (should (equal "4 days ago" (gemini-ls--ago "2026-11-18T12:00:00Z" now)))
    (should (equal (format-time-string "%Y-%m-%d" (encode-time (iso8601-parse "2026-10-01T12:00:00Z")))
                   (gemini-ls--ago "2026-10-01T12:00:00Z" now))))
  (when (get-buffer "*gemini*") (kill-buffer "*gemini*"))
  (gemini-ls--insert-update "notice" '(:message "Switched to gemini-2.5-flash"))
  (gemini-ls--insert-update "compressed" '(:tokensBefore 9000 :tokensAfter 2000))
  (should (string-match-p "> Note: Switched to gemini-2.5-flash" (gemini-ls-test--chat)))
  (should (string-match-p "> Note: the conversation was compressed (9000 → 2000 tokens)"
                          (gemini-ls-test--chat)))
  (should (string-match-p "a loop was detected" (gemini-ls--stop-note "loop_detected")))
  ;; Each early end in words, none by its protocol name.
  (let ((case-fold-search nil))
    (dolist (r '("cancelled" "max_tokens" "max_turns" "loop_detected"))
      (should-not (string-match-p (regexp-quote r) (gemini-ls--stop-note r))))
    (should (equal (gemini-ls--stop-note "cancelled") "[Cancelled.]"))
    (should (equal (gemini-ls--stop-note "error") "[Stopped by an error.]"))))

(defmacro gemini-ls-test--picking (prefix &rest body)
  "Run BODY, the user picking the code action titled PREFIX and more.
Return the titles offered.  The last event is a key, not a mouse
click, so eglot asks with `completing-read', not a menu."
  (declare (indent 1))
  `(let ((offered nil)
         (last-nonmenu-event ?\r))
     (cl-letf (((symbol-function 'completing-read)
                (lambda (_prompt items &rest _)
                  (setq offered (mapcar #'car items))
                  (or (cl-find-if (lambda (title) (string-prefix-p ,prefix title))
                                  offered)
                      (ert-fail (format "no action %S among %S" ,prefix offered))))))
       ,@body)
     offered))

(ert-deftest gemini-ls-test-code-action-todo ()
  "A gemini.prompt code action runs without blocking Emacs.
`eglot-code-actions' returns while the model still works, and the
answer streams into the chat, as with `gemini-ls-prompt'."
  (gemini-ls-test--with-server
      [((chunks . [((text . "Making it 2. "))
                   ;; The answer's end comes well after eglot-code-actions
                   ;; has returned: it does not wait for the prompt.
                   ((text . "Done: x is 2 now.") (delay . "2s"))]))]
      '(("calc.py" . "x = 1  # TODO: make it 2\n"))
    (let ((offered
           (with-current-buffer buf
             (gemini-ls-test--picking "Gemini: implement the TODO"
               ;; What M-x eglot-code-actions does on the line.
               (eglot-code-actions (line-beginning-position) (line-end-position)
                                   nil t)))))
      (should (member "Gemini: explain the selected code (calc.py, line 1)" offered)))
    (should (get-buffer "*gemini*"))
    (should (gemini-ls-test--busy-p))
    (should-not (string-match-p "Done: x is 2" (gemini-ls-test--chat)))
    (should (string-match-p
             "## You\n\nImplement this TODO in calc.py: \"make it 2\""
             (gemini-ls-test--chat)))
    (gemini-ls-test--wait-done)
    (should (string-match-p "## Gemini\n\nMaking it 2\\. Done: x is 2 now\\."
                            (gemini-ls-test--chat)))))

(ert-deftest gemini-ls-test-code-action-fix-diagnostics ()
  "A fix-diagnostics code action sends its diagnostics, in the chat's session."
  (let ((gemini-ls-test--record (make-temp-file "gemini-record" nil ".jsonl")))
    (unwind-protect
        (gemini-ls-test--with-server
            [((text . "Hello.")) ((text . "Fixed."))]
            '(("calc.py" . "x = 1\nprint(y)\n"))
          (gemini-ls-test--prompt buf "hello")
          (let ((session (buffer-local-value 'gemini-ls--session-id
                                             (get-buffer "*gemini*")))
                (actions
                 ;; The request eglot-code-actions sends when the buffer
                 ;; shows this diagnostic of the server's.
                 (append
                  (with-current-buffer buf
                    (jsonrpc-request
                     server :textDocument/codeAction
                     (list :textDocument (eglot--TextDocumentIdentifier)
                           :range '(:start (:line 1 :character 0)
                                    :end (:line 1 :character 0))
                           :context
                           '(:diagnostics
                             [(:range (:start (:line 1 :character 6)
                                       :end (:line 1 :character 7))
                               :severity 1 :message "undefined name y"
                               :source "pyflakes")]))))
                  nil)))
            (should session)
            (should (equal (gemini-ls-test--picking "Gemini: fix"
                             ;; What eglot-code-actions runs once the
                             ;; user has picked.
                             (with-current-buffer buf
                               (eglot--read-execute-code-action actions server)))
                           '("Gemini: fix “undefined name y” (calc.py, line 2)")))
            (should (gemini-ls-test--busy-p))
            (gemini-ls-test--wait-done)
            (should (string-match-p "Fixed\\." (gemini-ls-test--chat)))
            (should (equal session (buffer-local-value 'gemini-ls--session-id
                                                       (get-buffer "*gemini*")))))
          (let ((second (nth 1 (gemini-ls-test--model-requests
                                gemini-ls-test--record))))
            ;; The session's history, then the prompt with its context.
            (should (member "hello" second))
            (should (cl-some (lambda (text)
                               ;; The editor context is JSON, as Gemini CLI's IDE context.
                               (string-match-p
                                (regexp-quote "\"line\": 2,\n          \"character\": 7,\n          \"severity\": \"error\",\n          \"message\": \"undefined name y\",\n          \"source\": \"pyflakes\"")
                                text))
                             second))
            (should (cl-some (lambda (text)
                               (string-prefix-p
                                "Fix the diagnostics the editor shows here in calc.py"
                                text))
                             second))))
      (delete-file gemini-ls-test--record))))

(ert-deftest gemini-ls-test-other-command-to-server ()
  "A command other than gemini.prompt goes to the server as eglot sends it."
  (gemini-ls-test--with-server [] '(("a.txt" . "x\n"))
    (let (result)
      (gemini-ls-test--picking "Cancel"
        (with-current-buffer buf
          (setq result (eglot--read-execute-code-action
                        ;; Fresh: Emacs 30's eglot edits the Command.
                        (list (list :title "Cancel" :command "gemini.cancel"
                                    :arguments (vector (list :sessionId "none"))))
                        server))))
      ;; The server's answer: no such session was running.
      (should (equal result '(:cancelled :json-false))))
    (should-not (get-buffer "*gemini*"))))

(ert-deftest gemini-ls-test-chat-window-follows ()
  "A chat window that opens shows the chat's end and follows the answer.
Its earlier text is longer than the window."
  (gemini-ls-test--with-server [((text . "Hello from the end."))] '(("a.txt" . "one\n"))
    (gemini-ls--with-chat
      (dotimes (i 200) (insert (format "earlier line %d\n" i))))
    (delete-other-windows)
    (switch-to-buffer buf)
    (gemini-ls-test--prompt buf "say hello")
    (let ((window (get-buffer-window "*gemini*")))
      (should window)
      (should (string-match-p "Hello from the end\\." (gemini-ls-test--chat)))
      (should (= (window-point window)
                 (with-current-buffer "*gemini*" (point-max)))))))

;;;; "/" commands in the prompt

(defun gemini-ls-test--last-request-text (file)
  "The text of the last user turn of the last request fakegemini recorded in FILE."
  (let* ((lines (split-string (gemini-ls-test--file "/" file) "\n" t))
         (request (json-parse-string (car (last lines)) :object-type 'alist))
         (contents (alist-get 'contents (alist-get 'body request))))
    (mapconcat (lambda (p) (or (alist-get 'text p) ""))
               (alist-get 'parts (aref contents (1- (length contents))))
               "\n")))

(ert-deftest gemini-ls-test-prompt-completes-commands ()
  "TAB after \"/\" in the prompt's minibuffer completes the user's commands.
They come from gemini/commands (custom commands in a HOME of the test's
own, in a trusted workspace), shown with their descriptions; the one
accepted is sent and the model gets what it expands to."
  (let* ((home (make-temp-file "gemini-home" t))
         (commands (expand-file-name ".gemini/commands" home))
         (gemini-ls-test--record (make-temp-file "gemini-requests" nil ".jsonl"))
         (process-environment (append (list (concat "HOME=" home)
                                            "GEMINI_CLI_TRUST_WORKSPACE=true")
                                      process-environment))
         (gemini-ls--commands-cache nil)
         (shown nil)
         ;; C-c s (the test's) keeps what *Completions* shows.
         (gemini-ls-prompt-minibuffer-map
          (let ((map (copy-keymap gemini-ls-prompt-minibuffer-map)))
            (define-key map (kbd "C-c s")
              (lambda () (interactive)
                (setq shown (with-current-buffer "*Completions*"
                              (buffer-substring-no-properties (point-min) (point-max))))))
            map)))
    (make-directory commands t)
    (with-temp-file (expand-file-name "review.toml" commands)
      (insert "description = \"Review a file for bugs\"\n"
              "prompt = \"Please review {{args}} line by line.\"\n"))
    (with-temp-file (expand-file-name "explain.toml" commands)
      (insert "description = \"Explain the code\"\nprompt = \"Explain {{args}}.\"\n"))
    (unwind-protect
        (gemini-ls-test--with-server [((text . "Reviewed."))] '(("a.txt" . "one\n"))
          (switch-to-buffer buf)
          (execute-kbd-macro
           (vconcat (kbd "M-x") "gemini-ls-prompt" (kbd "RET")
                    "/" (kbd "TAB") (kbd "C-c s")
                    "rev" (kbd "TAB") " a.txt" (kbd "RET")))
          (gemini-ls-test--wait
           (lambda () (not (buffer-local-value 'gemini-ls--busy (get-buffer "*gemini*"))))
           "the prompt's answer")
          (should shown)
          (should (string-match-p "/explain +Explain the code" shown))
          (should (string-match-p "/review +Review a file for bugs" shown))
          ;; Each on a line of its own: a long description is cut to the
          ;; window's width ("…"), not continued mid-word.
          (should (string-match-p "^/chat +Save, resume, .*…$" shown))
          (should (cl-every (lambda (line) (< (string-width line) (frame-width)))
                            (split-string shown "\n")))
          (should (string-match-p "## You\n\n/review a.txt\n" (gemini-ls-test--chat)))
          (should (string-match-p "Reviewed\\." (gemini-ls-test--chat)))
          ;; The editor context, then the expansion, not the "/review" typed.
          (let ((sent (gemini-ls-test--last-request-text gemini-ls-test--record)))
            (should (string-suffix-p "\nPlease review a.txt line by line." sent))
            (should-not (string-match-p "/review" sent))))
      (delete-directory home t)
      (delete-file gemini-ls-test--record))))

(ert-deftest gemini-ls-test-command-completion-only-at-start ()
  "\"/\" completes only as the prompt's first word."
  (let ((gemini-ls--commands-cache
         (list 'server (current-time) '(:name "review" :description "Review"))))
    (with-temp-buffer
      (let ((capf (gemini-ls--command-capf 'server)))
        (insert "/re")
        (should (equal (all-completions "/re" (nth 2 (funcall capf))) '("/review")))
        (erase-buffer)
        (insert "please /re")
        (should-not (funcall capf))
        (erase-buffer)
        (insert "re")
        (should-not (funcall capf))))))

(ert-deftest gemini-ls-test-help-lines-fit ()
  "The review's help lines fit the width and break only between items:
never inside \"R: reject all\"."
  (let* ((items '("Gemini proposes this change." "a/r: accept/reject hunk"
                  "A: accept all" "R: reject all" "q: done" "e: ediff"))
         (text (gemini-ls--help-lines items 40))
         (lines (split-string text "\n" t)))
    (should (> (length lines) 1))
    (dolist (l lines) (should (<= (string-width l) 40)))
    (dolist (item items) (should (string-match-p (regexp-quote item) text)))
    ;; Wide enough: one line, as before.
    (should (= 1 (length (split-string (gemini-ls--help-lines items 200) "\n" t))))))

(ert-deftest gemini-ls-test-merge ()
  "Merging keeps the original where hunks are rejected."
  (let* ((old "a\nb\nc\n")
         (hunks (gemini-ls--parse-hunks (gemini-ls--diff old "a\nB\nc\nd\n" "f"))))
    (should (equal (gemini-ls--merge old hunks) "a\nB\nc\nd\n"))
    (dolist (h hunks) (plist-put h :decision 'rejected))
    (should (equal (gemini-ls--merge old hunks) old))))

;;;; Questions (gemini/ask) and rewind

(defun gemini-ls-test--ask-turn (multi)
  "A model turn calling ask_user: which database, several allowed if MULTI."
  `((chunks . [((call . ((name . "ask_user")
                         (args . ((questions
                                   . [((header . "Database")
                                       (question . "Which database?")
                                       (type . "choice")
                                       (multiSelect . ,(if multi t :json-false))
                                       (options
                                        . [((label . "PostgreSQL") (description . "Relational."))
                                           ((label . "SQLite") (description . "One file."))
                                           ((label . "Redis") (description . ""))]))]))))))])))

(defun gemini-ls-test--tool-outputs (file)
  "The tool outputs the last request in fakegemini's record FILE answered."
  (with-temp-buffer
    (insert-file-contents file)
    (let* ((json-object-type 'plist)
           (json-array-type 'list)
           (last (json-read-from-string
                  (car (last (split-string (buffer-string) "\n" t)))))
           (contents (plist-get (plist-get last :body) :contents)))
      (cl-loop for part in (plist-get (car (last contents)) :parts)
               for response = (plist-get (plist-get part :functionResponse) :response)
               when response
               collect (or (plist-get response :output)
                           (format "error: %s" (plist-get response :error)))))))

(ert-deftest gemini-ls-test-ask-user-answered ()
  "The model's question is read with `completing-read'.
The pick, and with several allowed the picks and the user's words,
reach the model; the chat records the answer under the question."
  (let ((gemini-ls-test--record (make-temp-file "gemini-requests" nil ".jsonl")))
    (gemini-ls-test--with-server
        (vector (gemini-ls-test--ask-turn nil) '((text . "SQLite it is."))
                (gemini-ls-test--ask-turn t) '((text . "Both, then.")))
        '(("a.txt" . "x\n"))
      (should (eq t (plist-get (plist-get (plist-get (eglot-client-capabilities server)
                                                     :experimental)
                                          :gemini)
                               :ask)))
      (let (asked offered annotate)
        (cl-letf (((symbol-function 'completing-read)
                   (lambda (prompt table &rest _)
                     (setq asked prompt offered (all-completions "" table)
                           annotate (completion-metadata-get
                                     (completion-metadata "" table nil)
                                     'annotation-function))
                     "SQLite")))
          (gemini-ls-test--prompt buf "pick a database"))
        (should (equal asked "Database: Which database? "))
        (should (equal offered '("PostgreSQL" "SQLite" "Redis" "Decline")))
        (should (equal (mapcar annotate offered) '(" — Relational." " — One file." "" "")))
        (should (equal (gemini-ls-test--tool-outputs gemini-ls-test--record)
                       '("{\"answers\":{\"0\":\"SQLite\"}}")))
        ;; The chat shows the question once, on its call's line (its
        ;; kind after the status), and records the answer under it, as
        ;; Gemini CLI does.
        (should (string-match-p "^- Asking user: Which database\\? \\[ok\\] (communicate)\n  Database → SQLite\nSQLite it is\\."
                                (gemini-ls-test--chat)))
        (should (= 1 (gemini-ls-test--count (gemini-ls-test--chat) "Which database")))
        (cl-letf (((symbol-function 'completing-read-multiple)
                   (lambda (prompt &rest _)
                     (setq asked prompt)
                     '("PostgreSQL" "Redis" "and a cache"))))
          (gemini-ls-test--prompt buf "set up storage"))
        (should (equal asked "Database: Which database? (several, comma-separated) "))
        (should (equal (gemini-ls-test--tool-outputs gemini-ls-test--record)
                       '("{\"answers\":{\"0\":\"PostgreSQL, Redis, and a cache\"}}")))
        (should (string-match-p "\\[ok\\] (communicate)\n  Database → PostgreSQL, Redis, and a cache\nBoth, then\\."
                                (gemini-ls-test--chat)))))))

(defun gemini-ls-test--count (text regexp)
  "How many times REGEXP matches in TEXT."
  (with-temp-buffer (insert text) (how-many regexp (point-min) (point-max))))

;; The folder trust question comes as the model's questions do, one of
;; a few options and nothing else: read with read-multiple-choice, which
;; shows them.
(ert-deftest gemini-ls-test-trust-question ()
  "The folder trust question is asked once, in a folder nobody trusted.
In a HOME of the test's own, the first prompt asks it; \"Trust folder\"
is recorded as Gemini CLI records it, that prompt runs with the
project's GEMINI.md, and the next is not asked again."
  (let* ((home (make-temp-file "gemini-home" t))
         (gemini-ls-test--record (make-temp-file "gemini-requests" nil ".jsonl"))
         (process-environment (cons (concat "HOME=" home) process-environment)))
    (gemini-ls-test--with-server
        [((text . "Trusted.")) ((text . "Again."))]
        '(("a.txt" . "x\n") ("GEMINI.md" . "The project's secret word is kumquat.\n"))
      (let (asked offered)
        (cl-letf (((symbol-function 'read-multiple-choice)
                   (lambda (prompt choices &rest _)
                     (push prompt asked)
                     (setq offered (mapcar (lambda (c) (list (car c) (cadr c))) choices))
                     (assq ?1 choices))))
          (gemini-ls-test--prompt buf "hello")
          (gemini-ls-test--prompt buf "again"))
        (should (= 1 (length asked)))
        (should (string-prefix-p "Do you trust the files in this folder?: " (car asked)))
        (should (string-match-p (regexp-quote (directory-file-name dir)) (car asked)))
        (should (equal offered '((?1 "Trust folder") (?2 "Trust parent folder")
                                 (?3 "Don't trust") (?4 "Decline"))))
        (should (equal (gemini-ls-test--file home ".gemini/trustedFolders.json")
                       (format "{\n  \"%s\": \"TRUST_FOLDER\"\n}" (directory-file-name dir))))
        (should (string-match-p "kumquat" (car (split-string (gemini-ls-test--file "/" gemini-ls-test--record) "\n" t))))))))

(ert-deftest gemini-ls-test-trust-question-declined ()
  "Declining the trust question says how it differs from \"Don't trust\".
? at the question shows what each choice does: the server's words for
the options, and for Decline that it remembers nothing and the question
comes again.  Declined, nothing is recorded and the chat says the
question was not answered."
  (let* ((home (make-temp-file "gemini-home" t))
         (process-environment (cons (concat "HOME=" home) process-environment)))
    (gemini-ls-test--with-server [((text . "Untrusted for now."))] '(("a.txt" . "x\n"))
      (let (offered)
        (cl-letf (((symbol-function 'read-multiple-choice)
                   (lambda (_prompt choices &rest _)
                     (setq offered choices)
                     (assq ?4 choices))))
          (gemini-ls-test--prompt buf "hello"))
        (should (equal (assq ?4 offered)
                       '(?4 "Decline" "Answer nothing, remember nothing: the folder stays restricted for now, and you are asked again the next time gemini-ls starts")))
        (should (string-match-p "remembered, so you are not asked again" (nth 2 (assq ?3 offered))))
        (should-not (file-exists-p (expand-file-name ".gemini/trustedFolders.json" home)))
        (should (string-match-p "→ not answered: asked again when gemini-ls starts again\n"
                                (gemini-ls-test--chat)))
        (should (string-match-p "Untrusted for now\\." (gemini-ls-test--chat)))))))

(ert-deftest gemini-ls-test-ask-user-declined ()
  "Decline, or \\[keyboard-quit], at the model's question dismisses it."
  (let ((gemini-ls-test--record (make-temp-file "gemini-requests" nil ".jsonl")))
    (gemini-ls-test--with-server
        (vector (gemini-ls-test--ask-turn nil) '((text . "I will pick myself."))
                (gemini-ls-test--ask-turn nil) '((text . "Still mine to pick.")))
        '(("a.txt" . "x\n"))
      (let (asked)
        (cl-letf (((symbol-function 'completing-read)
                   (lambda (prompt &rest _) (setq asked prompt) "Decline")))
          (gemini-ls-test--prompt buf "pick a database"))
        ;; Asked by this package, not by eglot's window/showMessageRequest.
        (should (equal asked "Database: Which database? ")))
      (should (equal (gemini-ls-test--tool-outputs gemini-ls-test--record)
                     '("User dismissed ask_user dialog without answering.")))
      (should (string-match-p "\\[ok\\] (communicate)\n  Database → dismissed\n" (gemini-ls-test--chat)))
      (cl-letf (((symbol-function 'completing-read) (lambda (&rest _) (signal 'quit nil))))
        (gemini-ls-test--prompt buf "pick again"))
      (should (equal (gemini-ls-test--tool-outputs gemini-ls-test--record)
                     '("User dismissed ask_user dialog without answering.")))
      (should (string-match-p "Still mine to pick\\." (gemini-ls-test--chat))))))

(ert-deftest gemini-ls-test-ask-user-nothing-ticked ()
  "Nothing picked at a question of several options is an answer.
RET with nothing picked tells the model the user answered nothing, as
Gemini CLI's Done does; Decline there still declines."
  (let ((gemini-ls-test--record (make-temp-file "gemini-requests" nil ".jsonl")))
    (gemini-ls-test--with-server
        (vector (gemini-ls-test--ask-turn t) '((text . "Nothing, then."))
                (gemini-ls-test--ask-turn t) '((text . "I will pick myself.")))
        '(("a.txt" . "x\n"))
      (cl-letf (((symbol-function 'completing-read-multiple) (lambda (&rest _) nil)))
        (gemini-ls-test--prompt buf "set up storage"))
      (should (equal (gemini-ls-test--tool-outputs gemini-ls-test--record)
                     '("{\"answers\":{}}")))
      (should (string-match-p "\\[ok\\] (communicate)\n  Database → nothing\n" (gemini-ls-test--chat)))
      (cl-letf (((symbol-function 'completing-read-multiple)
                 (lambda (&rest _) (list gemini-ls--decline))))
        (gemini-ls-test--prompt buf "set up storage again"))
      (should (equal (gemini-ls-test--tool-outputs gemini-ls-test--record)
                     '("User dismissed ask_user dialog without answering."))))))

(ert-deftest gemini-ls-test-resume-takes-mode ()
  "A resumed session's approval mode is the one its server says.
The `gemini/resumeSession' result's, in the header line; a result
without one (an older server) leaves the configured mode, and takes no
usage."
  (let ((gemini-ls-initialization-options nil)
        (answer nil))
    (cl-letf (((symbol-function 'jsonrpc-request)
               (lambda (_server method params &rest _)
                 (should (eq method :gemini/resumeSession))
                 (should (equal params (list :sessionId (plist-get (plist-get answer :session) :sessionId))))
                 answer)))
      (unwind-protect
          (progn
            (setq answer '(:session (:sessionId "S-PLAN" :title "planning") :exchanges [] :mode "plan"))
            (gemini-ls-resume "S-PLAN" "planning" 'server)
            (should (equal (gemini-ls-approval-mode) "plan"))
            (should (string-suffix-p "· plan" (gemini-ls-test--header)))
            (setq answer '(:session (:sessionId "S-EDIT") :exchanges [] :mode "auto_edit"))
            (gemini-ls-resume "S-EDIT" nil 'server)
            (should (equal (gemini-ls-approval-mode) "auto_edit"))
            (setq answer '(:session (:sessionId "S-OLD") :exchanges []))
            (gemini-ls-resume "S-OLD" nil 'server)
            (should (equal (gemini-ls-approval-mode) "default"))
            ;; Nor does it say what the session cost: the chat knows none.
            (should-not (assoc "S-OLD" (gemini-ls--chat-value 'gemini-ls--usage))))
        (kill-buffer (gemini-ls--chat-buffer))))))

(ert-deftest gemini-ls-test-rewind-conflict-choices ()
  "A rewind's conflict offers revert anyway or keep my changes.
Never always allow; a tool call's confirmation has its three answers
where always allow would hold, else two."
  (let (offered pick)
    (cl-letf (((symbol-function 'read-multiple-choice)
               (lambda (_prompt choices &rest _)
                 (setq offered (mapcar #'cadr choices))
                 (assq pick choices))))
      (setq pick ?r)
      (should (equal (gemini-ls--confirm-outcome
                      '(:kind "rewind" :title "Revert a.txt anyway?" :details "a.txt was changed"))
                     "proceed_once"))
      (should (equal offered '("revert anyway" "keep my changes")))
      (setq pick ?k)
      (should (equal (gemini-ls--confirm-outcome '(:kind "rewind" :title "Revert a.txt anyway?"))
                     "cancel"))
      (setq pick ?a)
      (should (equal (gemini-ls--confirm-outcome '(:kind "execute" :title "Allow?" :canAllowAlways t))
                     "proceed_always"))
      (should (equal offered '("allow once" "always allow" "reject")))
      ;; The line's prefix, where the server offers it, before reject.
      (setq pick ?p)
      (should (equal (gemini-ls--confirm-outcome
                      '(:kind "execute" :title "Allow?" :canAllowAlways t
                              :alwaysPrefixes ["go test" "go vet"]))
                     "proceed_always_prefix"))
      (should (equal offered '("allow once" "always allow" "always allow go test …, go vet …" "reject")))
      ;; A command "always" cannot cover is offered no "always allow".
      (setq pick ?y)
      (should (equal (gemini-ls--confirm-outcome '(:kind "execute" :title "Allow?" :canAllowAlways :json-false))
                     "proceed_once"))
      (should (equal offered '("allow once" "reject"))))))

(ert-deftest gemini-ls-test-rewind-both ()
  "Rewinding conversation and code restores files and conversation.
To before the second of three prompts that edited two files: both are
restored once the revert, one review of both, is accepted; the chat
shows the session as it now is and the model no longer sees the
rewound prompts."
  (let ((gemini-ls-test--record (make-temp-file "gemini-requests" nil ".jsonl"))
        (edit (lambda (file old new)
                `((chunks . [((call . ((name . "replace")
                                       (args . ((file_path . ,file)
                                                (old_string . ,old)
                                                (new_string . ,new))))))])))))
    (gemini-ls-test--with-server
        (vector (funcall edit "a.txt" "one" "ONE") '((text . "Changed one."))
                (funcall edit "a.txt" "two" "TWO") '((text . "Changed two."))
                (funcall edit "b.txt" "x" "X") '((text . "Changed x."))
                '((text . "Starting over.")))
        '(("a.txt" . "one\ntwo\n") ("b.txt" . "x\n"))
      (dolist (p '("change one" "change two" "change x"))
        (gemini-ls-test--start buf p)
        (with-current-buffer (gemini-ls-test--review) (gemini-ls-review-accept-all))
        (gemini-ls-test--wait-done))
      (should (equal (gemini-ls-test--file dir "a.txt") "ONE\nTWO\n"))
      (should (equal (gemini-ls-test--file dir "b.txt") "X\n"))
      (let (offered modes)
        (cl-letf (((symbol-function 'completing-read)
                   (lambda (prompt table &rest _)
                     (should (equal prompt "Rewind to before: "))
                     (setq offered (all-completions "" table))
                     (nth 1 offered)))
                  ;; What to rewind, three choices, shown at once.
                  ((symbol-function 'read-multiple-choice)
                   (lambda (prompt choices &rest _)
                     (should (equal prompt "Rewind what: "))
                     (setq modes (mapcar #'cadr choices))
                     (car choices))))
          (let ((default-directory dir))
            (with-current-buffer buf (gemini-ls-rewind))))
        (should (equal offered '("1. change one  [a.txt]" "2. change two  [a.txt]"
                                 "3. change x  [b.txt]")))
        (should (equal modes '("Conversation and code" "Conversation only" "Code only"))))
      (with-current-buffer (gemini-ls-test--review)
        (should (string-match-p "^-TWO$" (buffer-string)))
        (should (string-match-p "^\\+two$" (buffer-string)))
        (should (string-match-p "^-X$" (buffer-string)))
        (should (string-match-p "^\\+x$" (buffer-string)))
        (gemini-ls-review-accept-all))
      (gemini-ls-test--wait (lambda () (string-match-p "reverted" (gemini-ls-test--chat)))
                            "the rewind's report")
      (should (equal (gemini-ls-test--file dir "a.txt") "ONE\ntwo\n"))
      (should (equal (gemini-ls-test--file dir "b.txt") "x\n"))
      (should (string-match-p "\\`\\*Rewound to before prompt 2\\*\n\n## You\n\nchange one\n"
                              (gemini-ls-test--chat)))
      (should-not (string-match-p "change two" (gemini-ls-test--chat)))
      (gemini-ls-test--prompt buf "start over")
      (let ((last (car (last (gemini-ls-test--model-requests gemini-ls-test--record)))))
        (should (equal "start over" (car (last last))))
        (should (cl-find "change one" last :test #'equal))
        (should-not (cl-find "change two" last :test #'equal))
        (should-not (cl-find "change x" last :test #'equal))))))

(provide 'gemini-ls-test)
;;; gemini-ls-test.el ends here

(ert-deftest gemini-ls-test-login ()
  "`gemini-ls-login' signs in through the real server.
It sends gemini/login, and the server has Google's page (PKCE, a
loopback redirect) opened in the browser and waits; a redirect with a
forged state fails the sign-in, and the user is told."
  (let ((gemini-ls-test--api-key nil)
        (opened nil)
        (messages nil))
    (gemini-ls-test--with-server [] '(("a.txt" . "x\n"))
      (cl-letf* ((gemini-ls-browse-url-function (lambda (url) (setq opened url)))
                 (real-message (symbol-function 'message))
                 ((symbol-function 'message)
                  (lambda (fmt &rest args)
                    (when fmt (push (apply #'format fmt args) messages))
                    (apply real-message fmt args))))
        (with-current-buffer buf (gemini-ls-login))
        (gemini-ls-test--wait (lambda () opened) "the sign-in page")
        (should (string-prefix-p "https://accounts.google.com/" opened))
        (should (string-match-p "code_challenge_method=S256" opened))
        (should (string-match "redirect_uri=\\([^&]+\\)" opened))
        (let ((redirect (url-unhex-string (match-string 1 opened))))
          (should (string-match-p "\\`http://127\\.0\\.0\\.1:[0-9]+/oauth2callback\\'" redirect))
          (gemini-ls-test--browse (concat redirect "?code=stolen&state=forged")))
        (gemini-ls-test--wait
         (lambda () (seq-some (lambda (m) (string-match-p "OAuth state mismatch" m)) messages))
         "the sign-in's failure")))))

(defun gemini-ls-test--browse (url)
  "Follow URL, a redirect, as the browser would.
A GET on loopback over a raw network stream, so the test needs no HTTP
client installed."
  (should (string-match "\\`http://\\([0-9.]+\\):\\([0-9]+\\)\\(/.*\\)\\'" url))
  (let* ((host (match-string 1 url))
         (port (string-to-number (match-string 2 url)))
         (path (match-string 3 url))
         (proc (open-network-stream "gemini-ls-test-browse" nil host port)))
    (process-send-string proc (format "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" path host))
    (gemini-ls-test--wait (lambda () (not (process-live-p proc))) "the redirect's answer")))

(ert-deftest gemini-ls-test-login-message ()
  "The user is told who signed in, and when another auth type stays in use."
  (should (equal (gemini-ls--login-message
                  '(:email "ada@example.com" :auth (:type "oauth-personal" :usable t)))
                 "Signed in with Google as ada@example.com."))
  (should (string-match-p
           "uses gemini-api-key (from settings); set security.auth.selectedType to \"oauth-personal\""
           (gemini-ls--login-message
            '(:email "" :auth (:type "gemini-api-key" :source "settings" :usable t))))))

(defun gemini-ls-test--request-models (file)
  "The model each request recorded in fakegemini's FILE went to, oldest first."
  (with-temp-buffer
    (insert-file-contents file)
    (mapcar (lambda (line)
              (let ((json-object-type 'plist))
                (plist-get (json-read-from-string line) :model)))
            (split-string (buffer-string) "\n" t))))

(ert-deftest gemini-ls-test-model ()
  "The mode line shows the model gemini-ls reports, from the start;
`gemini-ls-model' offers its list (Gemini CLI 0.61's) and sets the one
picked with /model set, which the next prompt goes to."
  (let ((gemini-ls-test--record (make-temp-file "gemini-requests" nil ".jsonl")))
    (gemini-ls-test--with-server
        [((text . "Answered by flash."))]
        '(("a.txt" . "x\n"))
      ;; The harness names gemini-test (GEMINI_MODEL).
      (gemini-ls-test--wait (lambda () (string-match-p "^Gemini (gemini-test) $" (gemini-ls-test--status)))
                            "the model in the mode line")
      (let (offered)
        (cl-letf (((symbol-function 'completing-read)
                   (lambda (_prompt table &rest _)
                     (setq offered (all-completions "" table))
                     (cl-find-if (lambda (c) (string-prefix-p "gemini-3.8-flash" c)) offered))))
          (with-current-buffer buf (gemini-ls-model)))
        (should (= (length offered) 6))
        (should (string-prefix-p "Auto — Picks the model for each prompt" (car offered)))
        (should (equal (nth 1 offered) "gemini-3.1-pro-preview")))
      (gemini-ls-test--wait
       (lambda () (not (buffer-local-value 'gemini-ls--busy (get-buffer "*gemini*"))))
       "/model set to end")
      (should (string-match-p "Model set to gemini-3.8-flash" (gemini-ls-test--chat)))
      (should (equal (gemini-ls-test--status) "Gemini (gemini-3.8-flash) "))
      (gemini-ls-test--prompt buf "hi")
      (should (equal (gemini-ls-test--request-models gemini-ls-test--record) '("gemini-3.8-flash"))))))

(ert-deftest gemini-ls-test-model-label ()
  "Where an alias was routed, the mode line names the model that answered."
  (should (equal (gemini-ls--model-label '(:current "auto" :name "Auto")) "Auto"))
  (should (equal (gemini-ls--model-label '(:current "auto" :name "Auto" :answered "gemini-3.8-flash"))
                 "Auto → gemini-3.8-flash"))
  (should (equal (gemini-ls--model-label '(:current "gemini-2.5-pro" :name "gemini-2.5-pro"
                                           :answered "gemini-2.5-pro"))
                 "gemini-2.5-pro"))
  (should-not (gemini-ls--model-label nil)))

(ert-deftest gemini-ls-test-header-shows-usage ()
  "The chat's header line says what the session has cost.
Its tokens, those the model's context cache served, and how full the
model's context window was at the last request: the answer's 52,000
prompt tokens are 5% of gemini-test's 1,048,576."
  (gemini-ls-test--with-server
      [((text . "Counted.")
        (usage . ((promptTokenCount . 52000) (cachedContentTokenCount . 40000)
                  (candidatesTokenCount . 12) (totalTokenCount . 52012))))]
      '(("a.txt" . "one\n"))
    (with-current-buffer (gemini-ls--chat-buffer)
      (should-not (string-match-p "tokens" (gemini-ls--header-line 200))))
    (gemini-ls-test--prompt buf "count")
    (with-current-buffer "*gemini*"
      ;; The header line's % doubled, as a mode line construct needs.
      (should (string-match-p "gemini-test · 52k tokens, 40k cached · context 5%% "
                              (gemini-ls--header-line 200))))))

(ert-deftest gemini-ls-test-resumed-session-shows-usage ()
  "A resumed session's header line shows what it has cost, at once.
From the `gemini/resumeSession' result's usage, which the server saved
with the session: resumed in a new chat by a new server process, before
any answer there, as the header line showed it after the last answer."
  (gemini-ls-test--with-server
      [((text . "Counted.")
        (usage . ((promptTokenCount . 52000) (cachedContentTokenCount . 40000)
                  (candidatesTokenCount . 12) (totalTokenCount . 52012))))]
      '(("a.txt" . "one\n"))
    (gemini-ls-test--prompt buf "count")
    (let ((id (gemini-ls--chat-value 'gemini-ls--session-id)))
      (should id)
      ;; Restart: a new server process, a new chat that has seen no
      ;; usage update.
      (setq server (gemini-ls-test--restart-server server buf t))
      (gemini-ls-resume id "count" server)
      (should (equal id (gemini-ls--chat-value 'gemini-ls--session-id)))
      ;; The cost alone: the model's name comes with the new server's
      ;; gemini/models answer, which may come after the resume's.
      (with-current-buffer "*gemini*"
        (should (string-match-p " · 52k tokens, 40k cached · context 5%% "
                                (gemini-ls--header-line 200)))))))

(ert-deftest gemini-ls-test-rewind-forgets-context-fill ()
  "After a rewind of the conversation the header line shows no context fill.
The window's fill went with the prompts cut; the tokens spent stay.  As
the `gemini/resumeSession' that reloads the chat says, not as the last
answer's usage update said."
  (gemini-ls-test--with-server
      (let ((answer '((text . "Counted.")
                      (usage . ((promptTokenCount . 52000) (cachedContentTokenCount . 40000)
                                (candidatesTokenCount . 12) (totalTokenCount . 52012))))))
        (vector answer answer))
      '(("a.txt" . "one\n"))
    (gemini-ls-test--prompt buf "count")
    (gemini-ls-test--prompt buf "count again")
    (with-current-buffer "*gemini*"
      (should (string-match-p "gemini-test · 104k tokens, 80k cached · context 5%% "
                              (gemini-ls--header-line 200))))
    (cl-letf (((symbol-function 'completing-read)
               (lambda (_prompt table &rest _) (nth 1 (all-completions "" table))))
              ((symbol-function 'read-multiple-choice)
               (lambda (_prompt choices &rest _) (assq ?2 choices))))
      (let ((default-directory dir))
        (with-current-buffer buf (gemini-ls-rewind))))
    (gemini-ls-test--wait (lambda () (string-match-p "\\`\\*Rewound to before prompt 2\\*"
                                                     (gemini-ls-test--chat)))
                          "the chat reloaded after the rewind")
    (with-current-buffer "*gemini*"
      (should (string-match-p "gemini-test · 104k tokens, 80k cached +"
                              (gemini-ls--header-line 200)))
      (should-not (string-match-p "context" (gemini-ls--header-line 200))))))

(ert-deftest gemini-ls-test-usage-indicator-short ()
  "The header line's cost says what is worth saying, and only its session's.
The cached tokens once the cache served some, the context once it is 1%
full; a new session's chat, before its first update, shows no cost of
the session before."
  (with-temp-buffer
    (setq gemini-ls--usage
          '(("s2" :total 397 :cached 0 :used 397 :size 1048576)
            ("s1" :total 52012 :cached 40000 :used 52000 :size 1048576)))
    (should (equal (gemini-ls--usage-indicator "s2") "397 tokens"))
    (should (equal (gemini-ls--usage-indicator "s1") "52k tokens, 40k cached · context 5%"))
    (should-not (gemini-ls--usage-indicator nil))
    (should-not (gemini-ls--usage-indicator "s3"))
    (setq gemini-ls--usage '(("s4" :total 900 :cached 0 :used 900 :size 0)))
    (should (equal (gemini-ls--usage-indicator "s4") "900 tokens"))))

(ert-deftest gemini-ls-test-short-count ()
  "Token counts read as people read them."
  (should (equal (gemini-ls--short-count 950) "950"))
  (should (equal (gemini-ls--short-count 12345) "12.3k"))
  (should (equal (gemini-ls--short-count 1048576) "1.05M"))
  (should (equal (gemini-ls--short-count 2000000) "2M")))

(ert-deftest gemini-ls-test-subagent-indented ()
  "A subagent's updates are indented under its invoke_agent call's line.
Its calls' status is updated in place, its report comes at the end;
the main agent's lines stay in order after it, and the mode line keeps
the main agent's model."
  (when (get-buffer "*gemini*") (kill-buffer "*gemini*"))
  (gemini-ls-test--with-server [] '(("a.txt" . "one\n"))
  (let ((sub '(:parentCallId "call_1" :agentName "codebase_investigator"))
        (warnings nil))
    (cl-letf (((symbol-function 'display-warning)
               (lambda (_type msg &rest _) (push msg warnings))))
      (dolist (u `(("text" :text "Let me delegate.")
                   ("toolCall" :callId "call_1" :name "invoke_agent"
                    :title "Delegate to codebase_investigator")
                   ("toolCall" :callId "call_2" :name "read_file" :title "ReadFile a.go")
                   ("thought" ,@sub :subject "Looking" :description "around")
                   ("toolCall" ,@sub :callId "call_1" :name "grep_search"
                    :title "SearchText 'parse'")
                   ("text" ,@sub :text "Found it")
                   ("text" ,@sub :text "\nin a.go.\n")
                   ("usage" ,@sub :model "gemini-2.5-flash-lite" :totalTokens 5)
                   ("toolResult" ,@sub :callId "call_1" :name "grep_search" :status "ok")
                   ("error" ,@sub :message "the subagent ran out of turns")
                   ("toolResult" :callId "call_2" :name "read_file" :status "ok")
                   ("toolResult" :callId "call_1" :name "invoke_agent" :status "ok"
                    :display "The parser is in a.go.")
                   ("text" :text "Done.")))
        (apply #'eglot-handle-notification server 'gemini/update
               :sessionId "S" :kind (car u) (cdr u))))
    (should (equal (concat "Let me delegate.\n"
                           "- Delegate to codebase_investigator [ok]\n"
                           "  codebase_investigator:\n"
                           "    > thought: Looking\n"
                           "    - SearchText 'parse' [ok]\n"
                           "    Found it\n"
                           "    in a.go.\n"
                           "    Error: the subagent ran out of turns\n"
                           "    Report: The parser is in a.go.\n"
                           "- ReadFile a.go [ok]\n"
                           "Done.")
                   (gemini-ls-test--chat)))
    (should-not warnings)
    (should-not (plist-get (gemini-ls--server-model server) :answered)))))

;;;; Completion as you type

(defun gemini-ls-test--completion-script (&rest rules)
  "A fake model script of RULES alone.
Each rule is (CONTAINS TEXT [DELAY]): a completion prompt holding
CONTAINS is answered TEXT, after DELAY."
  `((turns . [])
    (rules . ,(vconcat
               (mapcar (lambda (r)
                         `((contains . ,(nth 0 r))
                           (turn . ((text . ,(nth 1 r))
                                    ,@(and (nth 2 r) `((delay . ,(nth 2 r))))))))
                       rules)))))

(defconst gemini-ls-test--total "def total(xs):\n    return\n"
  "The Python file the completion tests type in.")

(defun gemini-ls-test--at-return (buf)
  "Show BUF in the selected window, point after \"return\"."
  (switch-to-buffer buf)
  (delete-other-windows)
  (goto-char (point-min))
  (search-forward "return"))

(defun gemini-ls-test--type (key)
  "Type KEY in the selected window's buffer, as in the command loop.
KEY is in `kbd' syntax, one command's keys: the command the keymaps
bind it to (`key-binding'), between `pre-command-hook' and
`post-command-hook'.
Not `execute-kbd-macro', whose command loop runs `post-command-hook'
once more on entry, for a command that was never typed."
  (let* ((keys (vconcat (kbd key)))
         (command (key-binding keys t)))
    (should (commandp command))
    (setq last-command-event (aref keys (1- (length keys)))
          this-command command
          real-this-command command)
    (run-hooks 'pre-command-hook)
    (command-execute command nil keys)
    (run-hooks 'post-command-hook)
    (setq last-command this-command)))

(defun gemini-ls-test--idle (buf)
  "Fire BUF's debounce timer, which typing must have set: Emacs is idle.
Batch Emacs is never idle by itself; tmux-completion.sh types in a
real one."
  (let ((timer (buffer-local-value 'gemini-ls--completion-timer buf)))
    (should (timerp timer))
    (should (memq timer timer-idle-list))
    (timer-event-handler timer)))

(defun gemini-ls-test--ghost (buf)
  "Wait for a suggestion in BUF; return its text on screen."
  (gemini-ls-test--wait (lambda () (buffer-local-value 'gemini-ls--completion-ghost buf))
                        "the suggestion to show")
  (let* ((ghost (buffer-local-value 'gemini-ls--completion-ghost buf))
         (ov (gemini-ls--ghost-overlay ghost))
         (shown (overlay-get ov 'after-string)))
    (with-current-buffer buf
      ;; At point, in the ghost face, the cursor on its first character.
      (should (= (overlay-start ov) (point)))
      (should (= (overlay-end ov) (point))))
    (should (eq (get-text-property 0 'face shown) 'gemini-ls-completion-ghost))
    (should (get-text-property 0 'cursor shown))
    (substring-no-properties shown)))

(defun gemini-ls-test--answered (req)
  "Wait for the server's answer to REQ, a `gemini-ls--completion-req'; return it."
  (should req)
  (gemini-ls-test--wait (lambda () (gemini-ls--completion-req-outcome req))
                        "the completion's answer")
  (gemini-ls--completion-req-outcome req))

(defmacro gemini-ls-test--recording-requests (var &rest body)
  "Run BODY, pushing every async request Emacs sends on VAR.
Each as a list (METHOD PARAMS ANSWER), ANSWER set to (:result R) or
\(:error E) once the server answers."
  (declare (indent 1))
  `(let ((orig (symbol-function 'jsonrpc-async-request)))
     (cl-letf (((symbol-function 'jsonrpc-async-request)
                (lambda (conn method params &rest args)
                  (let ((entry (list method params nil))
                        (success (plist-get args :success-fn))
                        (failure (plist-get args :error-fn)))
                    (push entry ,var)
                    (apply orig conn method params
                           :success-fn (lambda (r)
                                         (setf (nth 2 entry) (list :result r))
                                         (when success (funcall success r)))
                           :error-fn (lambda (e)
                                       (setf (nth 2 entry) (list :error e))
                                       (when failure (funcall failure e)))
                           args)))))
       ,@body)))

(defun gemini-ls-test--sent (method log)
  "The entries of LOG, oldest first, whose method is METHOD."
  (reverse (cl-remove-if-not (lambda (e) (eq (car e) method)) log)))

(defun gemini-ls-test--diagnose (report-fn &rest _)
  "A Flymake backend: an error on the first line, reported to REPORT-FN."
  (funcall report-fn
           (list (flymake-make-diagnostic (current-buffer) 5 10 :error
                                          "name 'xs' is never used"))))

;; A rename's next use, far below point: shown where it goes, TAB
;; jumps there, TAB applies it.
(ert-deftest gemini-ls-test-next-edit ()
  "`gemini-ls-next-edit' shows the edit the model foresees out of view.
Struck through with the new text after it; TAB jumps to it, TAB
applies it and runs the accept command."
  (let ((text (concat "def report(items):\n    count = len(items)\n"
                      (mapconcat (lambda (i) (format "    # step %d\n" i)) (number-sequence 1 80) "")
                      "    return count\n")))
    (gemini-ls-test--with-server
        (gemini-ls-test--completion-script
         '("-count\n+total\n" "<|search|>\n    return count\n<|replace|>\n    return total\n<|end|>\n"))
        `(("report.py" . ,text))
      (let (requests)
        (gemini-ls-test--recording-requests requests
          (switch-to-buffer buf)
          (delete-other-windows)
          (goto-char (point-min))
          (search-forward "count")
          (replace-match "total")
          (gemini-ls-next-edit)
          (gemini-ls-test--wait (lambda () (buffer-local-value 'gemini-ls--next-edit buf))
                                "the next edit")
          (let ((ov (car (plist-get gemini-ls--next-edit :overlays))))
            (should (equal (buffer-substring-no-properties (overlay-start ov) (overlay-end ov)) "count"))
            (should (eq (overlay-get ov 'face) 'gemini-ls-next-edit-old))
            (should (equal (substring-no-properties (overlay-get ov 'after-string)) "total"))
            (should (= (line-number-at-pos (overlay-start ov)) 83)))
          (should (= (line-number-at-pos) 2))
          (gemini-ls-test--type "TAB")
          (should (= (line-number-at-pos) 83))
          (should (string-match-p "return count" (buffer-string)))
          (gemini-ls-test--type "TAB")
          (should-not (string-match-p "count" (buffer-string)))
          (should-not gemini-ls--next-edit)
          (should (gemini-ls-test--sent :workspace/executeCommand requests)))))))

(ert-deftest gemini-ls-test-completion-accepted ()
  "Typing asks for a suggestion, shown as ghost text at point.
With triggerKind 2, the diagnostics near point along; TAB inserts it
and runs the accept command.  TAB keeps its usual meaning without one."
  (let ((gemini-ls-test--record (make-temp-file "gemini-record" nil ".jsonl")))
    (unwind-protect
        (gemini-ls-test--with-server
            (gemini-ls-test--completion-script '("    return <|cursor|>" "sum(xs)"))
            `(("total.py" . ,gemini-ls-test--total))
          (let (notes requests)
            (with-current-buffer buf
              (should gemini-ls-completion-mode)
              (add-hook 'flymake-diagnostic-functions #'gemini-ls-test--diagnose nil t)
              (flymake-start)
              (gemini-ls-test--wait (lambda () (with-current-buffer buf (flymake-diagnostics)))
                                    "Flymake's diagnostic"))
            (gemini-ls-test--at-return buf)
            (let ((usual (key-binding (kbd "TAB"))))
              (should-not (eq usual #'gemini-ls-completion-accept))
              (gemini-ls-test--recording notes
                (gemini-ls-test--recording-requests requests
                  (gemini-ls-test--type "SPC")
                  (gemini-ls-test--idle buf)
                  (should (equal (gemini-ls-test--ghost buf) "sum(xs)"))
                  ;; Ghost text: the buffer does not hold it.
                  (should (equal (buffer-string) "def total(xs):\n    return \n"))
                  (should (eq (key-binding (kbd "TAB")) #'gemini-ls-completion-accept))
                  (gemini-ls-test--type "TAB")
                  (should (equal (buffer-string) "def total(xs):\n    return sum(xs)\n"))
                  (should (looking-at "\n"))
                  (should-not gemini-ls--completion-ghost)
                  (should (eq (key-binding (kbd "TAB")) usual))
                  (gemini-ls-test--wait
                   (lambda () (nth 2 (car (gemini-ls-test--sent :workspace/executeCommand requests))))
                   "the accept command's answer")))
              (let ((asked (gemini-ls-test--sent :textDocument/inlineCompletion requests))
                    (accepted (gemini-ls-test--sent :workspace/executeCommand requests))
                    (shown (cl-remove-if-not (lambda (n) (eq (car n) :textDocument/didShowCompletion))
                                             notes)))
                (should (= 1 (length asked)))
                (should (equal (plist-get (nth 1 (car asked)) :position) '(:line 1 :character 11)))
                (should (equal (plist-get (nth 1 (car asked)) :context) '(:triggerKind 2)))
                (should (equal (mapcar (lambda (d) (plist-get d :message))
                                       (plist-get (nth 1 (car asked)) :diagnostics))
                               '("name 'xs' is never used")))
                (should (= 1 (length shown)))
                (should (equal (plist-get (plist-get (cdar shown) :item) :insertText) "sum(xs)"))
                ;; The item's command, which the server answered.
                (should (= 1 (length accepted)))
                (should (equal (plist-get (nth 1 (car accepted)) :command) "gemini.acceptCompletion"))
                (should (eq (car (nth 2 (car accepted))) :result)))))
          ;; The diagnostic reached the model's prompt.
          (should (cl-some (lambda (text)
                             (string-match-p "<diagnostics>\nline 1: error: name 'xs' is never used\n"
                                             text))
                           (car (gemini-ls-test--model-requests gemini-ls-test--record)))))
      (delete-file gemini-ls-test--record))))

(ert-deftest gemini-ls-test-completion-stale-dropped ()
  "An answer for a buffer that changed while the model was asked is dropped."
  (gemini-ls-test--with-server
      (gemini-ls-test--completion-script '("    return <|cursor|>" "sum(xs)" "300ms"))
      `(("total.py" . ,gemini-ls-test--total))
    (gemini-ls-test--at-return buf)
    (gemini-ls-test--type "SPC")
    (gemini-ls-test--idle buf)
    (let ((req gemini-ls--completion-pending))
      ;; A change the keys did not make (a process, a command that does
      ;; not type): point stays, the buffer changed.
      (save-excursion (goto-char (point-max)) (insert "print(total([1]))\n"))
      ;; The server answered a suggestion, which Emacs did not show.
      (should (equal (gemini-ls-test--answered req) '(:items 1)))
      (should-not gemini-ls--completion-ghost)
      (should-not gemini-ls--completion-active)
      (should (equal (buffer-string) "def total(xs):\n    return \nprint(total([1]))\n")))))

(ert-deftest gemini-ls-test-completion-word ()
  "Taking the suggestion's next word tells the server; the rest stays.
\\<gemini-ls-completion-active-map>\\[gemini-ls-completion-accept-word] takes the word; typing its next characters keeps the
rest shown."
  (gemini-ls-test--with-server
      (gemini-ls-test--completion-script '("    return <|cursor|>" "sum(xs) / len(xs)"))
      `(("total.py" . ,gemini-ls-test--total))
    (gemini-ls-test--at-return buf)
    (let (notes)
      (gemini-ls-test--recording notes
        (gemini-ls-test--type "SPC")
        (gemini-ls-test--idle buf)
        (should (equal (gemini-ls-test--ghost buf) "sum(xs) / len(xs)"))
        (should (eq (key-binding (kbd "C-<right>")) #'gemini-ls-completion-accept-word))
        (gemini-ls-test--type "M-f")
        (should (equal (buffer-string) "def total(xs):\n    return sum\n"))
        (should (equal (gemini-ls-test--ghost buf) "(xs) / len(xs)"))
        (gemini-ls-test--type "C-<right>")
        (should (equal (gemini-ls-test--ghost buf) ") / len(xs)"))
        ;; Typing what it shows: the rest stays, while it is asked again.
        (gemini-ls-test--type ")")
        (should (equal (gemini-ls-test--ghost buf) " / len(xs)"))
        (gemini-ls-test--type "TAB")
        (should (equal (buffer-string) "def total(xs):\n    return sum(xs) / len(xs)\n"))
        (should-not gemini-ls--completion-ghost))
      (should (equal (mapcar (lambda (n) (plist-get (cdr n) :acceptedLength))
                             (reverse (cl-remove-if-not
                                       (lambda (n) (eq (car n) :textDocument/didPartiallyAcceptCompletion))
                                       notes)))
                     '(3 6))))))

(ert-deftest gemini-ls-test-completion-cancelled ()
  "Typing again cancels the request in flight ($/cancelRequest).
The server aborts it, and its answer never shows; the next one does.
Moving away cancels too."
  (gemini-ls-test--with-server
      (gemini-ls-test--completion-script '("    return s<|cursor|>" "um(xs)" "500ms")
                                         '("    return <|cursor|>" "sum(xs)" "500ms"))
      `(("total.py" . ,gemini-ls-test--total))
    (gemini-ls-test--at-return buf)
    (let (notes)
      (gemini-ls-test--recording notes
        (gemini-ls-test--type "SPC")
        (gemini-ls-test--idle buf)
        (let ((first gemini-ls--completion-pending))
          (gemini-ls-test--type "s")
          (should-not gemini-ls--completion-pending)
          (should (member (list :$/cancelRequest :id (gemini-ls--completion-req-id first))
                          notes))
          ;; RequestCancelled: the server stopped it.
          (should (equal (gemini-ls-test--answered first) '(:error -32800)))
          (should-not gemini-ls--completion-ghost))
        (gemini-ls-test--idle buf)
        (should (equal (gemini-ls-test--ghost buf) "um(xs)"))
        (gemini-ls-test--type "DEL")
        (should-not gemini-ls--completion-ghost)
        (gemini-ls-test--idle buf)
        (let ((third gemini-ls--completion-pending))
          (gemini-ls-test--type "C-b")
          (should-not gemini-ls--completion-pending)
          (should-not gemini-ls--completion-timer)
          (should (member (list :$/cancelRequest :id (gemini-ls--completion-req-id third))
                          notes))
          (should (equal (gemini-ls-test--answered third) '(:error -32800)))
          (should-not gemini-ls--completion-ghost))))))

(ert-deftest gemini-ls-test-completion-off ()
  "With `gemini-ls-completion-enabled' nil, typing asks nothing;
`gemini-ls-complete-at-point' still asks (triggerKind 1), and moving
away takes its suggestion away."
  (let ((gemini-ls-completion-enabled nil))
    (gemini-ls-test--with-server
        (gemini-ls-test--completion-script '("    return <|cursor|>" "sum(xs)"))
        `(("total.py" . ,gemini-ls-test--total))
      (gemini-ls-test--at-return buf)
      (should-not gemini-ls-completion-mode)
      (let (requests)
        (gemini-ls-test--recording-requests requests
          (gemini-ls-test--type "SPC")
          (should-not gemini-ls--completion-timer)
          (should (commandp #'gemini-ls-complete-at-point))
          (global-set-key (kbd "C-c g TAB") #'gemini-ls-complete-at-point)
          (unwind-protect (gemini-ls-test--type "C-c g TAB")
            (global-unset-key (kbd "C-c g TAB")))
          (should (equal (gemini-ls-test--ghost buf) "sum(xs)"))
          (gemini-ls-test--type "C-a")
          (should-not gemini-ls--completion-ghost))
        (should (equal (mapcar (lambda (e) (plist-get (nth 1 e) :context))
                               (gemini-ls-test--sent :textDocument/inlineCompletion requests))
                       '((:triggerKind 1))))))))

;;;; The chat's prompt area

(defun gemini-ls-test--type-in-chat (text)
  "Type TEXT in the chat's prompt area, as the user would.
Fontified first, as on screen (markdown-mode's font-lock removes
properties)."
  (with-current-buffer (gemini-ls--chat-buffer)
    (font-lock-ensure)
    (goto-char (point-max))
    (should (gemini-ls--in-input-p))
    ;; Key by key: a typed character inherits its neighbours' sticky
    ;; properties, where `insert' takes none.
    (dolist (c (string-to-list text))
      (if (eq c ?\n)
          (newline)
        (let ((last-command-event c)) (self-insert-command 1))))))

(ert-deftest gemini-ls-test-prompt-area-sends-lines ()
  "A prompt of several lines typed in the chat's prompt area goes whole.
\\<gemini-ls-chat-mode-map>\\[gemini-ls-chat-send] sends it to the server eglot connected: its blank
and indented lines reach the model as typed; it moves into the
transcript, which stays read-only, and the prompt area is empty again."
  (let ((gemini-ls-test--record (make-temp-file "gemini-requests" nil ".jsonl"))
        (gemini-ls--history nil))
    (unwind-protect
        (gemini-ls-test--with-server [((text . "Both lines arrived."))] '(("a.txt" . "one\n"))
          (switch-to-buffer (gemini-ls--chat-buffer))
          (should (string-match-p "C-c C-c send · C-c C-d menu$" (gemini-ls--header-line 80)))
          ;; The state first: the keys go where both would not fit.
          (should-not (string-match-p "menu" (gemini-ls--header-line 30)))
          (gemini-ls-test--type-in-chat "first line\n\n  indented line\nlast line\n")
          (execute-kbd-macro (kbd "C-c C-c"))
          (gemini-ls-test--wait-done)
          (should (string-match-p "## You\n\nfirst line\n\n  indented line\nlast line\n\n## Gemini\n\nBoth lines arrived\\."
                                  (gemini-ls-test--chat)))
          (should (string-suffix-p "first line\n\n  indented line\nlast line"
                                   (gemini-ls-test--last-request-text gemini-ls-test--record)))
          (should (equal (car gemini-ls--history) "first line\n\n  indented line\nlast line"))
          (with-current-buffer "*gemini*"
            (should (equal (gemini-ls--input) ""))
            (should (string-suffix-p "── Prompt (C-c C-c sends) ──\n" (buffer-string)))
            ;; The transcript and the marker line cannot be edited; the
            ;; prompt area can.
            (goto-char (point-min))
            (should-error (insert "x") :type 'text-read-only)
            (goto-char (1- gemini-ls--input-start))
            (should-error (delete-char 1) :type 'text-read-only)
            (gemini-ls-test--type-in-chat "nexts")
            (delete-char -1)
            (should (equal (gemini-ls--input) "next"))
            (goto-char gemini-ls--input-start)
            (should-error (delete-char -1) :type 'text-read-only)))
      (delete-file gemini-ls-test--record))))

(ert-deftest gemini-ls-test-prompt-area-empty-reads-minibuffer ()
  "Sending with nothing typed asks in the minibuffer, as before."
  (with-current-buffer (gemini-ls--chat-buffer)
    (let ((asked nil))
      (cl-letf (((symbol-function 'gemini-ls-prompt)
                 (lambda (p) (interactive (list (setq asked "read"))) p)))
        (gemini-ls--set-input "  \n ")
        (gemini-ls-chat-send))
      (should (equal asked "read")))))

(ert-deftest gemini-ls-test-prompt-area-history ()
  "The history keys step through the prompts sent, then to the draft."
  (when (get-buffer "*gemini*") (kill-buffer "*gemini*"))
  (let ((gemini-ls--history (list "second" "first")))
    (with-current-buffer (switch-to-buffer (gemini-ls--chat-buffer))
      (gemini-ls-test--type-in-chat "draft")
      (execute-kbd-macro (kbd "M-p"))
      (should (equal (gemini-ls--input) "second"))
      (execute-kbd-macro (kbd "M-p"))
      (should (equal (gemini-ls--input) "first"))
      (should-error (gemini-ls-chat-previous-prompt 1) :type 'user-error)
      (execute-kbd-macro (kbd "M-n"))
      (should (equal (gemini-ls--input) "second"))
      (execute-kbd-macro (kbd "M-n"))
      (should (equal (gemini-ls--input) "draft"))
      (should-error (gemini-ls-chat-next-prompt 1) :type 'user-error))))

(ert-deftest gemini-ls-test-prompt-area-undo ()
  "Undo in the prompt area undoes what was typed there alone.
Not the transcript streamed in above it meanwhile."
  (when (get-buffer "*gemini*") (kill-buffer "*gemini*"))
  (with-current-buffer (gemini-ls--chat-buffer)
    (buffer-enable-undo)
    (gemini-ls--with-chat (insert "earlier answer\n"))
    (gemini-ls-test--type-in-chat "typed")
    (undo-boundary)
    (gemini-ls--with-chat (insert "streamed meanwhile\n"))
    (gemini-ls-test--type-in-chat " more")
    (undo-boundary)
    (let ((last-command nil)) (undo))
    (should (equal (gemini-ls--input) "typed"))
    (let ((last-command 'undo)) (undo))
    (should (equal (gemini-ls--input) ""))
    (should (equal (gemini-ls-test--chat) "earlier answer\nstreamed meanwhile\n"))))

(ert-deftest gemini-ls-test-prompt-area-completes ()
  "TAB in the prompt area completes \"/command\" and \"@file\".
A command at its start, a file of the project's anywhere."
  (gemini-ls-test--with-server [] '(("a.txt" . "one\n") ("greet.py" . "x = 1\n"))
    (let ((gemini-ls--commands-cache
           (list server (current-time) '(:name "review" :description "Review a file"))))
      (with-current-buffer (switch-to-buffer (gemini-ls--chat-buffer))
        (setq gemini-ls--chat-server server)
        (gemini-ls-test--type-in-chat "/re")
        (let ((c (gemini-ls--input-capf)))
          (should c)
          (should (equal (all-completions "/re" (nth 2 c)) '("/review"))))
        (gemini-ls--set-input "look at @gr")
        (let ((c (gemini-ls--input-capf)))
          (should c)
          (should (equal (buffer-substring-no-properties (nth 0 c) (nth 1 c)) "gr"))
          (should (equal (all-completions "gr" (nth 2 c)) '("greet.py"))))
        (execute-kbd-macro (kbd "TAB"))
        (should (equal (gemini-ls--input) "look at @greet.py"))
        ;; Not in the transcript, nor for a mid-word "@".
        (gemini-ls--set-input "mail me@gr")
        (should-not (gemini-ls--input-capf))))))

(ert-deftest gemini-ls-test-mode-line-running-a-tool ()
  "While a tool runs the mode line names it as the chat does.
Before and after, Gemini is thinking."
  (let ((process-environment (cons "GEMINI_CLI_TRUST_WORKSPACE=true" process-environment))
        (gemini-ls-initialization-options '(:approvalMode "yolo"))
        (seen nil))
    (gemini-ls-test--with-server
        [((chunks . [((call . ((name . "run_shell_command")
                               (args . ((command . "sleep 2"))))))]))
         ((text . "Slept."))]
        '(("a.txt" . "one\n"))
      (gemini-ls-test--start buf "sleep a little")
      (should (string-match-p "Gemini:thinking" (gemini-ls-test--status)))
      ;; By the title the chat shows, not the tool's name.
      (gemini-ls-test--wait
       (lambda () (setq seen (string-match-p "Gemini:running Shell sleep 2 "
                                             (gemini-ls-test--status))))
       "the mode line to name the running tool")
      (should (string-match-p "^running Shell sleep 2 · " (gemini-ls-test--header)))
      (gemini-ls-test--wait-done)
      (should (string-match-p "Slept\\." (gemini-ls-test--chat)))
      (should-not (string-match-p "Gemini:" (gemini-ls-test--status))))
    (should seen)))

(defun gemini-ls-test--flymake-bad (report-fn &rest _)
  "A Flymake backend, as another language server would be.
An error on each \"bad\" of the buffer, reported to REPORT-FN."
  (let (found)
    (save-excursion
      (goto-char (point-min))
      (while (search-forward "bad" nil t)
        (push (flymake-make-diagnostic (current-buffer) (match-beginning 0) (point)
                                       :error "bad thing")
              found)))
    (funcall report-fn found)))

(defun gemini-ls-test--flymake-bad-on (buffer)
  "Turn the \"bad\" backend on in BUFFER and wait for its diagnostics."
  (with-current-buffer buffer
    (add-hook 'flymake-diagnostic-functions #'gemini-ls-test--flymake-bad nil t)
    (flymake-mode 1)
    (flymake-start)
    (gemini-ls-test--wait (lambda () (flymake-diagnostics)) "Flymake's diagnostics")))

(ert-deftest gemini-ls-test-diagnostics-answered ()
  "The server's gemini/diagnostics is answered with what Emacs shows.
What Flymake shows, or Flycheck where it is on: of the files asked
about, or of every buffer with some; a file no buffer visits has none,
and gets no buffer."
  (gemini-ls-test--with-server [] '(("a.txt" . "x bad y\n"))
    (should (eq t (plist-get (plist-get (plist-get (eglot-client-capabilities server)
                                                   :experimental)
                                        :gemini)
                             :diagnostics)))
    (gemini-ls-test--flymake-bad-on buf)
    (let* ((uri (gemini-ls--uri (buffer-file-name buf)))
           (elsewhere (gemini-ls--uri (expand-file-name "none.txt" dir)))
           (bad '(:range (:start (:line 0 :character 2) :end (:line 0 :character 5))
                         :severity 1 :message "bad thing")))
      (should (equal (eglot-handle-request server 'gemini/diagnostics :uris (vector uri elsewhere))
                     `(:items [(:uri ,uri :diagnostics [,bad]) (:uri ,elsewhere :diagnostics [])])))
      (should-not (find-buffer-visiting (expand-file-name "none.txt" dir)))
      (should (equal (eglot-handle-request server 'gemini/diagnostics)
                     `(:items [(:uri ,uri :diagnostics [,bad])])))
      ;; Flycheck's errors where flycheck-mode is on.
      (with-current-buffer buf (setq-local flycheck-mode t)
                           (setq-local flycheck-current-errors '(e1)))
      (cl-letf (((symbol-function 'flycheck-error-pos) (lambda (_) 7))
                ((symbol-function 'flycheck-error-level) (lambda (_) 'warning))
                ((symbol-function 'flycheck-error-message) (lambda (_) "trailing y"))
                ((symbol-function 'flycheck-error-checker) (lambda (_) 'proselint))
                ((symbol-function 'flycheck-error-id) (lambda (_) 12)))
        (should (equal (eglot-handle-request server 'gemini/diagnostics :uris (vector uri))
                       `(:items [(:uri ,uri :diagnostics
                                       [(:range (:start (:line 0 :character 6) :end (:line 0 :character 6))
                                                :severity 2 :message "trailing y"
                                                :source "proselint" :code "12")])])))))))

(ert-deftest gemini-ls-test-diagnostics-pending ()
  "A buffer gopls has not checked since it changed is answered pending.
Once gopls published the diagnostics of its last text, it is not; nor
after `gemini-ls-pending-seconds', as a server need not publish again."
  (gemini-ls-test--with-gopls []
    (let ((uri (gemini-ls--uri (buffer-file-name main))))
      (cl-flet ((pending ()
                  (plist-get (aref (plist-get (eglot-handle-request server 'gemini/diagnostics :uris (vector uri))
                                              :items)
                                   0)
                             :pending)))
        ;; gopls names no version of the text eglot opened (version 0),
        ;; so that one is never pending; it names the next ones.
        (with-current-buffer main
          (goto-char (point-max))
          (insert "// one\n")
          (eglot--signal-textDocument/didChange))
        (gemini-ls-test--wait (lambda () (equal (nth 1 (buffer-local-value 'gemini-ls--checked main))
                                                (buffer-local-value 'eglot--versioned-identifier main)))
                              "gopls's diagnostics of main.go")
        (should-not (pending))
        (with-current-buffer main (insert "// more\n"))
        (should (eq t (pending)))
        (with-current-buffer main (eglot--signal-textDocument/didChange))
        (gemini-ls-test--wait (lambda () (not (pending))) "gopls to check the last text")
        (should (equal (nth 1 (buffer-local-value 'gemini-ls--checked main))
                       (buffer-local-value 'eglot--versioned-identifier main)))
        (let ((gemini-ls-pending-seconds 0.2))
          (with-current-buffer main (insert "// again\n"))
          (should (eq t (pending)))
          (sleep-for 0.3)
          (should-not (pending)))
        (with-current-buffer main (set-buffer-modified-p nil))))))

(ert-deftest gemini-ls-test-diagnostics-read-by-the-model ()
  "The model's get_diagnostics reads what Flymake shows."
  (let ((gemini-ls-test--record (make-temp-file "gemini-requests" nil ".jsonl")))
    (gemini-ls-test--with-server
        [((chunks . [((call . ((name . "get_diagnostics")
                               (args . ((file_paths . ["a.txt"]))))))]))
         ((text . "One bad thing."))]
        '(("a.txt" . "x bad y\n"))
      (gemini-ls-test--flymake-bad-on buf)
      (gemini-ls-test--prompt buf "what is wrong?")
      (should (string-match-p "One bad thing\\." (gemini-ls-test--chat)))
      (should (string-search "a.txt:\\nL1:3 error bad thing"
                             (with-temp-buffer
                               (insert-file-contents gemini-ls-test--record)
                               (buffer-string)))))))

;;;; The files' own language servers: gemini/languageFeature

(define-derived-mode gemini-ls-test-go-mode prog-mode "Go"
  "Go, for the tests: Emacs 28 has no Go mode.")

(defun gemini-ls-test--langserver (name)
  "The file of language server NAME, as `make langservers' put it; or nil.
In the directory GEMINI_LS_LANGSERVERS names."
  (let ((file (and (getenv "GEMINI_LS_LANGSERVERS")
                   (expand-file-name name (getenv "GEMINI_LS_LANGSERVERS")))))
    (and file (file-executable-p file) file)))

(defun gemini-ls-test--need (found what)
  "Skip the test unless FOUND, WHAT naming what is missing.
Under CI, which installs every server (make langservers), fail instead:
a skipped test there would pass without checking anything."
  (unless found
    (if (getenv "CI")
        (ert-fail (format "%s is missing, and CI installs it (make langservers)" what))
      (ert-skip (format "%s is missing" what)))))

(defconst gemini-ls-test--go-files
  '(("notes.txt" . "Notes.\n")
    ("go.mod" . "module example.com/hello\n\ngo 1.21\n")
    ("greet/greet.go" . "// Package greet greets.
package greet

// Greet returns a greeting.
func Greet(name string) string {
\treturn \"Hello, \" + name
}

// Hi greets everyone.
func Hi() string { return Greet(\"everyone\") }
")
    ("greet/shape.go" . "package greet

// Shape has an area.
type Shape interface{ Area() int }

// Square is a Shape.
type Square struct{ Side int }

// Area is the square's.
func (s Square) Area() int { return s.Side * s.Side }

// Unit is the unit square.
var Unit Shape = Square{1}
")
    ("main.go" . "package main

import \"fmt\"

import \"example.com/hello/greet\"

func main() {
\tfmt.Println(\"h\u00e9llo \U0001F44B\U0001F44B\U0001F44B\", greet.Greet(\"x\"))
}
"))
  "A Go module whose Greet is used across packages.
main.go's line 8 has non-ASCII text before Greet: its column is 42 in
UTF-8 bytes, 35 in UTF-16 code units, 32 in characters.")

(defmacro gemini-ls-test--with-gopls (script &rest body)
  "Run BODY as `gemini-ls-test--with-server' does, beside gopls.
The project is `gemini-ls-test--go-files', the model follows SCRIPT.
`buf' visits notes.txt, which gemini-ls manages; eglot runs gopls for
the Go files, `gopls' in BODY, as for any user of eglot; `main' is
main.go's buffer."
  (declare (indent 1))
  `(progn
     (gemini-ls-test--need (and (gemini-ls-test--langserver "gopls") (executable-find "go")) "gopls or go")
     (let ((process-environment (append '("GOTOOLCHAIN=local" "GOPROXY=off" "GOFLAGS=")
                                        process-environment)))
       (gemini-ls-test--with-server ,script gemini-ls-test--go-files
         (let* ((auto-mode-alist (cons '("\\.go\\'" . gemini-ls-test-go-mode) auto-mode-alist))
                (eglot-server-programs (cons (cons '(gemini-ls-test-go-mode :language-id "go")
                                                   (list (gemini-ls-test--langserver "gopls")))
                                             eglot-server-programs))
                (main (find-file-noselect (expand-file-name "main.go" dir)))
                (gopls nil))
           (unwind-protect
               (progn
                 (with-current-buffer main
                   (apply #'eglot (eglot--guess-contact))
                   (setq gopls (eglot-current-server)))
                 (should (equal (gemini-ls--server-name gopls) "gopls"))
                 ,@body)
             (when gopls (ignore-errors (let ((eglot-autoreconnect nil))
                                          (eglot-shutdown gopls))))))))))

(defun gemini-ls-test--greet-column (server)
  "Greet's column on main.go's line 8, as SERVER's connection counts.
UTF-16 with eglot 1.9, UTF-32 where a newer one offers it."
  (pcase (gemini-ls--position-encoding server) ("utf-8" 42) ("utf-32" 32) (_ 35)))

(defun gemini-ls-test--ask (server operation file &rest params)
  "SERVER's `gemini/languageFeature' OPERATION on FILE with PARAMS, answered.
A refusal is (:code CODE :message MESSAGE)."
  (condition-case err
      (apply #'eglot-handle-request server 'gemini/languageFeature
             :operation operation :textDocument (list :uri (gemini-ls--uri file))
             params)
    (jsonrpc-error (list :code (alist-get 'jsonrpc-error-code (cdr err))
                         :message (alist-get 'jsonrpc-error-message (cdr err))))))

(defun gemini-ls-test--at (line character)
  "The LSP position of LINE and CHARACTER, 0-based."
  (list :line line :character character))

(defun gemini-ls-test--where (dir uri range)
  "(FILE LINE CHARACTER): URI relative to DIR, and RANGE's start."
  (let ((start (plist-get range :start)))
    (list (file-relative-name (gemini-ls--uri-path uri) dir)
          (plist-get start :line) (plist-get start :character))))

(defun gemini-ls-test--places (dir locations)
  "The places of LOCATIONS, a vector, sorted: files relative to DIR.
Each as `gemini-ls-test--where' has it."
  (should (vectorp locations))
  (sort (mapcar (lambda (l) (gemini-ls-test--where dir (plist-get l :uri) (plist-get l :range)))
                locations)
        (lambda (a b) (string< (format "%S" a) (format "%S" b)))))

(defun gemini-ls-test--edit-places (dir edit)
  "The edits of EDIT, a WorkspaceEdit, as (FILE (LINE CHARACTER NEW-TEXT)...).
FILE is relative to DIR; sorted by file."
  (sort
   (mapcar (lambda (change)
            (cons (file-relative-name (gemini-ls--uri-path
                                       (plist-get (plist-get change :textDocument) :uri))
                                      dir)
                  (mapcar (lambda (e)
                            (let ((start (plist-get (plist-get e :range) :start)))
                              (list (plist-get start :line) (plist-get start :character)
                                    (plist-get e :newText))))
                          (plist-get change :edits))))
           (plist-get edit :documentChanges))
   (lambda (a b) (string< (car a) (car b)))))

(ert-deftest gemini-ls-test-language-feature-references ()
  "`gemini/languageFeature' is answered by the file's own language server.
gopls, which eglot runs for the Go files beside the chat's gemini-ls.
The file, which no buffer visited, is visited for it without a
question (a large file, a directory's unsafe local variables), then
no more."
  (gemini-ls-test--with-gopls []
    (should (eq t (plist-get (plist-get (plist-get (eglot-client-capabilities server)
                                                   :experimental)
                                        :gemini)
                             :languageFeatures)))
    (let ((greet (expand-file-name "greet/greet.go" dir))
          (large-file-warning-threshold 10)
          (enable-local-variables t))
      (with-temp-file (expand-file-name "greet/.dir-locals.el" dir)
        (insert "((nil . ((eval . (setq-local gemini-ls-test--evaluated t)))))\n"))
      (should-not (find-buffer-visiting greet))
      ;; Batch Emacs asks nothing: the question would fail the test.
      (cl-letf (((symbol-function 'hack-local-variables-confirm)
                 (lambda (&rest _) (error "Asked about local variables")))
                ((symbol-function 'files--ask-user-about-large-file)
                 (lambda (&rest _) (error "Asked about a large file"))))
        (should (equal (gemini-ls-test--places
                        dir (gemini-ls-test--ask server "references" greet
                                                 :position (gemini-ls-test--at 4 5)))
                       `(("greet/greet.go" 4 5) ("greet/greet.go" 9 26) ("main.go" 7 ,(gemini-ls-test--greet-column server))))))
      (should-not (find-buffer-visiting greet)))))

(ert-deftest gemini-ls-test-language-feature-operations ()
  "Each operation of `gemini/languageFeature' asks its LSP request.
Definitions, types, implementations, hover, the symbols of a file and
of the project (asked about its root, a directory), calls both ways."
  (gemini-ls-test--with-gopls []
    (let ((greet (expand-file-name "greet/greet.go" dir))
          (shape (expand-file-name "greet/shape.go" dir))
          (main.go (expand-file-name "main.go" dir)))
      (should (equal (gemini-ls-test--places
                      dir (gemini-ls-test--ask server "definition" main.go
                                               :position (gemini-ls-test--at 7 (gemini-ls-test--greet-column server))))
                     '(("greet/greet.go" 4 5))))
      ;; Unit's type is Shape, which Square implements.
      (should (equal (gemini-ls-test--places
                      dir (gemini-ls-test--ask server "type_definition" shape
                                               :position (gemini-ls-test--at 12 4)))
                     '(("greet/shape.go" 3 5))))
      (should (equal (gemini-ls-test--places
                      dir (gemini-ls-test--ask server "implementation" shape
                                               :position (gemini-ls-test--at 3 5)))
                     '(("greet/shape.go" 6 5))))
      (let ((hover (gemini-ls-test--ask server "hover" greet :position (gemini-ls-test--at 4 5))))
        (should (string-search "func Greet(name string) string"
                               (plist-get (plist-get hover :contents) :value)))
        (should (equal (gemini-ls-test--where dir (gemini-ls--uri greet) (plist-get hover :range))
                       '("greet/greet.go" 4 5))))
      (should (equal (mapcar (lambda (s) (list (plist-get s :name)
                                               (plist-get (plist-get (plist-get s :selectionRange)
                                                                     :start)
                                                          :line)))
                             (gemini-ls-test--ask server "document_symbols" greet))
                     '(("Greet" 4) ("Hi" 9))))
      (let ((found (gemini-ls-test--ask server "workspace_symbols" dir :query "Greet")))
        (should (vectorp found))
        (should (cl-find-if (lambda (s)
                              (and (equal (plist-get s :name) "Greet")
                                   (equal (gemini-ls-test--where
                                           dir (plist-get (plist-get s :location) :uri)
                                           (plist-get (plist-get s :location) :range))
                                          '("greet/greet.go" 4 5))))
                            found)))
      (should (equal (mapcar (lambda (call)
                               (let ((from (plist-get call :from)))
                                 (list (plist-get from :name)
                                       (gemini-ls-test--where dir (plist-get from :uri)
                                                              (aref (plist-get call :fromRanges) 0)))))
                             (gemini-ls-test--ask server "incoming_calls" greet
                                                  :position (gemini-ls-test--at 4 5)))
                     `(("Hi" ("greet/greet.go" 9 26)) ("main" ("main.go" 7 ,(gemini-ls-test--greet-column server))))))
      (should (equal (mapcar (lambda (call)
                               (let ((to (plist-get call :to)))
                                 (list (plist-get to :name)
                                       (gemini-ls-test--where dir (plist-get to :uri)
                                                              (plist-get to :selectionRange))
                                       (gemini-ls-test--where dir (gemini-ls--uri greet)
                                                              (aref (plist-get call :fromRanges) 0)))))
                             (gemini-ls-test--ask server "outgoing_calls" greet
                                                  :position (gemini-ls-test--at 9 5)))
                     '(("Greet" ("greet/greet.go" 4 5) ("greet/greet.go" 9 26))))))))

(ert-deftest gemini-ls-test-language-feature-workspace-symbols ()
  "Workspace symbols come from every language server of the project.
gopls's and pyright's, concatenated, whether the root, a file of it or
a directory above it is asked about; those that answer when another
fails; the error when all fail."
  (gemini-ls-test--with-gopls []
    (gemini-ls-test--need (and (gemini-ls-test--langserver "pyright-langserver") (executable-find "node")) "pyright-langserver or node")
    (let* ((eglot-server-programs
            (cons (list 'python-mode (gemini-ls-test--langserver "pyright-langserver") "--stdio")
                  eglot-server-programs))
           (py (expand-file-name "tools/greeting.py" dir))
           (pyright (progn
                      (make-directory (file-name-directory py))
                      (with-temp-file py (insert "def greet_all():\n    return 'Hello'\n"))
                      (with-current-buffer (find-file-noselect py)
                        (apply #'eglot (eglot--guess-contact))
                        (eglot-current-server))))
           (names (lambda (symbols)
                    (sort (delete-dups
                           (mapcar (lambda (s)
                                     (list (plist-get s :name)
                                           (file-relative-name
                                            (gemini-ls--uri-path (plist-get (plist-get s :location) :uri))
                                            dir)))
                                   (cl-remove-if-not
                                    (lambda (s) (member (plist-get s :name) '("Greet" "greet_all")))
                                    symbols)))
                          (lambda (a b) (string< (car a) (car b))))))
           (failing nil))
      (unwind-protect
          (progn
            ;; It has no name of its own (serverInfo).
            (should (equal (gemini-ls--server-name pyright) "pyright-langserver"))
            ;; pyright finds nothing until it has read the project.
            (gemini-ls-test--wait (lambda () (> (length (jsonrpc-request pyright :workspace/symbol
                                                                         '(:query "greet_all")))
                                                0))
                                  "pyright's analysis")
            ;; Asked about the project's root, a file in it, or a
            ;; directory above it.
            (dolist (root (list dir (expand-file-name "greet/greet.go" dir)
                                (file-name-directory (directory-file-name dir))))
              (should (equal (list root (funcall names (gemini-ls-test--ask server "workspace_symbols"
                                                                            root :query "greet")))
                             (list root '(("Greet" "greet/greet.go")
                                          ("greet_all" "tools/greeting.py"))))))
            (let ((orig (symbol-function 'jsonrpc-async-request)))
              (cl-letf (((symbol-function 'jsonrpc-async-request)
                         (lambda (conn method params &rest args)
                           (if (memq conn failing)
                               (funcall (plist-get args :error-fn)
                                        (list :code -32603 :message
                                              (format "%s failed" (gemini-ls--server-name conn))))
                             (apply orig conn method params args)))))
                (setq failing (list gopls))
                (should (equal (funcall names (gemini-ls-test--ask server "workspace_symbols" dir
                                                                   :query "greet"))
                               '(("greet_all" "tools/greeting.py"))))
                (setq failing (list gopls pyright))
                (should (member (gemini-ls-test--ask server "workspace_symbols" dir :query "greet")
                                '((:code -32803 :message "gopls failed")
                                  (:code -32803 :message "pyright-langserver failed")))))))
        (ignore-errors (let ((eglot-autoreconnect nil)) (eglot-shutdown pyright)))))))

(defmacro gemini-ls-test--in-utf-8 (server &rest body)
  "Run BODY with SERVER's connection counting positions in UTF-8.
As a newer eglot, which offers UTF-8, and gemini-ls, which takes it,
would have it; Emacs 28's eglot 1.9 offers nothing: UTF-16."
  (declare (indent 1))
  `(let ((offer (symbol-function 'eglot-client-capabilities))
         (caps (eglot--capabilities ,server)))
     (setf (eglot--capabilities ,server) (append '(:positionEncoding "utf-8") caps))
     (unwind-protect
         (cl-letf (((symbol-function 'eglot-client-capabilities)
                    (lambda (s)
                      (if (eq s ,server)
                          (append '(:general (:positionEncodings ["utf-32" "utf-8" "utf-16"]))
                                  (funcall offer s))
                        (funcall offer s)))))
           (should (equal (gemini-ls--position-encoding ,server) "utf-8"))
           ,@body)
       (setf (eglot--capabilities ,server) caps))))

(ert-deftest gemini-ls-test-language-feature-recounted ()
  "Positions are recounted between the two connections' encodings.
gemini-ls's in UTF-8, gopls's in UTF-16: the position asked about, and
those of the answer, in every file, the one asked about or not."
  (gemini-ls-test--with-gopls []
    (should (equal (gemini-ls--position-encoding gopls) "utf-16"))
    (gemini-ls-test--in-utf-8 server
      (let ((greet (expand-file-name "greet/greet.go" dir))
            (main.go (expand-file-name "main.go" dir)))
        ;; Greet's column in main.go, 42, is past its end in UTF-16.
        (should (equal (gemini-ls-test--places
                        dir (gemini-ls-test--ask server "definition" main.go
                                                 :position (gemini-ls-test--at 7 42)))
                       '(("greet/greet.go" 4 5))))
        (should (equal (gemini-ls-test--places
                        dir (gemini-ls-test--ask server "references" main.go
                                                 :position (gemini-ls-test--at 7 42)))
                       '(("greet/greet.go" 4 5) ("greet/greet.go" 9 26) ("main.go" 7 42))))
        ;; main.go is not visited: its copy read from disk counts.
        (kill-buffer main)
        (should (equal (mapcar (lambda (call)
                                 (gemini-ls-test--where
                                  dir (plist-get (plist-get call :from) :uri)
                                  (aref (plist-get call :fromRanges) 0)))
                               (gemini-ls-test--ask server "incoming_calls" greet
                                                    :position (gemini-ls-test--at 4 5)))
                       '(("greet/greet.go" 9 26) ("main.go" 7 42))))
        ;; The calls' ranges are in the caller's file, main.go.
        (should (equal (cl-find "Greet"
                                (mapcar (lambda (call)
                                          (let ((to (plist-get call :to)))
                                            (list (plist-get to :name)
                                                  (gemini-ls-test--where dir (plist-get to :uri)
                                                                         (plist-get to :selectionRange))
                                                  (gemini-ls-test--where dir (gemini-ls--uri main.go)
                                                                         (aref (plist-get call :fromRanges) 0)))))
                                        (gemini-ls-test--ask server "outgoing_calls" main.go
                                                             :position (gemini-ls-test--at 6 5)))
                                :key #'car :test #'equal)
                       '("Greet" ("greet/greet.go" 4 5) ("main.go" 7 42))))
        (should (equal (gemini-ls-test--edit-places
                        dir (gemini-ls-test--ask server "rename" greet
                                                 :position (gemini-ls-test--at 4 5)
                                                 :newName "Salute"))
                       '(("greet/greet.go" (3 3 "Salute") (4 5 "Salute") (9 26 "Salute"))
                         ("main.go" (7 42 "Salute")))))
        (should-not (cl-find-if (lambda (b) (string-prefix-p " *gemini-ls-text" (buffer-name b)))
                                (buffer-list)))))))

(ert-deftest gemini-ls-test-columns-in-encodings ()
  "Columns count UTF-8 bytes, UTF-16 code units or characters, both ways.
A column within a character stops before it; one past the line's end
stops at its end."
  (with-temp-buffer
    (insert "h\u00e9\U0001F44Bx\nnext\n")
    (goto-char 4)                       ; before x
    (should (equal (mapcar #'gemini-ls--column '("utf-8" "utf-16" "utf-32")) '(7 4 3)))
    (dolist (c '((7 "utf-8") (4 "utf-16") (3 "utf-32")))
      (goto-char (point-max))
      (forward-line -2)
      (gemini-ls--move-to-column (car c) (cadr c))
      (should (equal (list c (point)) (list c 4))))
    (goto-char 1)
    (gemini-ls--move-to-column 3 "utf-16")
    (should (= (point) 3))
    (gemini-ls--move-to-column 99 "utf-8")
    (should (= (point) 5))))

(ert-deftest gemini-ls-test-position-encoding ()
  "A connection counts in what its server chose among eglot's offers.
UTF-16 where eglot offered none (eglot 1.9) or the server chose none."
  (let (offered chosen)
    (cl-letf (((symbol-function 'eglot-client-capabilities)
               (lambda (_) (and offered (list :general (list :positionEncodings offered)))))
              ((symbol-function 'eglot--capabilities)
               (lambda (_) (and chosen (list :positionEncoding chosen)))))
      (should (equal (gemini-ls--position-encoding 'server) "utf-16"))
      (setq chosen "utf-8")
      (should (equal (gemini-ls--position-encoding 'server) "utf-16"))
      (setq offered ["utf-32" "utf-8" "utf-16"])
      (should (equal (gemini-ls--position-encoding 'server) "utf-8"))
      (setq chosen nil)
      (should (equal (gemini-ls--position-encoding 'server) "utf-16")))))

(ert-deftest gemini-ls-test-language-feature-no-server ()
  "A file no other language server of Emacs answers for is refused: -32001.
Not gemini-ls's own, which manages notes.txt here, even claiming to
answer; nor a server that does not answer the operation; no server
is started."
  (gemini-ls-test--with-gopls []
    (let ((notes (expand-file-name "notes.txt" dir))
          (data (expand-file-name "data.bin" dir))
          (shape (expand-file-name "greet/shape.go" dir))
          (servers (gethash (cons 'transient dir) eglot--servers-by-project))
          (caps (eglot--capabilities gopls))
          log)
      (should (eq (with-current-buffer buf (eglot-current-server)) server))
      (setf (eglot--capabilities server)
            (append '(:referencesProvider t :hoverProvider t) (eglot--capabilities server)))
      (with-temp-file data (insert "1010\n"))
      (gemini-ls-test--recording-requests log
        (should (equal (plist-get (gemini-ls-test--ask server "references" notes
                                                       :position (gemini-ls-test--at 0 0))
                                  :code)
                       -32001))
        (should (equal (gemini-ls-test--ask server "hover" data :position (gemini-ls-test--at 0 0))
                       (list :code -32001
                             :message (format "No language server of Emacs manages %s" data))))
        (should (equal (gemini-ls-test--ask server "hover" (expand-file-name "none.go" dir)
                                            :position (gemini-ls-test--at 0 0))
                       (list :code -32001
                             :message (format "No file %s" (expand-file-name "none.go" dir)))))
        (setf (eglot--capabilities gopls) (append '(:typeDefinitionProvider :json-false) caps))
        (unwind-protect
            (should (equal (gemini-ls-test--ask server "type_definition" shape
                                                :position (gemini-ls-test--at 12 4))
                           (list :code -32001
                                 :message (format "gopls, the language server of %s, does not answer type_definition"
                                                  shape))))
          (setf (eglot--capabilities gopls) caps)))
      (should-not log)
      (should (equal (gethash (cons 'transient dir) eglot--servers-by-project) servers))
      ;; A question gemini-ls should not have asked: invalid params.
      (should (equal (gemini-ls-test--ask server "frobnicate" shape)
                     '(:code -32602 :message "Unknown operation \"frobnicate\"")))
      (should (equal (condition-case err
                         (eglot-handle-request server 'gemini/languageFeature :operation "hover")
                       (jsonrpc-error (alist-get 'jsonrpc-error-code (cdr err))))
                     -32602)))))

(ert-deftest gemini-ls-test-language-feature-rename ()
  "A rename is answered with the edit gopls proposes; nothing changes.
Its refusal is passed on word for word.  Where the server offers
prepareRename, it is asked first."
  (gemini-ls-test--with-gopls []
    (let ((greet (expand-file-name "greet/greet.go" dir))
          (caps (eglot--capabilities gopls))
          log)
      (gemini-ls-test--recording-requests log
        (should (equal (gemini-ls-test--edit-places
                        dir (gemini-ls-test--ask server "rename" greet
                                                 :position (gemini-ls-test--at 4 5)
                                                 :newName "Salute"))
                       `(("greet/greet.go" (3 3 "Salute") (4 5 "Salute") (9 26 "Salute"))
                         ("main.go" (7 ,(gemini-ls-test--greet-column server) "Salute"))))))
      (should (equal (mapcar #'car log) '(:textDocument/rename)))
      (should (equal (gemini-ls-test--file dir "greet/greet.go")
                     (cdr (assoc "greet/greet.go" gemini-ls-test--go-files))))
      (should (equal (with-current-buffer main (buffer-string))
                     (cdr (assoc "main.go" gemini-ls-test--go-files))))
      (should-not (buffer-modified-p main))
      (should (equal (gemini-ls-test--ask server "rename" greet
                                          :position (gemini-ls-test--at 4 5) :newName "1x")
                     '(:code -32803 :message "invalid identifier to rename: \"1x\"")))
      (setf (eglot--capabilities gopls) (append '(:renameProvider (:prepareProvider t)) caps))
      (unwind-protect
          (progn
            (setq log nil)
            (gemini-ls-test--recording-requests log
              ;; string, a builtin.
              (should (equal (gemini-ls-test--ask server "rename" greet
                                                  :position (gemini-ls-test--at 4 17)
                                                  :newName "text")
                             '(:code -32803 :message "gopls cannot rename the symbol there"))))
            (should (equal (mapcar #'car log) '(:textDocument/prepareRename)))
            (setq log nil)
            (gemini-ls-test--recording-requests log
              (should (plist-get (gemini-ls-test--ask server "rename" greet
                                                      :position (gemini-ls-test--at 4 5)
                                                      :newName "Salute")
                                 :documentChanges)))
            (should (equal (mapcar #'car (reverse log))
                           '(:textDocument/prepareRename :textDocument/rename))))
        (setf (eglot--capabilities gopls) caps)))))

(ert-deftest gemini-ls-test-language-feature-unsent-changes ()
  "The server is asked about the buffers as they are, changes not yet sent.
eglot sends a buffer's changes once Emacs idles; they go first."
  (gemini-ls-test--with-gopls []
    (let ((eglot-send-changes-idle-time 3600))
      (with-current-buffer main
        (goto-char (point-max))
        (insert "\nfunc again() string { return greet.Greet(\"y\") }\n"))
      (should (equal (gemini-ls-test--places
                      dir (gemini-ls-test--ask server "references"
                                               (expand-file-name "greet/greet.go" dir)
                                               :position (gemini-ls-test--at 4 5)))
                     `(("greet/greet.go" 4 5) ("greet/greet.go" 9 26)
                       ("main.go" 10 35) ("main.go" 7 ,(gemini-ls-test--greet-column server)))))
      (with-current-buffer main (set-buffer-modified-p nil)))))

(ert-deftest gemini-ls-test-language-feature-answer-from-a-timer ()
  "An answer jsonrpc hands over from a timer is taken as it comes.
As jsonrpc 1.0.20 and newer (Emacs 30's) do, where Emacs 28's calls
back from the process filter: the wait does not last until the next
output or the deadline, here an hour away."
  (gemini-ls-test--with-gopls []
    (let* ((gemini-ls-language-feature-timeout 3600)
           (answer (vector (list :uri (gemini-ls--uri (expand-file-name "main.go" dir))
                                 :range (list :start (gemini-ls-test--at 7 35)
                                              :end (gemini-ls-test--at 7 40)))))
           ;; A server with nothing to say while Emacs waits (gopls may
           ;; report its progress any time).
           (quiet (make-process :name "quiet" :command '("sleep" "3600") :noquery t))
           (process (symbol-function 'jsonrpc--process)))
      (unwind-protect
          (cl-letf (((symbol-function 'jsonrpc--process)
                     (lambda (conn) (if (eq conn gopls) quiet (funcall process conn))))
                    ((symbol-function 'jsonrpc-async-request)
                     (lambda (_conn _method _params &rest args)
                       (run-at-time 0.1 nil (plist-get args :success-fn) answer))))
            (should (equal (gemini-ls-test--places
                            dir (gemini-ls-test--ask server "references"
                                                     (expand-file-name "main.go" dir)
                                                     :position (gemini-ls-test--at 7 (gemini-ls-test--greet-column server))))
                           `(("main.go" 7 ,(gemini-ls-test--greet-column server))))))
        (delete-process quiet)))))

(ert-deftest gemini-ls-test-language-feature-server-errors ()
  "The other server's silence and errors, as gemini-ls is told them.
No answer in `gemini-ls-language-feature-timeout': an error, not a
wait; MethodNotFound: -32001, as no server; any other error: -32803,
its message (-32001 among them, which is LSP's UnknownErrorCode)."
  (gemini-ls-test--with-gopls []
    (let ((greet (expand-file-name "greet/greet.go" dir))
          (gemini-ls-language-feature-timeout 0.5)
          error)
      (cl-letf (((symbol-function 'jsonrpc-async-request)
                 (lambda (_conn _method _params &rest args)
                   (when error (funcall (plist-get args :error-fn) error)))))
        (should (equal (gemini-ls-test--ask server "references" greet
                                            :position (gemini-ls-test--at 4 5))
                       '(:code -32803
                         :message "gopls did not answer textDocument/references within 0.5 s")))
        (setq error '(:code -32601 :message "Unhandled method"))
        (should (equal (plist-get (gemini-ls-test--ask server "references" greet
                                                       :position (gemini-ls-test--at 4 5))
                                  :code)
                       -32001))
        (setq error '(:code -32001 :message "the index is not ready"))
        (should (equal (gemini-ls-test--ask server "references" greet
                                            :position (gemini-ls-test--at 4 5))
                       '(:code -32803 :message "the index is not ready")))))))

;; The whole way: the model's tool call, gemini-ls, Emacs, gopls.

(ert-deftest gemini-ls-test-navigate-code-from-eglot ()
  "The model's navigate_code is answered by gopls through eglot.
gemini-ls asks Emacs (`gemini/languageFeature'), which asks the Go
files' own server; the model reads each reference's file and line."
  (let ((gemini-ls-test--record (make-temp-file "gemini-requests" nil ".jsonl")))
    (gemini-ls-test--with-gopls
        [((chunks . [((call . ((name . "navigate_code")
                               (args . ((operation . "references")
                                        (file_path . "greet/greet.go")
                                        (line . 5)
                                        (symbol . "Greet"))))))]))
         ((text . "Greet is used in main.go."))]
      (gemini-ls-test--prompt buf "who uses Greet?")
      (should (string-match-p "Greet is used in main\\.go\\." (gemini-ls-test--chat)))
      (let ((output (car (gemini-ls-test--tool-outputs gemini-ls-test--record))))
        (should (stringp output))
        (should (string-prefix-p
                 "3 references to Greet (from the editor's language servers):\n" output))
        (should (string-match-p (concat "^greet/greet\\.go\n"
                                        "  5: func Greet(name string) string {\n"
                                        "  10: func Hi() string { return Greet(\"everyone\") }$")
                                output))
        (should (string-match-p "^main\\.go\n  8: \tfmt\\.Println(.*greet\\.Greet(\"x\"))$"
                                output)))
      ;; greet.go was visited for gopls, then no more.
      (should-not (find-buffer-visiting (expand-file-name "greet/greet.go" dir))))))

(ert-deftest gemini-ls-test-rename-symbol-reviewed ()
  "The model's rename_symbol: gopls's edit, reviewed across files, accepted.
Emacs answers with the edit gopls proposes through eglot and changes
nothing; gemini-ls proposes it as one change of both files, which the
review shows and, accepted, writes."
  (let ((gemini-ls-test--record (make-temp-file "gemini-requests" nil ".jsonl")))
    (gemini-ls-test--with-gopls
        [((chunks . [((call . ((name . "rename_symbol")
                               (args . ((file_path . "greet/greet.go")
                                        (line . 5)
                                        (symbol . "Greet")
                                        (new_name . "Salute"))))))]))
         ((text . "Renamed."))]
      (let ((greet (expand-file-name "greet/greet.go" dir))
            (main.go (expand-file-name "main.go" dir)))
        (gemini-ls-test--start buf "rename Greet to Salute")
        (with-current-buffer (gemini-ls-test--review)
          (let ((review (buffer-string)))
            (should (string-match-p "^--- a/greet/greet\\.go$" review))
            (should (string-match-p "^-func Greet(name string) string {$" review))
            (should (string-match-p "^\\+func Salute(name string) string {$" review))
            (should (string-match-p "^\\+func Hi() string { return Salute(\"everyone\") }$" review))
            (should (string-match-p "^--- a/main\\.go$" review))
            (should (string-match-p "^\\+.*greet\\.Salute(\"x\"))$" review)))
          ;; Nothing is written before the user accepts.
          (should (equal (gemini-ls-test--file dir "greet/greet.go")
                         (cdr (assoc "greet/greet.go" gemini-ls-test--go-files))))
          (gemini-ls-review-accept-all))
        (gemini-ls-test--wait-done)
        (should (string-match-p "Renamed\\." (gemini-ls-test--chat)))
        (dolist (file (list greet main.go))
          (let ((text (with-temp-buffer (insert-file-contents file) (buffer-string))))
            (should-not (string-search "Greet" text))
            (should (string-search "Salute" text))))
        (should (string-search "func Salute(name string) string {"
                               (gemini-ls-test--file dir "greet/greet.go")))
        (should (string-search "greet.Salute(\"x\")" (gemini-ls-test--file dir "main.go")))
        (should (equal (car (gemini-ls-test--tool-outputs gemini-ls-test--record))
                       (concat "Rename Greet to Salute (proposed by the editor's language servers): "
                               "4 edits in 2 files changed: greet/greet.go (3 edits), main.go (1 edit).")))))))

;;;; Beside the buffer's own language server

(defmacro gemini-ls-test--with-pyright (&rest body)
  "Run BODY with a stand-in pyright installed and a project with main.py.
The stand-in is gemini-ls named pyright-langserver on variable `exec-path' (a
language server that takes --stdio), which eglot's own
`eglot-server-programs' entry for Python runs.  In BODY, `dir' is the
project, `fake' the fake model's (PROCESS . URL)."
  (declare (indent 0))
  `(let* ((fake (gemini-ls-test--start-fake [((chunks . [((text . "It greets."))]))]))
          (dir (file-name-as-directory (make-temp-file "gemini-proj" t)))
          (bin (make-temp-file "gemini-bin" t))
          (exec-path (cons bin exec-path))
          (process-environment
           (append (list "GEMINI_API_KEY=test" "GOOGLE_API_KEY" "GOOGLE_GENAI_USE_VERTEXAI"
                         (concat "GOOGLE_GEMINI_BASE_URL=" (cdr fake))
                         "GEMINI_MODEL=gemini-test")
                   process-environment))
          (project-find-functions (list (lambda (_) (cons 'transient dir))))
          (gemini-ls-server-command (getenv "GEMINI_LS_BIN"))
          (eglot-server-programs (copy-sequence eglot-server-programs))
          (eglot-sync-connect t)
          (eglot-autoshutdown nil)
          (inhibit-message t))
     (unwind-protect
         (progn
           (make-symbolic-link (getenv "GEMINI_LS_BIN") (expand-file-name "pyright-langserver" bin))
           (with-temp-file (expand-file-name "main.py" dir)
             (insert "def greet(name):\n    return 'Hello, ' + name\n"))
           (when (get-buffer "*gemini*") (kill-buffer "*gemini*"))
           ,@body)
       (dolist (s (gethash (cons 'transient dir) eglot--servers-by-project))
         (ignore-errors (let ((eglot-autoreconnect nil)) (eglot-shutdown s))))
       (dolist (b (buffer-list))
         (when (and (buffer-file-name b) (string-prefix-p dir (buffer-file-name b)))
           (with-current-buffer b (set-buffer-modified-p nil))
           (kill-buffer b)))
       (delete-process (car fake))
       (delete-directory bin t)
       (delete-directory dir t))))

(ert-deftest gemini-ls-test-python-keeps-its-server ()
  "A Python buffer keeps the language server eglot has for Python.
The chat works beside it through a gemini-ls of its own.  Loading the
package takes no mode; handing it the modes one programs in leaves out
Python, whose server is installed."
  (gemini-ls-test--with-pyright
    (let* ((py (find-file-noselect (expand-file-name "main.py" dir)))
           (own (with-current-buffer py
                  (apply #'eglot (eglot--guess-contact))
                  (eglot-current-server))))
      (should own)
      (should-not (cl-typep own 'gemini-ls-server))
      (should (string-match-p "pyright-langserver"
                              (car (process-command (jsonrpc--process own)))))
      (let ((warnings nil))
        (cl-letf (((symbol-function 'display-warning)
                   (lambda (_type msg &rest _) (push msg warnings))))
          (should (equal (gemini-ls-register 'prog-mode 'text-mode 'python-mode)
                         '(prog-mode text-mode))))
        (should (string-match-p "python-mode keeps its language server, .*pyright-langserver"
                                (car warnings))))
      (with-current-buffer py
        (should (memq 'python-mode (car (eglot--guess-contact))))
        (should (string-match-p "pyright-langserver" (car (nth 3 (eglot--guess-contact)))))
        (goto-char (point-min))
        (gemini-ls-prompt "What does greet do?"))
      (gemini-ls-test--wait
       (lambda () (not (buffer-local-value 'gemini-ls--busy (get-buffer "*gemini*"))))
       "the chat's answer")
      (should (string-match-p "It greets\\." (gemini-ls-test--chat)))
      (let ((chat (buffer-local-value 'gemini-ls--chat-server (get-buffer "*gemini*"))))
        (should (cl-typep chat 'gemini-ls-server))
        (should (equal (eglot--major-modes chat) '(gemini-ls-chat-mode))))
      ;; The buffer still talks to its own server, which still runs.
      (with-current-buffer py
        (should (eq (eglot-current-server) own)))
      (should (jsonrpc-running-p own)))))

(ert-deftest gemini-ls-test-register-order ()
  "A mode is registered after the others, or before a missing server's.
A mode with no entry goes after every other entry; a mode whose entry
names no installed server goes before it."
  (let ((eglot-server-programs '(((python-mode) . ("no-such-pyright-xyz"))
                                 ((go-mode) . ("no-such-gopls-xyz")))))
    (should (equal (gemini-ls-register 'prog-mode 'python-mode) '(python-mode prog-mode)))
    (should (equal (mapcar #'car eglot-server-programs)
                   '((python-mode) (python-mode) (go-mode) (prog-mode))))
    (should (eq (cdr (car eglot-server-programs)) #'gemini-ls--contact))
    (should (eq (cdr (car (last eglot-server-programs))) #'gemini-ls--contact))))

;;;; Installing the server

(defun gemini-ls-test--release (dir &optional sums)
  "Make a release in DIR for this machine.
Its archive has a gemini-ls that prints its version.  SUMS, if given,
is SHA256SUMS's text."
  (let* ((archive (gemini-ls--release-archive))
         (stage (make-temp-file "gemini-stage" t))
         (exe (expand-file-name "gemini-ls" stage)))
    (with-temp-file exe (insert "#!/bin/sh\necho 'gemini-ls 9.8.7 (commit abc)'\n"))
    (set-file-modes exe #o755)
    (should (eql 0 (call-process "tar" nil nil nil "-czf" (expand-file-name archive dir)
                                 "-C" stage "gemini-ls")))
    (delete-directory stage t)
    (with-temp-file (expand-file-name "SHA256SUMS" dir)
      (insert (or sums (format "%s  %s\n" (gemini-ls--sha256 (expand-file-name archive dir))
                               archive))))))

(defun gemini-ls-test--serve-http (dir)
  "Serve DIR's files over HTTP on a loopback port; return the server process."
  (make-network-process
   :name "gemini-release" :server t :host 'local :service t :noquery t
   :coding 'binary
   :filter (lambda (proc request)
             (when (string-match "\\`GET /\\([^ ]*\\) " request)
               (let ((file (expand-file-name (match-string 1 request) dir)))
                 (process-send-string
                  proc
                  (if (file-exists-p file)
                      (with-temp-buffer
                        (set-buffer-multibyte nil)
                        (insert-file-contents-literally file)
                        (concat (format "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                                        (buffer-size))
                                (buffer-string)))
                    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
                 (process-send-eof proc))))))

(ert-deftest gemini-ls-test-install-server ()
  "The server is installed from a release directory.
Over file: and HTTP, checked against SHA256SUMS; the chat and eglot
then run it."
  (let* ((release (make-temp-file "gemini-release" t))
         (http (gemini-ls-test--serve-http release)))
    (unwind-protect
        (progn
          (gemini-ls-test--release release)
          (dolist (url (list (concat "file://" release "/")
                             (format "http://127.0.0.1:%d/" (process-contact http :service))))
            (let* ((gemini-ls-install-dir (make-temp-file "gemini-install" t))
                   (gemini-ls-release-url url)
                   (gemini-ls-server-command nil)
                   (inhibit-message t)
                   (bin (expand-file-name "gemini-ls" gemini-ls-install-dir)))
              (unwind-protect
                  (progn
                    (should (equal (gemini-ls-test--install) (list bin nil)))
                    (should (file-executable-p bin))
                    (should (equal (process-lines bin "--version") '("gemini-ls 9.8.7 (commit abc)")))
                    (should (equal (gemini-ls--server-program) (list bin "serve"))))
                (delete-directory gemini-ls-install-dir t)))))
      (delete-process http)
      (delete-directory release t))))

(ert-deftest gemini-ls-test-install-server-checksum ()
  "An archive that is not the one SHA256SUMS names is not installed."
  (let* ((release (make-temp-file "gemini-release" t))
         (gemini-ls-install-dir (expand-file-name "bin/" (make-temp-file "gemini-install" t)))
         (gemini-ls-release-url (concat "file://" release "/"))
         (inhibit-message t))
    (unwind-protect
        (progn
          (gemini-ls-test--release release (format "%s  %s\n" (make-string 64 ?0)
                                                   (gemini-ls--release-archive)))
          (let ((result (gemini-ls-test--install)))
            (should-not (car result))
            (should (string-match-p "does not match SHA256SUMS" (cadr result))))
          (should-not (file-exists-p gemini-ls-install-dir)))
      (delete-directory release t))))

(defun gemini-ls-test--install ()
  "Run `gemini-ls-install-server' and wait for it to end in the background.
Return what it ends with: the binary installed and nil, or nil and why
not."
  (let (result)
    (gemini-ls-install-server (lambda (bin why) (setq result (list bin why))))
    (with-timeout (30 (error "The install did not end within 30 s"))
      (while (not result) (accept-process-output nil 0.05)))
    (should-not gemini-ls--install)
    result))

(defun gemini-ls-test--fake-go (dir)
  "Write a stand-in go in DIR: it notes how it ran in DIR/go.args, builds.
The build copies GEMINI_LS_BIN where go build's -o, or go install's
GOBIN, puts the binary."
  (with-temp-file (expand-file-name "go" dir)
    (insert "#!/bin/sh\n"
            "printf '%s\\n' \"$PWD\" \"CGO_ENABLED=$CGO_ENABLED\" \"GOBIN=$GOBIN\" \"$*\" >\"$(dirname \"$0\")/go.args\"\n"
            "case \"$1\" in\n"
            "  build) cp \"$GEMINI_LS_BIN\" \"$3\" ;;\n"
            "  install) cp \"$GEMINI_LS_BIN\" \"$GOBIN/gemini-ls\" ;;\n"
            "  *) exit 2 ;;\n"
            "esac\n"))
  (set-file-modes (expand-file-name "go" dir) #o755))

(defun gemini-ls-test--silent-server ()
  "A loopback server that takes connections and never answers them."
  (make-network-process :name "gemini-silent" :server t :host 'local :service t
                        :noquery t :filter #'ignore))

(ert-deftest gemini-ls-test-install-server-offline ()
  "Offline, the install gives up within its time-out and offers Go.
A release host that never answers, and one whose name does not
resolve: url.el may never call back, but the install ends within
`gemini-ls-install-connect-timeout' and asks whether Go builds the
server instead; yes builds it (a stand-in go on PATH) and installs it,
from the checkout this package sits in with go build, else with go
install of the latest release into the install's directory."
  (let* ((silent (gemini-ls-test--silent-server))
         (fake (make-temp-file "gemini-fake-go" t))
         (exec-path (cons fake exec-path))
         (gemini-ls-install-connect-timeout 2)
         (inhibit-message t))
    (gemini-ls-test--fake-go fake)
    (unwind-protect
        (pcase-dolist (`(,url ,checkout)
                       `((,(format "http://127.0.0.1:%d/" (process-contact silent :service)) t)
                         ("http://gemini-ls.invalid/releases/" nil)))
          (let* ((gemini-ls-install-dir (expand-file-name "bin/" (make-temp-file "gemini-install" t)))
                 (gemini-ls-release-url url)
                 (asked nil)
                 (started (float-time)))
            (cl-letf* ((real-checkout (symbol-function 'gemini-ls--checkout))
                       ((symbol-function 'gemini-ls--checkout)
                        (lambda () (and checkout (funcall real-checkout))))
                       ((symbol-function 'y-or-n-p) (lambda (q) (push q asked) t)))
              (let ((result (gemini-ls-test--install)))
                (should (equal result (list (expand-file-name "gemini-ls" gemini-ls-install-dir) nil)))))
            (should (< (- (float-time) started) 10))
            (should (= 1 (length asked)))
            (should (string-match-p "\\`Gemini: \\(no answer from [^ ]+ in 2 s (offline\\?)\\|cannot resolve gemini-ls\\.invalid (offline\\?)\\)\\.  Build gemini-ls with Go instead (go \\(build\\|install\\) .*, minutes)\\? \\'"
                                    (car asked)))
            (should (file-executable-p (expand-file-name "gemini-ls" gemini-ls-install-dir)))
            (let ((args (split-string (gemini-ls-test--file fake "go.args") "\n" t)))
              (should (equal (nth 1 args) "CGO_ENABLED=0"))
              (if checkout
                  (progn
                    (should (equal (file-name-as-directory (nth 0 args)) (gemini-ls--checkout)))
                    (should (string-match-p "\\`build -o /.*/gemini-ls \\./cmd/gemini-ls\\'" (nth 3 args))))
                (should (equal (nth 3 args) (concat "install " gemini-ls-go-package)))
                (should (equal (concat "GOBIN=" (nth 0 args)) (nth 2 args)))))
            (delete-directory (file-name-directory (directory-file-name gemini-ls-install-dir)) t)))
      (delete-process silent)
      (delete-directory fake t))))

(ert-deftest gemini-ls-test-install-server-unresolved-name ()
  "A release host whose name does not resolve is offline at once.
No download is begun (url.el is never called, so no time-out is waited
for), and the build with Go is offered from the clone the package came
from, go build there."
  (let* ((fake (make-temp-file "gemini-fake-go" t))
         (exec-path (cons fake exec-path))
         (gemini-ls-install-dir (expand-file-name "bin/" (make-temp-file "gemini-install" t)))
         (gemini-ls-release-url "https://releases.gemini-ls.example/latest/")
         (url-proxy-services nil)
         (looked-up nil) (retrieved nil) (asked nil)
         (inhibit-message t))
    (gemini-ls-test--fake-go fake)
    (unwind-protect
        (cl-letf (((symbol-function 'network-lookup-address-info)
                   (lambda (host &rest _) (push host looked-up) nil))
                  ((symbol-function 'url-retrieve)
                   (lambda (url &rest _) (push url retrieved) (error "Not to be called")))
                  ((symbol-function 'y-or-n-p) (lambda (q) (push q asked) nil)))
          (let ((result (gemini-ls-test--install)))
            (should-not (car result))
            (should (equal (cadr result) "cannot resolve releases.gemini-ls.example (offline?); M-x gemini-ls-build-server builds it with Go")))
          (should (equal looked-up '("releases.gemini-ls.example")))
          (should-not retrieved)
          (should (equal asked
                         (list (format "Gemini: cannot resolve releases.gemini-ls.example (offline?).  Build gemini-ls with Go instead (go build in %s, minutes)? "
                                       (abbreviate-file-name (gemini-ls--checkout)))))))
      (delete-directory fake t)
      (delete-directory (file-name-directory (directory-file-name gemini-ls-install-dir)) t))))

(ert-deftest gemini-ls-test-install-knows-its-clone ()
  "A package made by make emacs-package knows the clone it was built in.
Installed away from it (package-install-file), it names the clone in its
file gemini-ls-clone: the build with Go is go build there.  A clone
gone, or a directory that is no gemini-ls checkout, is not taken."
  (let* ((root (gemini-ls--checkout))
         (elpa (make-temp-file "gemini-elpa" t))
         (clone-file (expand-file-name "gemini-ls-clone" elpa)))
    (should root)
    (unwind-protect
        (cl-letf (((symbol-function 'locate-library)
                   (lambda (&rest _) (expand-file-name "gemini-ls.el" elpa))))
          (should-not (gemini-ls--checkout))
          (should (equal (car (gemini-ls--build-command elpa))
                         (list "go" "install" gemini-ls-go-package)))
          (with-temp-file clone-file (insert (directory-file-name root) "\n"))
          (should (equal (gemini-ls--checkout) root))
          (pcase-let ((`(,command ,_env ,where ,words) (gemini-ls--build-command elpa)))
            (should (equal (cl-subseq command 0 2) '("go" "build")))
            (should (equal where root))
            (should (equal words (concat "go build in " (abbreviate-file-name root)))))
          (with-temp-file clone-file (insert elpa "\n"))
          (should-not (gemini-ls--checkout))
          (with-temp-file clone-file (insert "relative/path\n"))
          (should-not (gemini-ls--checkout)))
      (delete-directory elpa t))))

(ert-deftest gemini-ls-test-build-failure-says-what-next ()
  "When Go cannot build gemini-ls, the message names what works next:
make install in the clone, or `gemini-ls-server-command'; and in no clone,
a clone's make install."
  (let* ((fake (make-temp-file "gemini-fake-go" t))
         (exec-path (cons fake exec-path))
         (gemini-ls-install-dir (expand-file-name "bin/" (make-temp-file "gemini-install" t)))
         (inhibit-message t))
    (with-temp-file (expand-file-name "go" fake)
      (insert "#!/bin/sh\necho 'go: cannot reach proxy.golang.org' >&2\nexit 1\n"))
    (set-file-modes (expand-file-name "go" fake) #o755)
    (unwind-protect
        (dolist (clone (list (gemini-ls--checkout) nil))
          (cl-letf* ((real (symbol-function 'gemini-ls--checkout))
                     ((symbol-function 'gemini-ls--checkout)
                      (lambda () (and clone (funcall real)))))
            (let (result)
              (gemini-ls-build-server (lambda (bin why) (setq result (list bin why))))
              (with-timeout (30 (error "The build did not end within 30 s"))
                (while (not result) (accept-process-output nil 0.05)))
              (should-not (car result))
              (should (equal (cadr result)
                             (format "%s failed: go: cannot reach proxy.golang.org\nNext: run make install in %s, or set gemini-ls-server-command to a gemini-ls you have"
                                     (if clone "build" "install")
                                     (if clone (abbreviate-file-name (directory-file-name clone))
                                       "a clone of https://github.com/gemini-ls/gemini-ls")))))))
      (delete-directory fake t)
      (delete-directory (file-name-directory (directory-file-name gemini-ls-install-dir)) t))))

(ert-deftest gemini-ls-test-install-server-offline-declined ()
  "Offline, no to the build with Go installs nothing and says how to build.
Without Go, nothing is asked and the install says where Go comes from."
  (let* ((silent (gemini-ls-test--silent-server))
         (fake (make-temp-file "gemini-fake-go" t))
         (gemini-ls-install-dir (expand-file-name "bin/" (make-temp-file "gemini-install" t)))
         (gemini-ls-release-url (format "http://127.0.0.1:%d/" (process-contact silent :service)))
         (gemini-ls-install-connect-timeout 1)
         (inhibit-message t))
    (gemini-ls-test--fake-go fake)
    (unwind-protect
        (progn
          (let ((exec-path (cons fake exec-path)))
            (cl-letf (((symbol-function 'y-or-n-p) (lambda (_q) nil)))
              (let ((result (gemini-ls-test--install)))
                (should-not (car result))
                (should (equal (cadr result) "no answer from 127.0.0.1 in 1 s (offline?); M-x gemini-ls-build-server builds it with Go")))))
          (should-not (file-exists-p (expand-file-name "go.args" fake)))
          (let ((exec-path (list (expand-file-name "empty" fake))) ; no go
                (asked nil))
            (cl-letf (((symbol-function 'y-or-n-p) (lambda (q) (push q asked) t)))
              (let ((result (gemini-ls-test--install)))
                (should-not (car result))
                (should (string-match-p "\\`no answer from 127\\.0\\.0\\.1 in 1 s (offline\\?); with Go installed (https://go\\.dev/dl/), M-x gemini-ls-build-server builds it\\'"
                                        (cadr result)))))
            (should-not asked))
          (should-not (file-exists-p gemini-ls-install-dir)))
      (delete-process silent)
      (delete-directory fake t))))

(ert-deftest gemini-ls-test-install-progress-fits ()
  "The install's progress is one line the echo area holds.
The hint to cancel goes where the line would not fit, then the words
are cut."
  (let ((install (list :what "downloading gemini-ls-linux-amd64.tar.gz"
                       :started (time-subtract (current-time) 12))))
    (should (equal (gemini-ls--install-progress-line install 200)
                   "Gemini: downloading gemini-ls-linux-amd64.tar.gz… 12 s (M-x gemini-ls-install-cancel stops it)"))
    (should (equal (gemini-ls--install-progress-line install 80)
                   "Gemini: downloading gemini-ls-linux-amd64.tar.gz… 12 s"))
    (should (equal (gemini-ls--install-progress-line install 30)
                   "Gemini: downloading gemini-ls…"))))

(ert-deftest gemini-ls-test-header-without-server ()
  "The chat's header says there is no server, and how to get one.
Not \"ready\": while one installs, it says what the install does."
  (let* ((gemini-ls-server-command nil)
         (gemini-ls-install-dir (make-temp-file "gemini-install" t))
         (exec-path (list gemini-ls-install-dir))
         (gemini-ls--servers nil))
    (unwind-protect
        (progn
          (should (equal (gemini-ls-test--header) "no server: M-x gemini-ls-install-server"))
          (let ((gemini-ls--install (list :what "downloading SHA256SUMS")))
            (should (equal (gemini-ls-test--header) "installing gemini-ls: downloading SHA256SUMS")))
          (let ((gemini-ls-server-command (getenv "GEMINI_LS_BIN")))
            (should (equal (gemini-ls-test--header) "not running: the next prompt starts it"))))
      (delete-directory gemini-ls-install-dir t))))

(ert-deftest gemini-ls-test-install-server-cancel ()
  "\[gemini-ls-install-cancel] stops the install under way.
Its tar (a stand-in on PATH that waits until the test lets it) is
stopped, nothing is installed, its directory is removed and another
install can start."
  (let* ((release (make-temp-file "gemini-release" t))
         (fake (make-temp-file "gemini-fake-tar" t))
         (gemini-ls-install-dir (expand-file-name "bin/" (make-temp-file "gemini-install" t)))
         (gemini-ls-release-url (concat "file://" release "/"))
         (exec-path (cons fake exec-path))
         (inhibit-message t)
         messages)
    (unwind-protect
        (progn
          (gemini-ls-test--release release)
          (with-temp-file (expand-file-name "tar" fake)
            (insert "#!/bin/sh\necho $$ >\"$(dirname \"$0\")/pid\"\n"
                    "while [ ! -e \"$(dirname \"$0\")/go-on\" ]; do sleep 0.1; done\n"))
          (set-file-modes (expand-file-name "tar" fake) #o755)
          (cl-letf* ((real-message (symbol-function 'message))
                     ((symbol-function 'message)
                      (lambda (fmt &rest args)
                        (when fmt (push (apply #'format fmt args) messages))
                        (apply real-message fmt args))))
            (gemini-ls-install-server)
            (with-timeout (10 (error "The stand-in tar did not start"))
              (while (not (file-exists-p (expand-file-name "pid" fake)))
                (accept-process-output nil 0.05)))
            (let ((tar (plist-get gemini-ls--install :process))
                  (tmp (plist-get gemini-ls--install :tmp)))
              (should (process-live-p tar))
              (should (equal (plist-get gemini-ls--install :what)
                             (concat "unpacking " (gemini-ls--release-archive))))
              (should (equal (cadr (should-error (gemini-ls-install-server) :type (quote user-error)))
                             (format "Gemini: gemini-ls is being installed already (unpacking %s); M-x gemini-ls-install-cancel stops it"
                                     (gemini-ls--release-archive))))
              (gemini-ls-install-cancel)
              (should-not gemini-ls--install)
              (should-not (process-live-p tar))
              (should-not (file-exists-p tmp))
              (should (string-match-p "\\`Gemini: the install was cancelled after [0-9]+ s; nothing was installed\\'"
                                      (car messages)))))
          (with-temp-file (expand-file-name "go-on" fake))
          (accept-process-output nil 0.3)
          (should-not (file-exists-p gemini-ls-install-dir))
          (should-error (gemini-ls-install-cancel) :type 'user-error)
          ;; The next install starts afresh, with the real tar.
          (let ((exec-path (cdr exec-path)))
            (should (equal (car (gemini-ls-test--install))
                           (expand-file-name "gemini-ls" gemini-ls-install-dir)))))
      (delete-directory fake t)
      (delete-directory release t))))

(ert-deftest gemini-ls-test-set-approval-mode ()
  "`gemini-ls-set-approval-mode' sets every session's mode.
One that switched itself into plan mode too; the header line shows the
mode the server says it runs in (`gemini/models')."
  (let ((process-environment (cons "GEMINI_CLI_TRUST_WORKSPACE=true" process-environment)))
    (gemini-ls-test--with-server
        (vector '((chunks . [((call . ((name . "enter_plan_mode")
                                        (args . ((reason . "design first"))))))]))
                '((text . "Planning now.")))
        '(("a.txt" . "x\n"))
      (cl-letf (((symbol-function 'read-multiple-choice)
                 (lambda (_prompt choices &rest _) (assq ?y choices))))
        (gemini-ls-test--prompt buf "plan it"))
      (should (gemini-ls-test--header-after-turn-p "ready · gemini-test · plan"))
      ;; The default mode, which the server runs in already, takes the
      ;; session out of plan mode: the server says so too.
      (with-current-buffer buf (gemini-ls-set-approval-mode "default"))
      (gemini-ls-test--wait (lambda () (gemini-ls-test--header-after-turn-p "ready · gemini-test"))
                            "the header line to show the default mode")
      (should (equal (plist-get (jsonrpc-request server :gemini/resumeSession
                                                 (list :sessionId (gemini-ls--chat-value
                                                                   'gemini-ls--session-id)))
                                :mode)
                     "default"))
      (with-current-buffer buf (gemini-ls-set-approval-mode "auto_edit"))
      (gemini-ls-test--wait (lambda () (gemini-ls-test--header-after-turn-p
                                        "ready · gemini-test · auto-accept edits"))
                            "the header line to show the new mode")
      (with-current-buffer buf (gemini-ls-set-approval-mode "default"))
      (gemini-ls-test--wait (lambda () (gemini-ls-test--header-after-turn-p "ready · gemini-test"))
                            "the header line to show the default mode"))))

(ert-deftest gemini-ls-test-set-approval-mode-refused ()
  "In a folder that is not trusted only the default mode runs.
The header line shows the mode the server runs in, not the one asked for."
  (gemini-ls-test--with-server [] '(("a.txt" . "x\n"))
    (gemini-ls-test--wait (lambda () (equal (gemini-ls-test--header) "ready · gemini-test"))
                          "the header line to show the model")
    (let ((asked nil))
      (gemini-ls-test--recording-requests asked
        (with-current-buffer buf (gemini-ls-set-approval-mode "yolo")))
      (gemini-ls-test--wait (lambda () (nth 2 (car (gemini-ls-test--sent :gemini/models asked))))
                            "the server to say its mode")
      (should (equal (plist-get (cadr (nth 2 (car (gemini-ls-test--sent :gemini/models asked))))
                                :approvalMode)
                     "default")))
    (should (equal (gemini-ls-test--header) "ready · gemini-test"))))

(ert-deftest gemini-ls-test-subagent-report-prose ()
  "A subagent's structured report reads as prose, not JSON.
Its summary, then its other fields folded under one line, which TAB or
RET unfolds."
  (when (get-buffer "*gemini*") (kill-buffer "*gemini*"))
  (gemini-ls-test--with-server [] '(("a.txt" . "one\n"))
    (let ((sub '(:parentCallId "call_1" :agentName "codebase_investigator"))
          (report (concat "```json\n"
                          "{\"SummaryOfFindings\": \"The project is one file, numbers.txt.\",\n"
                          " \"ExplorationTrace\": [\"Listed the project root.\", \"Read numbers.txt.\"],\n"
                          " \"RelevantLocations\": [{\"FilePath\": \"numbers.txt\", \"Reasoning\": \"The only file.\", \"KeySymbols\": []}]}\n"
                          "```")))
      (dolist (u `(("toolCall" :callId "call_1" :name "invoke_agent"
                    :title "Delegating to agent 'codebase_investigator'")
                   ("toolCall" ,@sub :callId "call_1" :name "read_file" :title "ReadFile numbers.txt")
                   ("toolResult" ,@sub :callId "call_1" :name "read_file" :status "ok")
                   ("toolResult" :callId "call_1" :name "invoke_agent" :status "ok" :display ,report)
                   ("text" :text "One file.")))
        (apply #'eglot-handle-notification server 'gemini/update
               :sessionId "S" :kind (car u) (cdr u))))
    (should (equal (concat "- Delegating to agent 'codebase_investigator' [ok]\n"
                           "  codebase_investigator:\n"
                           "    - ReadFile numbers.txt [ok]\n"
                           "    Report: The project is one file, numbers.txt.\n"
                           "    ▸ Details: exploration trace, relevant locations\n"
                           "      Exploration trace:\n"
                           "        - Listed the project root.\n"
                           "        - Read numbers.txt.\n"
                           "      Relevant locations:\n"
                           "        - File path: numbers.txt\n"
                           "          Reasoning: The only file.\n"
                           "One file.")
                   (gemini-ls-test--chat)))
    (with-current-buffer "*gemini*"
      (goto-char (point-min))
      (let ((case-fold-search nil)) (search-forward "Exploration trace:"))
      (let ((details (match-beginning 0)))
        (should (invisible-p details))
        (search-backward "Details:")
        ;; TAB as typed: the button's own keys come first.
        (call-interactively (key-binding (kbd "TAB")))
        (should-not (invisible-p details))
        (should (looking-back "▾ " (line-beginning-position)))
        (search-backward "▾")
        (push-button)
        (should (invisible-p details))
        (should (looking-at "▸ Details"))))))

(ert-deftest gemini-ls-test-report-object ()
  "A report is read as a JSON object, fenced or bare; text is left as text."
  (should (equal (gemini-ls--report-object "```json\n{\"A\": 1}\n```") '((A . 1))))
  (should (equal (gemini-ls--report-object " {\"a_b\": [\"x\"]} ") '((a_b . ["x"]))))
  (should-not (gemini-ls--report-object "The parser is in a.go."))
  (should-not (gemini-ls--report-object "{not json"))
  (should (equal (gemini-ls--field-words 'SummaryOfFindings) "Summary of findings"))
  (should (equal (gemini-ls--field-words 'key_symbols) "Key symbols"))
  ;; Without a summary, the whole report shows as prose, unfolded.
  (with-temp-buffer
    (gemini-ls--insert-report "{\"Files\": [\"a.go\"], \"Done\": true}" 2)
    (should (equal (buffer-string) "  Report:\n    Files:\n      - a.go\n    Done: yes\n"))))

(ert-deftest gemini-ls-test-new-session-clears-the-chat ()
  "A new session starts on an empty chat; what is typed stays."
  (when (get-buffer "*gemini*") (kill-buffer "*gemini*"))
  (gemini-ls--insert-update "text" '(:text "the old session's answer"))
  (with-current-buffer (gemini-ls--chat-buffer)
    (gemini-ls--set-input "a draft")
    (setq gemini-ls--session-id "S1")
    (gemini-ls-new-session)
    (should (equal (gemini-ls-test--chat) ""))
    (should-not gemini-ls--session-id)
    (should (equal (gemini-ls--input) "a draft"))))

(ert-deftest gemini-ls-test-chat-wraps-at-words ()
  "The chat wraps long lines at words, a tool's line under its title."
  (when (get-buffer "*gemini*") (kill-buffer "*gemini*"))
  (gemini-ls--insert-update "toolCall" '(:callId "c1" :name "read_file" :title "ReadFile a.go"))
  (with-current-buffer (gemini-ls--chat-buffer)
    (should visual-line-mode)
    (goto-char (point-min))
    (should (equal (get-text-property (point) 'wrap-prefix) "  "))))

(ert-deftest gemini-ls-test-menu ()
  "A transient menu has the chat's commands, as agent-shell's has.
On \\<gemini-ls-chat-mode-map>\\[gemini-ls-menu] in the chat: send, cancel (while a prompt runs),
new session, sessions, delete a session, the agents, rewind (once
there is a session), model, approval mode; in a file, the prompt and
the region's commands too."
  (when (get-buffer "*gemini*") (kill-buffer "*gemini*"))
  (cl-flet ((offered ()
              (transient-setup 'gemini-ls-menu)
              (unwind-protect
                  (mapcar (lambda (o) (list (oref o key) (oref o command) (oref o inapt)))
                          (cl-remove-if (lambda (o) (string-prefix-p "transient-"
                                                                     (symbol-name (oref o command))))
                                        transient--suffixes))
                ;; As after an error: the menu's keymaps and hooks go.
                (transient--emergency-exit))))
    (with-current-buffer (gemini-ls--chat-buffer)
      (should (eq (key-binding (kbd "C-c C-d")) #'gemini-ls-menu))
      (should (equal (offered)
                     '(("p" gemini-ls-chat-send nil) ("k" gemini-ls-cancel t)
                       ("n" gemini-ls-new-session nil) ("s" gemini-ls-sessions nil)
                       ("x" gemini-ls-delete-session nil)
                       ("A" gemini-ls-agents nil) ("b" gemini-ls-background nil)
                       ("w" gemini-ls-rewind t)
                       ("m" gemini-ls-model nil) ("a" gemini-ls-set-approval-mode nil)
                       ("t" gemini-ls-toggle-thoughts nil) ("l" gemini-ls-login nil))))
      (setq gemini-ls--busy t gemini-ls--session-id "S")
      (unwind-protect
          (let ((shown (offered)))
            (should (member '("k" gemini-ls-cancel nil) shown))
            (should (member '("w" gemini-ls-rewind nil) shown)))
        (setq gemini-ls--busy nil gemini-ls--session-id nil)))
    (with-temp-buffer
      (insert "some code")
      (transient-mark-mode 1)
      (push-mark (point-min) t t)
      (let ((shown (offered)))
        (should (member '("p" gemini-ls-prompt nil) shown))
        (should (member '("r" gemini-ls-prompt-region nil) shown))
        (should (member '("E" gemini-ls-edit-region nil) shown))
        (should (member '("c" gemini-ls-chat nil) shown))))))

(ert-deftest gemini-ls-test-plan-question ()
  "A plan to approve is asked about in a line, not with the whole plan.
The server has shown it; eglot 1.9, which shows no document, has the
package show it."
  (let ((params '(:kind "plan_approval" :title "Plan Approval" :text "# Plan\n\n1. Cache.\n"
                  :options [(:id "a" :label "Yes, automatically accept edits")]
                  :freeText t)))
    (should (equal (gemini-ls--question-prompt params)
                   "Plan Approval: approve the plan shown? (or type what to change) ")))
  (let* ((file (make-temp-file "gemini-plan" nil ".md" "# Plan\n\nOne.\nTwo.\n"))
         (shown nil))
    (unwind-protect
        (cl-letf (((symbol-function 'pop-to-buffer) (lambda (b &rest _) (setq shown b))))
          (should (equal (gemini-ls--show-document
                          (gemini-ls--uri file) t
                          '(:start (:line 2 :character 0) :end (:line 2 :character 0)))
                         '(:success t)))
          (should (equal (buffer-file-name shown) file))
          (with-current-buffer shown (should (looking-at "One\\."))))
      (when shown (kill-buffer shown))
      (delete-file file))))

(defconst gemini-ls-test--dir
  (file-name-directory (or load-file-name buffer-file-name))
  "The directory of the tests.")

(ert-deftest gemini-ls-test-checkdoc-clean ()
  "\\[checkdoc] finds nothing in the package's files nor in its tests."
  (dolist (file (append (directory-files (expand-file-name ".." gemini-ls-test--dir)
                                         t "\\`gemini-ls.*\\.el\\'")
                        (directory-files gemini-ls-test--dir t "\\`gemini-ls.*-test\\.el\\'")))
    (let ((found nil)
          (existing (find-buffer-visiting file)))
      (cl-letf (((symbol-function 'warn)
                 (lambda (format &rest args) (push (apply #'format-message format args) found))))
        (checkdoc-file file))
      (unless existing (kill-buffer (find-buffer-visiting file)))
      (should (equal (list file nil) (list file (reverse found)))))))

(ert-deftest gemini-ls-test-plan-document-shown ()
  "The plan the server shows (`window/showDocument') opens in Emacs.
With eglot 1.9, which has no such method, and a newer eglot alike."
  (gemini-ls-test--with-server [] '(("a.txt" . "x\n"))
    (let ((plan (expand-file-name "plan.md" dir)))
      (with-temp-file plan (insert "# Plan\n\nOne.\n"))
      (should (equal (eglot-handle-request server 'window/showDocument
                                           :uri (gemini-ls--uri plan) :takeFocus t)
                     '(:success t)))
      ;; Emacs 30's eglot shows it from a timer.
      (gemini-ls-test--wait
       (lambda () (equal (buffer-file-name (window-buffer (selected-window))) plan))
       "the plan in the selected window"))))

(ert-deftest gemini-ls-test-prompt-shown-from-an-empty-page ()
  "A prompt sent from a window showing the prompt area alone shows.
As on a new session's empty page: the window scrolls back to the
exchange, which grows above the prompt area."
  (gemini-ls-test--with-server [((text . "Answered."))] '(("a.txt" . "x\n"))
    (switch-to-buffer (gemini-ls--chat-buffer))
    (delete-other-windows)
    (set-window-start (selected-window) gemini-ls--input-start)
    (gemini-ls--set-input "a question")
    (gemini-ls-chat-send)
    (gemini-ls-test--wait-done)
    (should (string-match-p "Answered\\." (gemini-ls-test--chat)))
    (should (= (window-start) (point-min)))))

(defun gemini-ls-test--fix-labels ()
  "The labels of the fix buttons in the chat, in order."
  (with-current-buffer "*gemini*"
    (let (labels (pos (point-min)))
      (while (setq pos (next-button pos))
        (when (eq (button-type pos) 'gemini-ls-fix)
          (push (button-label pos) labels))
        (setq pos (button-end pos)))
      (nreverse labels))))

(ert-deftest gemini-ls-test-fixes-follow-the-error-kind ()
  "A failed prompt's fixes are buttons in the chat chosen from its errorKind.
An invalid key offers to sign in; a day's quota used up, another model,
the quota page and a retry; a connection the model drops, a retry, whose
button sends the prompt again.  Each from the real server against the
fake; the buttons are the fix of the kind, never of the message's words."
  (gemini-ls-test--with-server
      (vector '((error . ((code . 400) (status . "INVALID_ARGUMENT")
                          (message . "API key not valid. Please pass a valid API key.")
                          (details . [((@type . "type.googleapis.com/google.rpc.ErrorInfo")
                                       (reason . "API_KEY_INVALID") (domain . "googleapis.com"))]))))
              '((error . ((code . 429) (status . "RESOURCE_EXHAUSTED") (retryDelay . "26s")
                          (message . "You exceeded your current quota.")
                          (details . [((@type . "type.googleapis.com/google.rpc.QuotaFailure")
                                       (violations . [((quotaId . "GenerateRequestsPerDayPerProjectPerModel-FreeTier")
                                                       (quotaValue . "250"))]))]))))
              '((cut . t)) '((cut . t)) '((cut . t)) '((cut . t))
              '((text . "Back online.")))
      '(("a.txt" . "one\n"))
    (let ((gemini-ls-test--timeout 40)
          (warning-minimum-log-level :emergency))
      (gemini-ls-test--prompt buf "hello")
      (should (equal (buffer-local-value 'gemini-ls--error-kind (get-buffer "*gemini*")) "invalid_api_key"))
      (should (equal (gemini-ls-test--fix-labels) '("[Sign in with Google]")))
      (gemini-ls-test--prompt buf "again")
      (should (equal (buffer-local-value 'gemini-ls--error-kind (get-buffer "*gemini*")) "quota"))
      (should (equal (gemini-ls-test--fix-labels)
                     '("[Sign in with Google]" "[Switch model]" "[Open the quota page]" "[Retry]")))
      (gemini-ls-test--prompt buf "once more")
      (should (equal (buffer-local-value 'gemini-ls--error-kind (get-buffer "*gemini*")) "network"))
      (let ((retry (car (last (gemini-ls-test--fix-labels)))))
        (should (equal retry "[Retry]")))
      ;; The last button, Retry, sends "once more" again.
      (with-current-buffer "*gemini*"
        (let ((pos (point-max)) button)
          (while (and (not button) (setq pos (previous-button pos)))
            (when (eq (button-type pos) 'gemini-ls-fix) (setq button pos)))
          (push-button (button-start button))))
      (gemini-ls-test--wait-done)
      (should (string-match-p "## You\n\nonce more\n\n## Gemini\n\nBack online\\." (gemini-ls-test--chat)))
      (should-not (buffer-local-value 'gemini-ls--error-kind (get-buffer "*gemini*"))))))

;;;; Agents (gemini-ls-agents.el)

(defun gemini-ls-test--agent (name state &rest props)
  "An Agent as the server sends it: NAME's worktree, in STATE, with PROPS."
  (append props
          (list :sessionId (concat "S-" name) :title (concat "Task " name) :state state
                :worktree (list :name name :path (concat "/p/.gemini/worktrees/" name)
                                :branch (concat "worktree-" name) :base "abc123")
                :startedAt "2026-11-20T10:00:00Z" :tokens 0 :files [])))

(defmacro gemini-ls-test--messages (var &rest body)
  "Run BODY, pushing on VAR each message shown, newest first."
  (declare (indent 1))
  `(let ((orig (symbol-function 'message)))
     (cl-letf (((symbol-function 'message)
                (lambda (fmt &rest args)
                  (when fmt (push (apply #'format-message fmt args) ,var))
                  (apply orig fmt args))))
       ,@body)))

(defun gemini-ls-test--agents-view ()
  "Return the agents view's text."
  (with-current-buffer "*gemini agents*" (buffer-substring-no-properties (point-min) (point-max))))

(ert-deftest gemini-ls-test-agent-entry ()
  "An agent's row has its task, state (in its face), time, tokens and files.
How long it ran: to now while it works, to its end after."
  (let* ((now (encode-time (iso8601-parse "2026-11-20T10:03:04Z")))
         (working (gemini-ls-test--agent "fix-login" "working" :tokens 12345
                                         :files [(:path "a.go" :added 3 :removed 1 :status "modified")
                                                 (:path "b.go" :added 9 :removed 0 :status "added")]))
         (done (gemini-ls-test--agent "docs" "done" :endedAt "2026-11-20T10:00:42Z" :tokens 950
                                      :files [(:path "README.md" :added 1 :removed 2 :status "modified")]))
         (row (gemini-ls--agent-entry working now)))
    (should (equal (car row) "S-fix-login"))
    (should (equal (append (cadr row) nil)
                   '("Task fix-login" "working" "3m 04s" "12.3k" "2 files +12 −1" "")))
    (should (eq (get-text-property 0 'face (aref (cadr row) 1)) 'gemini-ls-agent-working))
    (should (equal (append (cadr (gemini-ls--agent-entry done now)) nil)
                   '("Task docs" "done" "42s" "950" "1 file +1 −2" "")))
    (dolist (state '("waiting" "done" "failed" "stopped"))
      (should (eq (get-text-property 0 'face (aref (cadr (gemini-ls--agent-entry
                                                          (gemini-ls-test--agent "x" state) now))
                                                   1))
                  (intern (concat "gemini-ls-agent-" state)))))
    ;; A worktree found on disk with no session: keyed by its name, no
    ;; times, no files.
    (let ((bare (gemini-ls-test--agent "old" "stopped" :sessionId "" :startedAt nil :title "")))
      (should (equal (gemini-ls--agent-key bare) "worktree:old"))
      (should (equal (append (cadr (gemini-ls--agent-entry bare now)) nil)
                     '("(untitled)" "stopped" "" "0" "" ""))))
    (should (equal (gemini-ls--duration 3725) "1h 02m"))))

(ert-deftest gemini-ls-test-agent-notifications ()
  "`gemini/agent' keeps the server's list and the view live.
A new agent first, a change in place, a discarded one gone; the user is
told once when an agent waits, is done or fails, and not of one at work."
  (gemini-ls-test--with-server [] '(("a.txt" . "x\n"))
    (let (said)
      (gemini-ls-test--messages said
        (with-current-buffer buf (gemini-ls-agents))
        (should (string-match-p "No agents yet: \\+ starts one" (gemini-ls-test--agents-view)))
        (dolist (agent (list (gemini-ls-test--agent "alpha" "working")
                             (gemini-ls-test--agent "beta" "working")))
          (apply #'eglot-handle-notification server 'gemini/agent agent))
        (should (equal (mapcar (lambda (a) (plist-get a :sessionId))
                               (gemini-ls--server-agents server))
                       '("S-beta" "S-alpha")))
        (should (string-match-p "Task beta +working.*\n.*Task alpha +working"
                                (gemini-ls-test--agents-view)))
        (should-not (string-match-p "No agents yet" (gemini-ls-test--agents-view)))
        (should-not (cl-find-if (lambda (m) (string-match-p "agent “" m)) said))
        ;; The view counts the time of agents at work.
        (should (timerp (buffer-local-value 'gemini-ls--agents-timer
                                            (get-buffer "*gemini agents*"))))
        (apply #'eglot-handle-notification server 'gemini/agent
               (gemini-ls-test--agent "alpha" "waiting" :question "Allow rm -rf build?"))
        (should (equal (car said) "Gemini: the agent “alpha” waits for you: Allow rm -rf build?"))
        (apply #'eglot-handle-notification server 'gemini/agent
               (gemini-ls-test--agent "alpha" "done" :endedAt "2026-11-20T10:01:00Z" :tokens 2048
                                      :files [(:path "a.txt" :added 1 :removed 1 :status "modified")]))
        (should (string-match-p "\\`Gemini: the agent “alpha” is done (1 file \\+1 −1)" (car said)))
        (should (string-match-p "Task alpha +done +1m 00s +2k +1 file \\+1 −1"
                                (gemini-ls-test--agents-view)))
        ;; The same state again (its tokens counted): nothing more told.
        (setq said nil)
        (apply #'eglot-handle-notification server 'gemini/agent
               (gemini-ls-test--agent "alpha" "done" :endedAt "2026-11-20T10:01:00Z" :tokens 4096))
        (should-not (cl-find-if (lambda (m) (string-match-p "agent “" m)) said))
        (apply #'eglot-handle-notification server 'gemini/agent
               (gemini-ls-test--agent "beta" "failed" :error "The model is out of quota."))
        (should (equal (car said) "Gemini: the agent “beta” failed: The model is out of quota."))
        ;; No agent at work: the timer stops.
        (should-not (buffer-local-value 'gemini-ls--agents-timer (get-buffer "*gemini agents*")))
        (apply #'eglot-handle-notification server 'gemini/agent
               (gemini-ls-test--agent "beta" "discarded"))
        (should (equal (mapcar (lambda (a) (plist-get a :sessionId))
                               (gemini-ls--server-agents server))
                       '("S-alpha")))
        (should-not (string-match-p "Task beta" (gemini-ls-test--agents-view)))
        (kill-buffer "*gemini agents*")))))

(ert-deftest gemini-ls-test-agent-updates-stay-out-of-chat ()
  "An agent's updates and answers stay out of the chat, unless it shows it.
The chat shows its own session until it shows the agent's."
  (gemini-ls-test--with-server [] '(("a.txt" . "x\n"))
    (apply #'eglot-handle-notification server 'gemini/agent
           (gemini-ls-test--agent "alpha" "working"))
    (with-current-buffer (gemini-ls--chat-buffer) (setq gemini-ls--session-id nil))
    (eglot-handle-notification server 'gemini/update
                               :sessionId "S-alpha" :kind "text" :text "agent's words")
    (should-not (string-match-p "agent's words" (gemini-ls-test--chat)))
    ;; It did not become the chat's session either.
    (should-not (buffer-local-value 'gemini-ls--session-id (get-buffer "*gemini*")))
    (gemini-ls--record-answer '(:sessionId "S-alpha" :text "Which?" :options [])
                              '(:declined t))
    (should-not (string-match-p "Which\\?" (gemini-ls-test--chat)))
    ;; The chat's own session shows as ever.
    (eglot-handle-notification server 'gemini/update
                               :sessionId "S-chat" :kind "text" :text "chat's words")
    (should (string-match-p "chat's words" (gemini-ls-test--chat)))
    ;; The chat showing the agent's session shows its updates.
    (with-current-buffer (gemini-ls--chat-buffer) (setq gemini-ls--session-id "S-alpha"))
    (eglot-handle-notification server 'gemini/update
                               :sessionId "S-alpha" :kind "text" :text " more agent words")
    (should (string-match-p "more agent words" (gemini-ls-test--chat)))))

(ert-deftest gemini-ls-test-agent-questions-name-it ()
  "A confirmation or a question of an agent's session names the agent.
The chat's own are asked as before."
  (gemini-ls-test--with-server [] '(("a.txt" . "x\n"))
    (apply #'eglot-handle-notification server 'gemini/agent
           (gemini-ls-test--agent "fix-login" "waiting"))
    (let (asked)
      (cl-letf (((symbol-function 'read-multiple-choice)
                 (lambda (prompt choices &rest _) (push prompt asked) (car choices))))
        (gemini-ls--confirm '(:sessionId "S-fix-login" :callId "c1" :kind "execute"
                                         :title "Allow shell command?" :details "rm -rf build"))
        (should (equal (car asked) "Agent “fix-login”: Allow shell command? rm -rf build"))
        (gemini-ls--confirm '(:sessionId "S-chat" :callId "c1" :kind "execute"
                                         :title "Allow shell command?" :details "ls"))
        (should (equal (car asked) "Allow shell command? ls"))))
    (should (equal (gemini-ls--question-prompt
                    '(:sessionId "S-fix-login" :title "Database" :text "Which one?"))
                   "Agent “fix-login”: Database: Which one? "))
    (should (equal (gemini-ls--question-prompt '(:sessionId "S-chat" :text "Which one?"))
                   "Which one? "))))

(ert-deftest gemini-ls-test-agents-view-keys ()
  "The view's keys send what docs/protocol.md asks.
+ sends a prompt with its worktree (a name, or t for a generated
one), k `gemini/cancel', l and M `gemini/landAgent' (M once the user
agrees), D `gemini/discardAgent';
landing's answer shows its sentence, files and conflicts with both
sides in *gemini land*."
  (gemini-ls-test--with-server [] '(("a.txt" . "x\n"))
    (let (sent notified answers said)
      (cl-letf (((symbol-function 'jsonrpc-async-request)
                 (lambda (_conn method params &rest args)
                   (push (cons method params) sent)
                   (let ((answer (alist-get method answers)))
                     (when answer (funcall (plist-get args :success-fn) answer)))))
                ((symbol-function 'jsonrpc-notify)
                 (lambda (_conn method params) (push (cons method params) notified)))
                ((symbol-function 'yes-or-no-p) (lambda (_) t)))
        (gemini-ls-test--messages said
          (with-current-buffer buf (gemini-ls-agents))
          (should (equal (car (pop sent)) :gemini/agents))
          (apply #'eglot-handle-notification server 'gemini/agent
                 (gemini-ls-test--agent "alpha" "working"))
          (with-current-buffer "*gemini agents*"
            (gemini-ls-agents-new "Fix the login" "fix-login")
            (should (equal (pop sent) '(:gemini/prompt :prompt "Fix the login" :worktree "fix-login")))
            (gemini-ls-agents-new "Write the docs" "  ")
            (should (equal (pop sent) '(:gemini/prompt :prompt "Write the docs" :worktree t)))
            (should-error (gemini-ls-agents-new " " "x") :type 'user-error)
            (goto-char (point-min))
            (should (equal (tabulated-list-get-id) "S-alpha"))
            (gemini-ls-agents-stop)
            (should (equal (pop notified) '(:gemini/cancel :sessionId "S-alpha")))
            ;; At work, it cannot land.
            (should-error (gemini-ls-agents-land) :type 'user-error)
            (apply #'eglot-handle-notification server 'gemini/agent
                   (gemini-ls-test--agent "alpha" "done" :endedAt "2026-11-20T10:01:00Z"))
            (should-error (gemini-ls-agents-stop) :type 'user-error)
            (setq answers
                  `((:gemini/landAgent
                     . (:applied t
                        :files [(:path "a.txt" :added 1 :removed 1 :status "modified")]
                        :left [(:path "b.txt" :reason "you unchecked it")]
                        :conflicts [(:path ,(expand-file-name "a.txt" dir) :line 1
                                           :yours "x mine\n" :theirs "x agent's")]
                        :message "Landed 1 file from alpha; 1 conflict in a.txt:1 left out (both sides below)."))))
            (goto-char (point-min))
            (gemini-ls-agents-land)
            (should (equal (pop sent) '(:gemini/landAgent :sessionId "S-alpha" :how "review")))
            (should (equal (car said) "Gemini: Landed 1 file from alpha; 1 conflict in a.txt:1 left out (both sides below)."))
            (should (equal (with-current-buffer "*gemini land*"
                             (buffer-substring-no-properties (point-min) (point-max)))
                           (concat "Landed 1 file from alpha; 1 conflict in a.txt:1 left out (both sides below).\n"
                                   "\nFiles:\n  modified  a.txt  +1 −1\n"
                                   "\nLeft out:\n  b.txt: you unchecked it\n"
                                   "\nConflicts, left out of the change (your text is as it was):\n"
                                   "\na.txt:1\n<<<<<<< yours\nx mine\n=======\nx agent's\n>>>>>>> worktree-alpha\n")))
            (gemini-ls-agents-merge)
            (should (equal (pop sent) '(:gemini/landAgent :sessionId "S-alpha" :how "merge")))
            (gemini-ls-agents-discard)
            (should (equal (pop sent) '(:gemini/discardAgent :sessionId "S-alpha")))
            ;; A worktree found on disk with no session: named by its
            ;; worktree; it has no chat to open.
            (apply #'eglot-handle-notification server 'gemini/agent
                   (gemini-ls-test--agent "old" "stopped" :sessionId ""))
            (goto-char (gemini-ls--agents-row "worktree:old"))
            (gemini-ls-agents-land)
            (should (equal (pop sent) '(:gemini/landAgent :worktree "old" :how "review")))
            (gemini-ls-agents-discard)
            (should (equal (pop sent) '(:gemini/discardAgent :worktree "old")))
            (should-error (gemini-ls-agents-open) :type 'user-error)
            (kill-buffer "*gemini land*")
            (kill-buffer)))))))

(ert-deftest gemini-ls-test-agents-view-keeps-rows ()
  "A redraw of the agents view keeps each window on its row.
Every second while an agent works, and at each `gemini/agent': a window
that is not selected stays on the agent it showed, not the first row."
  (gemini-ls-test--with-server [] '(("a.txt" . "x\n"))
    (save-window-excursion
      (delete-other-windows)
      (with-current-buffer buf (gemini-ls-agents))
      (dolist (name '("alpha" "beta" "gamma"))
        (apply #'eglot-handle-notification server 'gemini/agent
               (gemini-ls-test--agent name "working")))
      (let ((view (get-buffer-window "*gemini agents*")))
        (should view)
        (with-selected-window view
          (goto-char (gemini-ls--agents-row "S-alpha"))
          (should (equal (tabulated-list-get-id) "S-alpha")))
        ;; Another window selected, the view's redrawn.
        (select-window (or (cl-find view (window-list) :test-not #'eq) (split-window view)))
        (with-current-buffer "*gemini agents*" (goto-char (point-min)))
        (apply #'eglot-handle-notification server 'gemini/agent
               (gemini-ls-test--agent "beta" "done"))
        (with-current-buffer "*gemini agents*"
          (should (equal (save-excursion (goto-char (window-point view)) (tabulated-list-get-id))
                         "S-alpha")))))
    (kill-buffer "*gemini agents*")))

;;;; Background agents, on GitHub Actions (issue 98)

(defun gemini-ls-test--background-agent (state &rest props)
  "A background agent as the server sends it, in STATE, with PROPS.
PROPS' :pullRequest goes into its `background' object; the others are
the agent's own (:worktree, :files)."
  (let ((pull (plist-get props :pullRequest)))
    (cl-remf props :pullRequest)
    (append props
            (list :kind "background" :sessionId "" :title "Add a --verbose flag" :state state
                  :startedAt "2026-11-29T09:00:00Z"
                  :background (append (list :id "bg-1001" :repository "ada/proj" :runId 1001
                                            :runUrl "https://github.com/ada/proj/actions/runs/1001"
                                            :branch "gemini/add-a-verbose-flag-3f9a")
                                      (and pull (list :pullRequest pull)))))))

(defconst gemini-ls-test--pull '(:number 7 :url "https://github.com/ada/proj/pull/7")
  "The pull request of the background agent of the tests.")

(defconst gemini-ls-test--bg-worktree
  '(:name "add-a-verbose-flag-3f9a" :path "/p/.gemini/worktrees/add-a-verbose-flag-3f9a"
    :branch "gemini/add-a-verbose-flag-3f9a" :base "5f1c0de")
  "The local worktree of the background agent of the tests, once it is done.")

(defun gemini-ls-test--buttons (string)
  "The buttons in STRING: ((LABEL . URL)...), in order."
  (let ((pos 0) found)
    (while (setq pos (next-single-property-change pos 'button string))
      (when (get-text-property pos 'button string)
        (let ((end (or (next-single-property-change pos 'button string) (length string))))
          (push (cons (substring-no-properties string pos end)
                      (get-text-property pos 'gemini-ls-url string))
                found)
          (setq pos end))))
    (nreverse found)))

(ert-deftest gemini-ls-test-background-entry ()
  "A background agent's row says GitHub and links its run and pull request.
Keyed by its id from its dispatch on, as it has no session; queued in
its face; its files once its work is in a local worktree; no tokens,
which it spends on GitHub."
  (let* ((now (encode-time (iso8601-parse "2026-11-29T09:00:30Z")))
         (queued (gemini-ls-test--background-agent "queued"))
         (row (gemini-ls--agent-entry queued now)))
    (should (equal (car row) "background:bg-1001"))
    (should (equal (mapcar #'substring-no-properties (cadr row))
                   '("Add a --verbose flag" "queued" "30s" "" "" "GitHub: run")))
    (should (eq (get-text-property 0 'face (aref (cadr row) 1)) 'gemini-ls-agent-queued))
    (should (equal (gemini-ls-test--buttons (aref (cadr row) 5))
                   '(("run" . "https://github.com/ada/proj/actions/runs/1001"))))
    (should (string-match-p "On GitHub: ada/proj, on gemini/add-a-verbose-flag-3f9a"
                            (get-text-property 0 'help-echo (aref (cadr row) 0))))
    ;; Queued counts as at work: the view counts its time.
    (should (gemini-ls--agent-busy-p queued))
    (let* ((done (gemini-ls-test--background-agent
                  "done" :pullRequest gemini-ls-test--pull :endedAt "2026-11-29T09:04:00Z"
                  :worktree gemini-ls-test--bg-worktree
                  :files [(:path "main.go" :status "modified" :added 12 :removed 2)]))
           (row (gemini-ls--agent-entry done now)))
      (should (equal (car row) "background:bg-1001"))
      (should (equal (mapcar #'substring-no-properties (cadr row))
                     '("Add a --verbose flag" "done" "4m 00s" "" "1 file +12 −2"
                       "GitHub: run, PR #7")))
      (should (equal (gemini-ls-test--buttons (aref (cadr row) 5))
                     '(("run" . "https://github.com/ada/proj/actions/runs/1001")
                       ("PR #7" . "https://github.com/ada/proj/pull/7"))))
      (should (equal (gemini-ls--agent-news nil done)
                     "Gemini: the agent “add-a-verbose-flag-3f9a” is done (1 file +12 −2); M-x gemini-ls-agents to review it")))
    ;; Done on GitHub, its worktree not fetched yet: its pull request named.
    (should (equal (gemini-ls--agent-news
                    queued (gemini-ls-test--background-agent "done" :pullRequest gemini-ls-test--pull))
                   "Gemini: the agent “Add a --verbose flag” is done on GitHub: pull request #7; M-x gemini-ls-agents to review it"))
    ;; Before GitHub made its run: GitHub, and no link.
    (let* ((agent (gemini-ls-test--background-agent "queued"))
           (background (copy-sequence (plist-get agent :background)))
           (where (progn (cl-remf background :runUrl)
                         (cl-remf background :runId)
                         (aref (cadr (gemini-ls--agent-entry
                                      (plist-put agent :background background) now))
                               5))))
      (should (equal where "GitHub"))
      (should-not (gemini-ls-test--buttons where)))
    ;; A local agent's row has nothing in the column.
    (should (equal (aref (cadr (gemini-ls--agent-entry (gemini-ls-test--agent "x" "done") now)) 5) ""))))

(ert-deftest gemini-ls-test-background-commands ()
  "`gemini-ls-background' and the view's keys for a background agent.
It sends `gemini/delegate' with the task (and a base) and no token, and
shows the agent the server answers in the view; an error shows the
server's sentence.  `gemini/agent' moves its row in place; f sends
`gemini/followUpAgent', w and RET and its buttons open its pull request
or run; l and M wait for its worktree, then land it by its worktree's
name; D discards it by its id; k cannot stop it."
  (gemini-ls-test--with-server [] '(("a.txt" . "x\n"))
    (let (sent answers failures said opened)
      (cl-letf (((symbol-function 'jsonrpc-async-request)
                 (lambda (_conn method params &rest args)
                   (push (cons method params) sent)
                   (let ((answer (alist-get method answers))
                         (failure (alist-get method failures)))
                     (cond (failure (funcall (plist-get args :error-fn) failure))
                           (answer (funcall (plist-get args :success-fn) answer))))))
                ((symbol-function 'yes-or-no-p) (lambda (_) t))
                (gemini-ls-browse-url-function (lambda (url) (push url opened))))
        (gemini-ls-test--messages said
          ;; Refused: the server's sentence.
          (setq failures '((:gemini/delegate
                            . (:code -32803 :message "No GitHub token: run gh auth login, or set GITHUB_TOKEN."))))
          (with-current-buffer buf (gemini-ls-background "Add a --verbose flag"))
          (should (equal (pop sent) '(:gemini/delegate :prompt "Add a --verbose flag")))
          (should (equal (car said) "Gemini: the background agent did not start: No GitHub token: run gh auth login, or set GITHUB_TOKEN."))
          (should-not (gemini-ls--server-agents server))
          (should-error (with-current-buffer buf (gemini-ls-background "  ")) :type 'user-error)
          ;; Taken: the view lists it at once.
          (setq failures nil
                answers `((:gemini/delegate . ,(gemini-ls-test--background-agent "queued"))))
          (with-current-buffer buf (gemini-ls-background "Add a --verbose flag" " release "))
          ;; The view shows, asking the server for its agents.
          (should (equal (car (pop sent)) :gemini/agents))
          (should (equal (pop sent) '(:gemini/delegate :prompt "Add a --verbose flag" :base "release")))
          (should (string-match-p "Add a --verbose flag +queued +[0-9hms ]+ +GitHub: run"
                                  (gemini-ls-test--agents-view)))
          (should (string-match-p "\\`Gemini: the agent “Add a --verbose flag” is queued on GitHub"
                                  (car said)))
          ;; The server's notifications move the row in place.
          (apply #'eglot-handle-notification server 'gemini/agent
                 (gemini-ls-test--background-agent "working"))
          (should (= (length (gemini-ls--server-agents server)) 1))
          (should (string-match-p "Add a --verbose flag +working" (gemini-ls-test--agents-view)))
          (with-current-buffer "*gemini agents*"
            (goto-char (point-min))
            (should (equal (tabulated-list-get-id) "background:bg-1001"))
            ;; At work on GitHub: no stop, no landing, no worktree yet.
            (should-error (gemini-ls-agents-stop) :type 'user-error)
            (should-error (gemini-ls-agents-land) :type 'user-error)
            ;; No pull request yet: w opens the run.
            (gemini-ls-agents-browse)
            (should (equal (pop opened) "https://github.com/ada/proj/actions/runs/1001"))
            (apply #'eglot-handle-notification server 'gemini/agent
                   (gemini-ls-test--background-agent "done" :pullRequest gemini-ls-test--pull))
            (should (string-match-p "Add a --verbose flag +done .*GitHub: run, PR #7"
                                    (gemini-ls-test--agents-view)))
            (should (string-match-p "is done on GitHub: pull request #7" (car said)))
            (goto-char (point-min))
            ;; Done, its branch not fetched yet: nothing to land.
            (should-error (gemini-ls-agents-land) :type 'user-error)
            (should-error (gemini-ls-agents-merge) :type 'user-error)
            (should-not (assq :gemini/landAgent sent))
            (gemini-ls-agents-browse)
            (should (equal (pop opened) "https://github.com/ada/proj/pull/7"))
            (gemini-ls-agents-open)
            (should (equal (pop opened) "https://github.com/ada/proj/pull/7"))
            ;; The row's buttons.
            (search-forward "PR #7")
            (push-button (match-beginning 0))
            (should (equal (pop opened) "https://github.com/ada/proj/pull/7"))
            (goto-char (point-min))
            (search-forward "GitHub: run")
            (push-button (- (point) 1))
            (should (equal (pop opened) "https://github.com/ada/proj/actions/runs/1001"))
            ;; Its work fetched into a local worktree: the same keys as a
            ;; local agent's, by the worktree's name.
            (apply #'eglot-handle-notification server 'gemini/agent
                   (gemini-ls-test--background-agent
                    "done" :pullRequest gemini-ls-test--pull :worktree gemini-ls-test--bg-worktree
                    :files [(:path "main.go" :status "modified" :added 12 :removed 2)]))
            (should (string-match-p "Add a --verbose flag +done .*1 file \\+12 −2 +GitHub: run, PR #7"
                                    (gemini-ls-test--agents-view)))
            (goto-char (point-min))
            (goto-char (point-min))
            (gemini-ls-agents-land)
            (should (equal (pop sent) '(:gemini/landAgent :worktree "add-a-verbose-flag-3f9a" :how "review")))
            (gemini-ls-agents-merge)
            (should (equal (pop sent) '(:gemini/landAgent :worktree "add-a-verbose-flag-3f9a" :how "merge")))
            ;; Its run's session came back with it: RET opens its chat.
            (apply #'eglot-handle-notification server 'gemini/agent
                   (gemini-ls-test--background-agent
                    "done" :sessionId "S-RUN" :pullRequest gemini-ls-test--pull :worktree gemini-ls-test--bg-worktree
                    :files [(:path "main.go" :status "modified" :added 12 :removed 2)]))
            (goto-char (point-min))
            (let (resumed)
              (cl-letf (((symbol-function 'gemini-ls-resume) (lambda (id title _server) (setq resumed (list id title))))
                        ((symbol-function 'pop-to-buffer) #'ignore))
                (gemini-ls-agents-open))
              (should (equal resumed '("S-RUN" "Add a --verbose flag"))))
            (should-not opened)
            ;; A follow-up: to its id, and the agent the server answers.
            (setq answers `((:gemini/followUpAgent . ,(gemini-ls-test--background-agent
                                                       "queued" :pullRequest gemini-ls-test--pull
                                                       :worktree gemini-ls-test--bg-worktree))))
            (gemini-ls-agents-follow-up "Also document the flag in README.md")
            (should (equal (pop sent) '(:gemini/followUpAgent :id "bg-1001"
                                                              :prompt "Also document the flag in README.md")))
            (should (string-match-p "Add a --verbose flag +queued" (gemini-ls-test--agents-view)))
            (should (string-match-p "follow-up; it runs again on GitHub" (car said)))
            ;; Refused: the server's sentence.
            (setq answers nil
                  failures '((:gemini/followUpAgent
                              . (:code -32803 :message "The agent is still queued; wait for its run to end."))))
            (gemini-ls-agents-follow-up "And the changelog")
            (should (equal (car (pop sent)) :gemini/followUpAgent))
            (should (string-match-p "did not take the follow-up: The agent is still queued; wait for its run to end\\.\\'"
                                    (car said)))
            (should-error (gemini-ls-agents-follow-up " ") :type 'user-error)
            (setq failures nil answers '((:gemini/discardAgent . (:discarded t))))
            (gemini-ls-agents-discard)
            (should (equal (pop sent) '(:gemini/discardAgent :id "bg-1001")))
            (should (string-match-p "its pull request stays on GitHub" (car said)))
            ;; A local agent has no follow-up nor links here.
            (apply #'eglot-handle-notification server 'gemini/agent
                   (gemini-ls-test--agent "alpha" "done"))
            (goto-char (gemini-ls--agents-row "S-alpha"))
            (should-error (gemini-ls-agents-follow-up "more") :type 'user-error)
            (should-error (gemini-ls-agents-browse) :type 'user-error)
            (should-not sent)
            (should-not opened)
            (kill-buffer)))))))
