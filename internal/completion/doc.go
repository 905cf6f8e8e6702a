// Package completion completes code as the user types and predicts the
// user's next edit, from the editor's unsaved buffers, for any front end
// that serves textDocument/inlineCompletion (the LSP).
//
// A completion request (Engine.Complete) goes through these steps, each
// of which may end it without a model call:
//   - settings: inlineCompletion off, or off for the document's language;
//   - privacy (private.go): a file that must not leave the machine (.env,
//     key files, the workspace's ignored files, the settings' excludes)
//     is never completed, and never lends a snippet to another's request;
//   - the typing-through cache (cache.go): the user typing the first
//     characters of the suggestion last given for the document gets the
//     rest of it; then the LRU of recent answers by context;
//   - scheduling (flight.go): a new request for a document cancels the one
//     before it, which aborts its upstream stream at once; no more than
//     two are in flight per document (the superseded one unwinding); a
//     request the editor made as the user typed waits the debounce first;
//   - the model call (model.go), streamed, cut short when the answer is
//     all that can be used (one line mid-line);
//   - post-processing (clean.go): fences and echoes off, the overlap with
//     what follows the cursor trimmed, one line mid-line, no closing
//     bracket nothing opened, nothing that only repeats what is there;
//   - staleness: an answer for a document that changed while it was asked
//     is dropped, never given.
//
// The prompt (prompt.go) is a fill-in-the-middle request: a prefix and a
// suffix window cut at line boundaries, the user's recent edits
// (history.go, from the didChanges the front end passes to Changed: not
// the agent's own edits landing), snippets of related open buffers,
// the editor's diagnostics near the cursor and a short GEMINI.md.
//
// Next edit suggestions (nextedit.go) give the model the recent edits and
// the file (of a long one, the part around the cursor and the lines
// elsewhere that mention what the user changed); it answers each change
// it foresees, anywhere in the file, as a search/replace block (blocks.go).
// The change the user reaches first from the cursor is answered as
// minimal range edits; the others are kept (prediction.go) and answered
// one by one as the user takes them, with no model call.
//
// Invariants:
//   - Nothing of a private file is ever in a request.
//   - A suggestion is given only for the document version it was made
//     from.
//   - Every lock guards one concern (the backend, the history, the cache,
//     the flights, the counts) and none is held across a model call.
package completion
