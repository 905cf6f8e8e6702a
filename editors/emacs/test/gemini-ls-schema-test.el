;;; gemini-ls-schema-test.el --- The package held to the wire schema  -*- lexical-binding: t; -*-

;; Run by run.sh after gemini-ls-test.el, whose server it borrows.  The
;; schema is the repository's docs/protocol.schema.json, generated from
;; the server's Go types (go generate .): the package must handle every
;; kind of update it lists and no other, show each kind's example, ask
;; every kind of confirmation, and register no method it lacks.  Each
;; check is a function returning its findings, so that the tests can
;; also show it finding a fault in a copy of the schema or the package.

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'gemini-ls)

(defconst gemini-ls-schema-test--file
  (expand-file-name "../../../docs/protocol.schema.json"
                    (file-name-directory (or load-file-name buffer-file-name)))
  "The wire schema, in the repository.")

(defun gemini-ls-schema-test--read ()
  "The schema, parsed: objects as plists, arrays as vectors, as on the wire."
  (with-temp-buffer
    (insert-file-contents gemini-ls-schema-test--file)
    (json-parse-buffer :object-type 'plist :false-object :json-false
                       :null-object nil)))

(defun gemini-ls-schema-test--def (schema name)
  "The definition NAME (a string) of SCHEMA's $defs."
  (plist-get (plist-get schema :$defs) (intern (concat ":" name))))

(defun gemini-ls-schema-test--updates (schema)
  "SCHEMA's update kinds: ((KIND . EXAMPLE)...), from $defs.Update.oneOf.
EXAMPLE is the kind's examples[0], a `gemini/update' params object."
  (mapcar (lambda (ref)
            (let* ((name (car (last (split-string (plist-get ref :$ref) "/"))))
                   (def (gemini-ls-schema-test--def schema name)))
              (cons (plist-get (plist-get (plist-get def :properties) :kind) :const)
                    (aref (plist-get def :examples) 0))))
          (plist-get (gemini-ls-schema-test--def schema "Update") :oneOf)))

(defun gemini-ls-schema-test--kind-errors (kinds handlers)
  "What is wrong between the schema's update KINDS and the HANDLERS table.
A kind without a handler, a handler of no kind, a handler that is not
a function."
  (append
   (cl-loop for kind in kinds
            unless (assoc kind handlers)
            collect (format "no handler for the kind %s" kind))
   (cl-loop for (kind . handler) in handlers
            unless (member kind kinds)
            collect (format "a handler for %s, a kind the schema lacks" kind)
            unless (functionp handler)
            collect (format "the handler of %s, %s, is no function" kind handler))))

(defun gemini-ls-schema-test--quiet-kinds ()
  "The kinds that only change a status or a cache, showing nothing."
  '("usage" "model" "commands"))

(defun gemini-ls-schema-test--example-errors (server examples)
  "Feed each of EXAMPLES ((KIND . PARAMS)...) to SERVER's update entry point.
What went wrong: an error, or nothing shown for a kind that shows."
  (cl-loop
   for (kind . params) in examples
   for before = (with-current-buffer (gemini-ls--chat-buffer)
                  (buffer-substring-no-properties (point-min) gemini-ls--output-end))
   for err = (condition-case err
                 (progn (apply #'eglot-handle-notification server 'gemini/update params)
                        nil)
               (error (error-message-string err)))
   for after = (with-current-buffer (gemini-ls--chat-buffer)
                 (buffer-substring-no-properties (point-min) gemini-ls--output-end))
   if err collect (format "%s: %s" kind err)
   else if (and (not (member kind (gemini-ls-schema-test--quiet-kinds)))
                (equal before after))
   collect (format "%s: nothing shown in the chat" kind)))

(defun gemini-ls-schema-test--method-names ()
  "The methods the package handles: its `eglot-handle-*' methods.
Those specialized on the server class and an (eql METHOD), and those a
`gemini/request' carries (`gemini-ls--waiting-handlers')."
  (append
   (mapcar #'car gemini-ls--waiting-handlers)
   (cl-loop
   for generic in '(eglot-handle-notification eglot-handle-request)
   append (cl-loop
           for method in (cl--generic-method-table (cl--generic generic))
           for specializers = (cl--generic-method-specializers method)
           for eql = (cadr specializers)
           when (and (eq (car specializers) 'gemini-ls-server)
                     (eq (car-safe eql) 'eql))
           collect (let ((name (car (last eql))))
                     (symbol-name (if (eq (car-safe name) 'quote) (cadr name) name)))))))

(defun gemini-ls-schema-test--method-errors (schema names)
  "The method NAMES that SCHEMA's x-methods lack as server-to-client ones."
  (let ((methods (plist-get schema :x-methods)))
    (cl-loop for name in names
             for method = (plist-get methods (intern (concat ":" name)))
             unless (member (plist-get method :direction) '("server-to-client" "both"))
             collect (format "%s is no server-to-client method of the schema" name))))

(defun gemini-ls-schema-test--confirm-errors (kinds)
  "Ask a `gemini/confirm' of each of KINDS; what went wrong.
An error, an empty question, or no choice to answer with."
  (cl-loop
   for kind in kinds
   for asked = nil
   for outcome = (condition-case err
                     (cl-letf (((symbol-function 'read-multiple-choice)
                                (lambda (prompt choices &rest _)
                                  (setq asked (cons prompt choices))
                                  (car choices))))
                       (plist-get (gemini-ls--confirm
                                   (list :sessionId "S1" :callId "c1" :kind kind
                                         :title (format "Allow the %s call?" kind)
                                         :details "details" :canAllowAlways t))
                                  :outcome))
                   (error (format "error: %s" (error-message-string err))))
   unless (and asked (not (string-empty-p (string-trim (car asked))))
               (cdr asked)
               (member outcome '("proceed_once" "proceed_always" "cancel")))
   collect (format "%s: asked %S, answered %S" kind asked outcome)))

(defun gemini-ls-schema-test--confirm-kinds (schema)
  "The confirmation kinds of SCHEMA: $defs.ConfirmParams.properties.kind.enum."
  (append (plist-get (plist-get (plist-get (gemini-ls-schema-test--def schema "ConfirmParams")
                                           :properties)
                                :kind)
                     :enum)
          nil))

(ert-deftest gemini-ls-schema-test-update-kinds ()
  "Every update kind of the schema has a handler, and no other kind has.
A kind added to the schema, or a handler taken away, is found."
  (let ((kinds (mapcar #'car (gemini-ls-schema-test--updates (gemini-ls-schema-test--read)))))
    (should (member "topic" kinds))
    (should (equal (gemini-ls-schema-test--kind-errors kinds gemini-ls--update-handlers) nil))
    (should (equal (gemini-ls-schema-test--kind-errors (cons "newKind" kinds)
                                                       gemini-ls--update-handlers)
                   '("no handler for the kind newKind")))
    (should (equal (gemini-ls-schema-test--kind-errors
                    kinds (assoc-delete-all "topic" (copy-sequence gemini-ls--update-handlers)))
                   '("no handler for the kind topic")))
    (should (equal (gemini-ls-schema-test--kind-errors
                    (remove "commands" kinds) gemini-ls--update-handlers)
                   '("a handler for commands, a kind the schema lacks")))))

(ert-deftest gemini-ls-schema-test-update-examples ()
  "Each kind's example, sent as `gemini/update', is handled and shows.
A topic shows its title, its summary (a new topic) and the intent; a
commands update drops the cached `gemini/commands' list; a handler that
shows nothing is found."
  (gemini-ls-test--with-server [] '(("a.txt" . "x\n"))
    (let* ((examples (gemini-ls-schema-test--updates (gemini-ls-schema-test--read)))
           (topic (alist-get "topic" examples nil nil #'equal))
           (gemini-ls--commands-cache (cons server (cons (current-time) '((:name "stale"))))))
      (should (equal (gemini-ls-schema-test--example-errors server examples) nil))
      (let ((chat (gemini-ls-test--chat)))
        (should (string-match-p
                 (concat "^> Topic: " (regexp-quote (plist-get topic :title)) "\n"
                         "> " (regexp-quote (plist-get topic :text)) "\n"
                         "> Now: " (regexp-quote (plist-get topic :intent)) "$")
                 chat)))
      (should (null gemini-ls--commands-cache))
      ;; Not a new topic: the title and the intent, no summary.
      (let ((gemini-ls--last-kind nil))
        (apply #'eglot-handle-notification server 'gemini/update
               (plist-put (plist-put (copy-sequence topic) :newTopic :json-false)
                          :text "not shown")))
      (should-not (string-match-p "not shown" (gemini-ls-test--chat)))
      (let ((gemini-ls--update-handlers
             (cons '("topic" . ignore) gemini-ls--update-handlers)))
        (should (equal (gemini-ls-schema-test--example-errors
                        server (list (cons "topic" topic)))
                       '("topic: nothing shown in the chat")))))))

(ert-deftest gemini-ls-schema-test-confirm-kinds ()
  "Every confirmation kind of the schema is asked, with a question.
A confirmation that fails to ask is found."
  (let ((kinds (gemini-ls-schema-test--confirm-kinds (gemini-ls-schema-test--read))))
    (should (member "execute" kinds))
    (should (equal (gemini-ls-schema-test--confirm-errors kinds) nil))
    (cl-letf (((symbol-function 'gemini-ls--confirm-outcome) (lambda (_) (error "Broken"))))
      (should (equal (length (gemini-ls-schema-test--confirm-errors kinds)) (length kinds))))))

(ert-deftest gemini-ls-schema-test-methods ()
  "Every method the package handles is a server-to-client one of the schema.
A stale method name is found."
  (let ((schema (gemini-ls-schema-test--read))
        (names (gemini-ls-schema-test--method-names)))
    (should (member "gemini/update" names))
    (should (member "gemini/request" names))
    (should (member "gemini/confirm" names))
    (should (equal (gemini-ls-schema-test--method-errors schema names) nil))
    (should (equal (gemini-ls-schema-test--method-errors schema (cons "gemini/stale" names))
                   '("gemini/stale is no server-to-client method of the schema")))
    ;; A client-to-server method handled as if the server sent it.
    (should (equal (gemini-ls-schema-test--method-errors schema '("gemini/prompt"))
                   '("gemini/prompt is no server-to-client method of the schema")))))

;;; gemini-ls-schema-test.el ends here
