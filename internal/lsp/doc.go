// Package lsp is gemini-ls's Language Server Protocol front end: framing
// that survives malformed input, capability negotiation, text document
// synchronisation into workspace overlays, the gemini/* custom methods and
// the gemini.prompt command, and the strategies that turn a proposed file
// change into a confirmed workspace/applyEdit for what each client can do.
//
// Framing (stream.go) holds no more than the client sent: a header line is
// at most the reader's 64 KiB buffer, and a body is read as it arrives up
// to its Content-Length (at most maxFrame), never allocated from the
// number alone. A body that is not JSON-RPC is answered with an error and
// skipped; a header that cannot be framed ends the stream.
//
// Proposed edits take turns (queue.go): one proposal at a time talks to
// the user, and a proposal waits only for the outcome of the one ahead of
// it (applied, declined, failed, its prompt cancelled, the connection
// gone), never for a message that may not come. An edit taken as applied
// on the editor's word before its didChange leaves its turn at once; a
// later change to that document prepared from the text gemini-ls still has
// is answered stale at once, not shown against text the editor no longer
// holds. A rewind's revert and an edit call's change across files (a
// rename; revert.go) take one such turn for all their files: ONE
// workspace/applyEdit, confirmed as a whole, and an edit call only where
// the approval service asks. A didChange of a document while an edit of
// it lands (or that brings an edit taken on the editor's word) is the
// agent's, and completion never counts it among the user's recent edits
// (sync.go, agentsChange).
//
// The protocol layer is thin and declared once: methods.go lists every
// method served or sent, with its params and result types, the lifecycle
// phases it runs in and whether it releases the read loop; dispatch
// derives from it, and a test holds docs/protocol.md (protocol v1) to it.
// Handlers take typed params, call into the conversation host, tools and
// workspace (never agent: its words are package dialog's), and
// return typed results.
//
// Prompts run on a conversation host (conversation.Host; presenter.go):
// initialize builds the one agent through it, shared by every session
// (Open and Resume with own false), and keeps its handle
// (conversation.Build), under which the host makes the agent anew after
// a sign-in or a change of the folders' trust (Host.Rebuild);
// gemini/prompt, gemini.prompt and gemini/rewind take the session's turn
// from it (the rewind runs as the claim's, Claim.Rewind), so a busy
// session is refused in the host's one wording, and encode its Outcome
// in LSP's words (answer). Cancels and the
// sessions' list go through it too; the server reads a session's state
// (its mode, its rewind points) but changes none itself.
// Each turn is shown through the view its request makes for it
// (presenter.go): gemini/prompt's sends each event as gemini/update,
// gemini.prompt's shows them in $/progress and the transcript; both put
// the turn's questions alike (presenter: Land, LandFiles, Confirm, Ask,
// AskTrust). Only what the wire needs stays here: each workspace root's
// current gemini.prompt conversation, progress tokens, transcripts.
//
// The server's state is split by concern, each part behind its own lock
// (see Server's fields), held only to read or change that part and never
// across a call out to the client or into another part.
package lsp
