;;; gemini-ls-confirm.el --- Questions the agent waits on  -*- lexical-binding: t; -*-

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

;; The `gemini/request' notifications the server waits on, and the
;; confirmations and questions among them.

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

(declare-function gemini-ls--review-end "gemini-ls-review" (how &optional killed))
(declare-function gemini-ls--review-next "gemini-ls-review" ())

;;;; Requests that wait for the user

(cl-defstruct (gemini-ls--request (:constructor gemini-ls--request-create))
  "A `gemini/request' the server waits on."
  server id method params
  ;; The review buffer, once the review is open.
  buffer)

(defun gemini-ls--find-request (server id)
  "The waiting request ID of SERVER."
  (cl-find-if (lambda (r) (and (eq (gemini-ls--request-server r) server)
                               (equal (gemini-ls--request-id r) id)))
              gemini-ls--requests))

(defun gemini-ls--answer (req key value)
  "Answer REQ with KEY (:result or :error) VALUE, unless it was withdrawn."
  (when (memq req gemini-ls--requests)
    (setq gemini-ls--requests (delq req gemini-ls--requests))
    (gemini-ls--status-changed)
    (let ((server (gemini-ls--request-server req)))
      (when (jsonrpc-running-p server)
        (jsonrpc-notify server :gemini/response
                        (list :id (gemini-ls--request-id req) key value))))))

(defun gemini-ls--withdraw (req)
  "Forget REQ without answering it."
  (setq gemini-ls--requests (delq req gemini-ls--requests))
  (gemini-ls--status-changed))

(defconst gemini-ls--waiting-handlers
  ;; Only changes to review come as workspace/applyEdit.
  '(("workspace/applyEdit" . gemini-ls--review-next)
    ("gemini/confirm" . gemini-ls--ask-soon)
    ("gemini/ask" . gemini-ls--ask-soon))
  "The methods a `gemini/request' carries: (METHOD . HANDLER).
HANDLER, called with no argument, takes up the next request waiting.
Another method is answered MethodNotFound.")

(defun gemini-ls--ask-soon ()
  "Ask the next question waiting, from a timer.
So the process filter returns first, and the question does not hold
up the server's other messages."
  (run-at-time 0 nil #'gemini-ls--ask-next))

(cl-defmethod eglot-handle-notification
  ((server gemini-ls-server) (_ (eql gemini/request)) &key id method params
   &allow-other-keys)
  "Take request ID of SERVER, which waits for the user: METHOD with PARAMS.
It is a review or a question.  This returns at once; the answer goes as
`gemini/response' once the user has decided."
  (unless (gemini-ls--find-request server id)
    (let ((req (gemini-ls--request-create :server server :id id
                                          :method method :params params)))
      (setq gemini-ls--requests (append gemini-ls--requests (list req)))
      (gemini-ls--status-changed)
      (let ((handler (alist-get method gemini-ls--waiting-handlers nil nil #'equal)))
        (if handler
            (funcall handler)
          (gemini-ls--answer
           req :error
           (list :code -32601
                 :message (format "gemini-ls.el cannot handle %s" method))))))))

(cl-defmethod eglot-handle-notification
  ((server gemini-ls-server) (_ (eql gemini/cancelRequest)) &key id
   &allow-other-keys)
  "SERVER no longer waits for request ID: close its review or question."
  (let ((req (gemini-ls--find-request server id)))
    (when req
      (gemini-ls--withdraw req)
      (let ((buf (gemini-ls--request-buffer req)))
        (when (buffer-live-p buf)
          (with-current-buffer buf (gemini-ls--review-end 'withdrawn))))
      (when (eq gemini-ls--asking req)
        ;; Not from the process filter: a throw would leave the messages
        ;; after this one unread until the server writes again.
        (run-at-time 0 nil #'gemini-ls--interrupt req)))))

;;;; Confirmations

(defun gemini-ls--confirm (params)
  "Ask whether the tool call of PARAMS may run; return the result."
  (list :outcome (gemini-ls--confirm-outcome params)))

(defconst gemini-ls--confirm-choices
  '((?y "allow once" "Run it this time")
    (?a "always allow" "Allow such commands for this session")
    (?n "reject" "Do not run it"))
  "The answers to a `gemini/confirm' question.")

(defconst gemini-ls--rewind-choices
  '((?r "revert anyway" "Discard the changes made since the agent's too")
    (?k "keep my changes" "Leave the file as it is"))
  "The answers to a rewind's conflict.
A file changed since the agent's change is reverted anyway or kept;
\"always\" means nothing there.")

(defun gemini-ls--with-prefix-choice (choices prefixes)
  "CHOICES with the narrower \"always\" of PREFIXES before the last.
PREFIXES, a vector of the server's (\"go test\"), are the line's
prefixes; allowed, a later line of them runs unasked, each of its
commands still judged.  None: CHOICES as they are."
  (if (not (and (vectorp prefixes) (> (length prefixes) 0)))
      choices
    (let ((label (concat "always allow "
                         (mapconcat #'identity prefixes " …, ") " …")))
      (append (butlast choices)
              (list (list ?p label "Allow the lines of this prefix for this session"))
              (last choices)))))

(defun gemini-ls--confirm-outcome (params)
  "Ask whether the tool call of PARAMS may run; return the outcome."
  (condition-case nil
      ;; Timers run with quitting inhibited; C-g should reject.
      (let* ((inhibit-quit nil)
             (choice (read-multiple-choice
                      (format "%s%s %s" (gemini-ls--asker params)
                              (or (plist-get params :title) "Allow?")
                              (or (plist-get params :details) ""))
                      (cond ((equal (plist-get params :kind) "rewind")
                             gemini-ls--rewind-choices)
                            ;; "Always" only where it would hold: not
                            ;; for a command it cannot cover.
                            ((eq (plist-get params :canAllowAlways) t)
                             (gemini-ls--with-prefix-choice
                              gemini-ls--confirm-choices
                              (plist-get params :alwaysPrefixes)))
                            (t (assq-delete-all
                                ?a (copy-sequence gemini-ls--confirm-choices)))))))
        (pcase (car choice)
          ((or ?y ?r) "proceed_once")
          (?a "proceed_always")
          (?p "proceed_always_prefix")
          (_ "cancel")))
    (quit "cancel")))

(defconst gemini-ls--decline "Decline"
  "The choice that dismisses a question of the model's.")

(defun gemini-ls--dismissal (params)
  "The choice that dismisses the question PARAMS: (LABEL . WHAT-IT-DOES).
\"Decline\", as the server's text calls it; what it does, which ? shows
beside what each option does, is said for the folder trust question in
the server's words, so that it does not read as \"Don't trust\": it
remembers nothing, and the question comes again."
  (cons gemini-ls--decline
        (if (equal (plist-get params :kind) "trust")
            "Answer nothing, remember nothing: the folder stays restricted for now, and you are asked again the next time gemini-ls starts"
          "Answer nothing")))

(defun gemini-ls--question-prompt (params)
  "The minibuffer prompt of the `gemini/ask' question PARAMS.
A plan to approve is not put in it whole: the server has the plan's
file shown (`window/showDocument') before it asks."
  (let ((title (plist-get params :title)))
    (format "%s%s%s%s "
            (gemini-ls--asker params)
            (if (string-empty-p (or title "")) "" (concat title ": "))
            (if (equal (plist-get params :kind) "plan_approval")
                "approve the plan shown? (or type what to change)"
              (or (plist-get params :text) ""))
            (cond ((eq t (plist-get params :multiple)) " (several, comma-separated)")
                  (t "")))))

(defun gemini-ls--question-answer (params picks)
  "The `gemini/ask' result of PICKS, the strings read for PARAMS.
A pick naming an option chooses it; any other is the user's own words
\(read only where the question takes them).  \"Decline\" declines, and
so does nothing at all, except where several options may be chosen:
there nothing is an answer, as Gemini CLI's \"Done\" with none ticked
is, and the model is told the user answered nothing."
  (let* ((labels (mapcar (lambda (o) (cons (plist-get o :label) (plist-get o :id)))
                         (plist-get params :options)))
         (picks (cl-remove-if #'string-empty-p (mapcar #'string-trim picks)))
         (chosen (delq nil (mapcar (lambda (p) (cdr (assoc p labels))) picks)))
         (words (cl-remove-if (lambda (p) (assoc p labels)) picks)))
    (if (or (member (car (gemini-ls--dismissal params)) picks)
            (and (null picks) (not (eq t (plist-get params :multiple)))))
        (list :declined t)
      (append (list :chosen (vconcat chosen) :declined :json-false)
              (and words (list :text (string-join words ", ")))))))

(defun gemini-ls--read-choice (prompt options dismissal)
  "Read one of OPTIONS, at most 8, or DISMISSAL's, shown after PROMPT.
DISMISSAL is the choice that answers nothing, (LABEL . WHAT-IT-DOES).
The options are numbered, as Gemini CLI numbers a question's choices,
and a digit picks one; ? shows what each means.  Return the label
picked."
  (let* ((labels (append (mapcar (lambda (o) (plist-get o :label)) options)
                         (list (car dismissal))))
         (descriptions (append (mapcar (lambda (o) (plist-get o :description)) options)
                               (list (cdr dismissal))))
         (choices (cl-loop for label in labels
                           for description in descriptions
                           for key from ?1
                           collect (list key label (or description ""))))
         ;; Room for a question of several lines and its choices after it.
         (max-mini-window-height (max max-mini-window-height 0.5)))
    ;; After a question of several lines, the choices start a line of
    ;; their own, not the end of the last one, wrapped.
    (setq prompt (string-trim-right prompt))
    (nth 1 (read-multiple-choice (if (string-search "\n" prompt) (concat prompt "\n") prompt)
                                 choices))))

(defun gemini-ls--question (params)
  "Put the model's question PARAMS (`gemini/ask') to the user.
Return the result; \\[keyboard-quit] or the dismissal declines
\(`gemini-ls--dismissal')."
  (let* ((options (plist-get params :options))
         (free (eq t (plist-get params :freeText)))
         (prompt (gemini-ls--question-prompt params))
         (dismissal (gemini-ls--dismissal params))
         (table (append (mapcar (lambda (o) (plist-get o :label)) options)
                        (list (car dismissal))))
         (descriptions (mapcar (lambda (o) (cons (plist-get o :label)
                                                 (plist-get o :description)))
                               options))
         ;; The minibuffer keeps the options' order and shows what each
         ;; means beside it; the labels alone are read, as a description
         ;; may hold the commas that separate several picks.
         (collection
          (lambda (str pred action)
            (if (eq action 'metadata)
                `(metadata (display-sort-function . identity)
                           (annotation-function
                            . ,(lambda (label)
                                 (let ((d (cdr (assoc label descriptions))))
                                   (if (string-empty-p (or d "")) ""
                                     (concat " — " d))))))
              (complete-with-action action table str pred)))))
    (condition-case nil
        (let ((inhibit-quit nil))
          (gemini-ls--question-answer
           params
           (cond ((and (seq-empty-p options) free) (list (read-string prompt)))
                 ;; One of a few options and nothing else (the folder
                 ;; trust question): offered on screen, as Gemini CLI
                 ;; lists them, a digit each.
                 ((and (not (or free (eq t (plist-get params :multiple))))
                       (< (length options) 9))
                  (list (gemini-ls--read-choice prompt options dismissal)))
                 ((eq t (plist-get params :multiple))
                  (completing-read-multiple prompt collection nil (not free)))
                 (t (list (completing-read prompt collection nil (not free)))))))
      (quit (list :declined t)))))

(defun gemini-ls--ask-next ()
  "Ask the oldest waiting question, unless a question is on screen."
  (let ((req (cl-find-if (lambda (m) (member m '("gemini/confirm" "gemini/ask")))
                         gemini-ls--requests :key #'gemini-ls--request-method)))
    (when (and req (not gemini-ls--asking))
      (let ((result
             (unwind-protect
                 (progn
                   (setq gemini-ls--asking req)
                   (gemini-ls--status-changed)
                   (catch req
                     (funcall (if (equal (gemini-ls--request-method req) "gemini/ask")
                                  #'gemini-ls--question
                                #'gemini-ls--confirm)
                              (gemini-ls--request-params req))))
               (setq gemini-ls--asking nil)
               (gemini-ls--status-changed))))
        (when result
          (when (equal (gemini-ls--request-method req) "gemini/ask")
            (gemini-ls--record-answer (gemini-ls--request-params req) result))
          (gemini-ls--answer req :result result)))
      (run-at-time 0 nil #'gemini-ls--ask-next))))

(defun gemini-ls--answer-words (params result)
  "RESULT, the answer to the question PARAMS, as the chat records it.
The options chosen, by their labels, then the user's own words; or
that the user dismissed the question, or answered nothing."
  (if (eq (plist-get result :declined) t)
      (if (equal (plist-get params :kind) "trust")
          "not answered: asked again when gemini-ls starts again"
        "dismissed")
    (let* ((labels (mapcar (lambda (o) (cons (plist-get o :id) (plist-get o :label)))
                           (plist-get params :options)))
           (text (plist-get result :text))
           (parts (append (mapcar (lambda (id) (cdr (assoc id labels)))
                                  (plist-get result :chosen))
                          (and (stringp text) (not (string-empty-p text)) (list text)))))
      (if parts (string-join parts ", ") "nothing"))))

(defun gemini-ls--question-line (call-id)
  "The marker of the status of CALL-ID's line in the chat, or nil.
A subagent's call is found by its own id too, the newest first."
  (cdr (cl-find-if (lambda (entry)
                     (or (equal (car entry) call-id)
                         (string-suffix-p (concat "/" call-id) (car entry))))
                   gemini-ls--tool-lines)))

(defun gemini-ls--record-answer (params result)
  "Record in the chat the user's RESULT to the question PARAMS.
Under the line of the call that asked, which shows the question, as
Gemini CLI records it: \"Database → SQLite\"; a question no call
asked (the folder trust question) is recorded with its text.  An
agent's question is not, unless the chat shows its session: its
answer goes with its session, which the chat shows when opened."
  (unless (gemini-ls--elsewhere-p (plist-get params :sessionId))
    (gemini-ls--record-answer-in-chat params result)))

(defun gemini-ls--record-answer-in-chat (params result)
  "Record in the chat the user's RESULT to the question PARAMS."
  (let* ((title (plist-get params :title))
         (answer (gemini-ls--answer-words params result))
         (line (concat (if (string-empty-p (or title "")) "" (concat title " "))
                       "→ " answer)))
    (gemini-ls--with-chat
      (let ((status (and (plist-get params :callId)
                         (gemini-ls--question-line (plist-get params :callId)))))
        (if (not status)
            (progn (gemini-ls--fresh-line)
                   (gemini-ls--insert-styled
                    (format "> %s → %s\n" (string-trim (or (plist-get params :text) title ""))
                            answer)
                    'gemini-ls-user))
          (goto-char status)
          (let ((indent (+ 2 (current-indentation)))
                (at nil))
            (forward-line 1)
            ;; After the answers recorded already: the call's questions in order.
            (while (get-text-property (point) 'gemini-ls-answer) (forward-line 1))
            (setq at (point))
            (gemini-ls--insert-styled (concat (make-string indent ?\s) line) 'gemini-ls-user)
            (insert "\n")
            (put-text-property at (point) 'gemini-ls-answer t)
            ;; A subagent's block whose end this was goes on after it.
            (dolist (block gemini-ls--subagents)
              (when (= (cadr block) at) (set-marker (cadr block) (point))))))))))

(defun gemini-ls--interrupt (req)
  "Take the question of REQ, withdrawn by the server, off the screen."
  (when (eq gemini-ls--asking req)
    ;; Anything that runs while the question waits runs inside it.
    (throw req nil)))

(provide 'gemini-ls-confirm)
;;; gemini-ls-confirm.el ends here
