;;; gemini-ls-language.el --- The editor's language servers for the agent  -*- lexical-binding: t; -*-

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

;; `gemini/languageFeature': the agent's code navigation asks the language
;; servers eglot runs in Emacs.

;; A part of the gemini-ls package: gemini-ls.el loads it.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'eglot)
(require 'jsonrpc)
(require 'seq)
(require 'project)
(require 'gemini-ls-server)

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
  :safe #'numberp
  :group 'gemini-ls)

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

(provide 'gemini-ls-language)
;;; gemini-ls-language.el ends here
