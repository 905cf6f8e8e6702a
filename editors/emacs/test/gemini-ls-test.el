;;; gemini-ls-test.el --- ERT tests for gemini-ls.el  -*- lexical-binding: t; -*-

;; Run by run.sh: the real gemini-ls binary (GEMINI_LS_BIN) against the
;; fake Gemini API (FAKEGEMINI_BIN), one fake per test with its own script.

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'gemini-ls)

(defvar gemini-ls-test--timeout 30 "Seconds a test waits for the server.")

(defvar gemini-ls-test--api-key "test"
  "GEMINI_API_KEY for the server; nil leaves it unset.")

(defun gemini-ls-test--wait (pred what)
  "Wait until PRED is non-nil, or fail naming WHAT."
  (let ((deadline (+ (float-time) gemini-ls-test--timeout)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred) (ert-fail (format "timed out waiting for %s" what)))))

(defun gemini-ls-test--start-fake (script)
  "Start fakegemini with SCRIPT (a Lisp value encoded as JSON).
Return (PROCESS . URL)."
  (let* ((file (make-temp-file "gemini-script" nil ".json"
                               (json-encode script)))
         (buf (generate-new-buffer " *fakegemini*"))
         (proc (make-process :name "fakegemini" :buffer buf
                             :command (list (getenv "FAKEGEMINI_BIN")
                                            "--script" file)
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
          (eglot-sync-connect t)
          (eglot-autoshutdown nil)
          (inhibit-message t)
          (server nil)
          (buf nil))
     (unwind-protect
         (progn
           (dolist (f ,files)
             (with-temp-file (expand-file-name (car f) dir) (insert (cdr f))))
           (setq buf (find-file-noselect (expand-file-name (car (car ,files)) dir)))
           (with-current-buffer buf
             (apply #'eglot (eglot--guess-contact))
             (setq server (eglot-current-server)))
           (should (cl-typep server 'gemini-ls-server))
           (when (get-buffer "*gemini*") (kill-buffer "*gemini*"))
           ,@body)
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
  "The chat's text."
  (with-current-buffer "*gemini*" (buffer-substring-no-properties (point-min) (point-max))))

(defun gemini-ls-test--file (dir name)
  "Contents of file NAME in DIR, on disk."
  (with-temp-buffer (insert-file-contents (expand-file-name name dir)) (buffer-string)))

(defun gemini-ls-test--edit-script (args)
  "A script that calls replace with ARGS, then says Done."
  (vector `((chunks . [((text . "Editing.\n"))
                       ((call . ((name . "replace") (args . ,args))))]))
          '((text . "Done."))))

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
      ;; The thought's text is folded away.
      (goto-char (point-min))
      (search-forward "I look at the file")
      (should (eq (get-text-property (match-beginning 0) 'invisible)
                  'gemini-ls-thought))
      (should (invisible-p (match-beginning 0)))
      (should gemini-ls--session-id))))

(ert-deftest gemini-ls-test-edit-accepted ()
  "An accepted change reaches the file on disk; the tool line says ok."
  (gemini-ls-test--with-server
      (gemini-ls-test--edit-script '((file_path . "a.txt")
                                     (old_string . "world")
                                     (new_string . "Emacs")))
      '(("a.txt" . "hello world\n"))
    (let ((gemini-ls-review-decide-function
           (lambda ()
             ;; The real buffer holds the proposal during the review.
             (should (equal (with-current-buffer buf (buffer-string))
                            "hello Emacs\n"))
             (should (string-match-p "^--- a/a.txt$" (buffer-string)))
             (should (string-match-p "^-hello world$" (buffer-string)))
             (should (string-match-p "^\\+hello Emacs$" (buffer-string)))
             (gemini-ls-review-accept-all))))
      (gemini-ls-test--prompt buf "greet Emacs"))
    (should (equal (gemini-ls-test--file dir "a.txt") "hello Emacs\n"))
    (should (string-match-p "- Edit a.txt \\[ok\\]" (gemini-ls-test--chat)))
    (should (string-match-p "Done\\." (gemini-ls-test--chat)))))

(ert-deftest gemini-ls-test-edit-rejected ()
  "A rejected change leaves the file and the buffer unchanged."
  (gemini-ls-test--with-server
      (gemini-ls-test--edit-script '((file_path . "a.txt")
                                     (old_string . "world")
                                     (new_string . "Emacs")))
      '(("a.txt" . "hello world\n"))
    (let ((gemini-ls-review-decide-function #'gemini-ls-review-reject-all))
      (gemini-ls-test--prompt buf "greet Emacs"))
    (should (equal (gemini-ls-test--file dir "a.txt") "hello world\n"))
    (should (equal (with-current-buffer buf (buffer-string)) "hello world\n"))
    (should-not (buffer-modified-p buf))
    (should (string-match-p "- Edit a.txt \\[rejected\\]" (gemini-ls-test--chat)))))

(defun gemini-ls-test--new-file-script ()
  "A script that writes notes/new.md, then says Done."
  (vector '((chunks . [((call . ((name . "write_file")
                                  (args . ((file_path . "notes/new.md")
                                           (content . "# New\n"))))))]))
          '((text . "Done."))))

(ert-deftest gemini-ls-test-new-file-accepted ()
  "An accepted new file is created on disk."
  (gemini-ls-test--with-server (gemini-ls-test--new-file-script)
      '(("a.txt" . "x\n"))
    (let ((gemini-ls-review-decide-function #'gemini-ls-review-accept-all))
      (gemini-ls-test--prompt buf "write notes"))
    (should (equal (gemini-ls-test--file dir "notes/new.md") "# New\n"))
    (should (string-match-p "\\[ok\\]" (gemini-ls-test--chat)))))

(ert-deftest gemini-ls-test-new-file-rejected ()
  "A rejected new file is not created, and its buffer is gone."
  (gemini-ls-test--with-server (gemini-ls-test--new-file-script)
      '(("a.txt" . "x\n"))
    (let ((gemini-ls-review-decide-function #'gemini-ls-review-reject-all))
      (gemini-ls-test--prompt buf "write notes"))
    (should-not (file-exists-p (expand-file-name "notes/new.md" dir)))
    (should-not (find-buffer-visiting (expand-file-name "notes/new.md" dir)))
    (should (string-match-p "\\[rejected\\]" (gemini-ls-test--chat)))))

(ert-deftest gemini-ls-test-edit-partially-accepted ()
  "Rejecting one hunk reverts it; the other hunk reaches the disk."
  (let* ((lines (mapcar (lambda (i) (format "line %d" i)) (number-sequence 1 20)))
         (old (concat (mapconcat #'identity lines "\n") "\n"))
         (two (replace-regexp-in-string "^line 2$" "LINE TWO" old))
         (new (replace-regexp-in-string "^line 18$" "LINE EIGHTEEN" two)))
    (gemini-ls-test--with-server
        (vector `((chunks . [((call . ((name . "write_file")
                                        (args . ((file_path . "a.txt")
                                                 (content . ,new))))))]))
                '((text . "Done.")))
        `(("a.txt" . ,old))
      (let ((gemini-ls-review-decide-function
             (lambda ()
               (should (= 2 (how-many "^@@ " (point-min) (point-max))))
               ;; Point starts on the first hunk: accept it, reject the second.
               (gemini-ls-review-accept-hunk)
               (should (looking-at "^@@ -15,"))
               (gemini-ls-review-reject-hunk)
               (should (string-match-p "\\[rejected\\]" (buffer-string)))
               (gemini-ls-review-finish))))
        (gemini-ls-test--prompt buf "shout two lines"))
      (let ((disk (gemini-ls-test--file dir "a.txt")))
        (should (string-match-p "^LINE TWO$" disk))
        (should (string-match-p "^line 18$" disk))
        (should-not (string-match-p "EIGHTEEN" disk))
        (should (equal disk two))))))

(ert-deftest gemini-ls-test-shell-confirmed ()
  "Allowing a shell command once runs it in the project."
  (gemini-ls-test--with-server
      (vector '((chunks . [((call . ((name . "run_shell_command")
                                      (args . ((command . "touch marker"))))))]))
              '((text . "Ran it.")))
      '(("a.txt" . "x\n"))
    (let ((asked nil))
      (cl-letf (((symbol-function 'read-multiple-choice)
                 (lambda (prompt choices &rest _)
                   (setq asked prompt)
                   (assq ?y choices))))
        (gemini-ls-test--prompt buf "make a marker"))
      (should (string-match-p "touch marker" asked))
      (should (file-exists-p (expand-file-name "marker" dir)))
      (should (string-match-p "\\[ok\\]" (gemini-ls-test--chat))))))

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
      (should (string-match-p "gemini/prompt failed: .*GEMINI_API_KEY"
                              (gemini-ls-test--chat))))))

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
                 (lambda (_prompt choices &rest _)
                   (car (cl-find-if (lambda (c) (string-prefix-p "what is this" (car c)))
                                    choices)))))
        (with-current-buffer buf (gemini-ls-sessions)))
      (should (equal first (buffer-local-value 'gemini-ls--session-id
                                               (get-buffer "*gemini*")))))))

(ert-deftest gemini-ls-test-merge ()
  "Merging keeps the original where hunks are rejected."
  (let* ((old "a\nb\nc\n")
         (hunks (gemini-ls--parse-hunks (gemini-ls--diff old "a\nB\nc\nd\n" "f"))))
    (should (equal (gemini-ls--merge old hunks) "a\nB\nc\nd\n"))
    (dolist (h hunks) (plist-put h :decision 'rejected))
    (should (equal (gemini-ls--merge old hunks) old))))

(provide 'gemini-ls-test)
;;; gemini-ls-test.el ends here
