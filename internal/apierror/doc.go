// Package apierror says a failed model request in one sentence a person
// can act on: what went wrong and what to do about it (gemini-ls login,
// the variable or settings key to change, /model, the region), in place
// of the SDK's dump of the API's google.rpc.Status ("Error 400, Message:
// …, Details: [map[@type:…]]") or its advice to call ListModels, a method
// no user can call.
//
// Explain classifies an error of the Gemini API (a genai.APIError, which
// both backends and Code Assist return), a connection that could not be
// made or that broke before the answer came, or a prompt or answer the
// safety filters stopped, into a Kind,
// and returns an *Error whose Error() is the sentence; the error it
// explains stays beneath it (Unwrap), for errors.As and for the log
// file, which records the raw error (Raw). An error of no known kind is
// returned as it is.
//
// The agent explains the errors that end a turn, and the requests a
// front end makes of the model directly (an edit of a selection), once,
// so every front end shows the same sentence: headless on stderr and in
// its JSON result, the editors in window/showMessage and the transcript,
// ACP in the prompt's error.
//
// Invariants:
//   - A sentence never holds the SDK's formatting ("map[", "Details: [")
//     nor "ListModels".
//   - Explain is idempotent: an *Error is returned as it is.
//   - Kind.String is the kind's word on every wire (errorKind), a closed
//     set (Kinds) editors choose their fix from: a word, once sent, keeps
//     its meaning.
//   - A key the editor keeps (Context.EditorKey) is named as the
//     editor's, never as GEMINI_API_KEY, which the user did not set.
//   - The kinds are read from the status code, the google.rpc details
//     (ErrorInfo reasons, QuotaFailure, RetryInfo) and, where the API
//     gives nothing else, its message; never from the SDK's wording.
package apierror
