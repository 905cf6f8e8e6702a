// Package lsp is gemini-ls's Language Server Protocol front end: framing
// that survives malformed input, capability negotiation, text document
// synchronisation into workspace overlays, the gemini/* custom methods and
// the gemini.prompt command, and the strategies that turn a proposed file
// change into a confirmed workspace/applyEdit for what each client can do.
//
// The protocol layer is thin: handlers decode params, call into agent,
// tools and workspace, and encode results. Protocol v1 is documented in
// docs/protocol.md.
package lsp
