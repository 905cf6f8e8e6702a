// Package lsp is gemini-ls's Language Server Protocol front end: framing
// that survives malformed input, capability negotiation, text document
// synchronisation into workspace overlays, the gemini/* custom methods and
// the gemini.prompt command, and the strategies that turn a proposed file
// change into a confirmed workspace/applyEdit for what each client can do.
//
// Proposed edits take turns (queue.go): one proposal at a time talks to
// the user, and a proposal waits only for the outcome of the one ahead of
// it (applied, declined, failed, its prompt cancelled, the connection
// gone), never for a message that may not come. An edit taken as applied
// on the editor's word before its didChange leaves its turn at once; a
// later change to that document prepared from the text gemini-ls still has
// is answered stale at once, not shown against text the editor no longer
// holds.
//
// The protocol layer is thin: handlers decode params, call into agent,
// tools and workspace, and encode results. Protocol v1 is documented in
// docs/protocol.md.
package lsp
