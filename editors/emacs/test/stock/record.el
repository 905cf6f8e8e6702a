;;; record.el --- read fakegemini's --record file, for stock-eglot.sh  -*- lexical-binding: t -*-
;; emacs --batch -Q -l record.el -f stock-record FILE N WHAT
;; N counts the generate requests from 1. WHAT:
;;   response  the function responses in request N's last content, as JSON
;;   text      every text part of request N, one per line
;; (Emacs parses the JSON: the chroots the tests run in have no jq.)

(defun stock-record ()
  (let* ((file (pop command-line-args-left))
         (n (string-to-number (pop command-line-args-left)))
         (what (pop command-line-args-left))
         (requests
          (with-temp-buffer
            (insert-file-contents file)
            (let (out)
              (dolist (line (split-string (buffer-string) "\n" t))
                (let ((r (json-parse-string line :object-type 'alist
                                            :array-type 'list)))
                  (when (string-match-p "enerateContent" (alist-get 'method r))
                    (push r out))))
              (nreverse out))))
         (request (nth (1- n) requests))
         (contents (alist-get 'contents (alist-get 'body request))))
    (unless request (error "no request %d in %s" n file))
    (pcase what
      ("response"
       (dolist (part (alist-get 'parts (car (last contents))))
         (when-let ((fr (alist-get 'functionResponse part)))
           (princ (json-serialize (alist-get 'response fr)))
           (terpri))))
      ("text"
       (dolist (c contents)
         (dolist (part (alist-get 'parts c))
           (when-let ((text (alist-get 'text part)))
             (princ text)
             (terpri)))))
      (_ (error "WHAT is response or text, not %s" what)))))
