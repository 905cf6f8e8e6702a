// Package dialog is the vocabulary the agent and its front ends speak
// through the conversation host: what a prompt takes (Input, the
// editor's context), what a turn emits (Event: a closed set of kinds,
// each a struct of only its own fields, Kinds one of each, which a front
// end switches on; the subagent an event is of travels beside it), what
// it asks of the user (ConfirmRequest, AskRequest, LandRequest,
// LandFilesRequest) and what the user answered, the one port a front end
// makes for each turn and hands with the call that starts it (Port:
// Show, Land, LandFiles, Confirm, Ask), how it
// ended (PromptResult, StopReason: the agent's words, which a front end
// reads as conversation's Outcome), what a session shows of itself
// (SessionInfo, Stats, rewind points), and the ports a front end
// implements for the tools (the editor's diagnostics, its terminal), so
// that it implements them without importing the tools.
//
// Invariants:
//   - It holds data and the plain methods of that data; it runs nothing,
//     asks nobody and touches no file. Behaviour lives in agent, and a
//     front end reaches it only through conversation.
//   - It imports no package of gemini-ls above tools, so every layer from
//     agent up, the front ends included, can use it without depending on
//     the agent.
//   - The json tags of the events' and questions' types are their names
//     in LSP's wire (docs/protocol.md), whose types embed them: every
//     field has one, "-" for what is not sent (lsp's
//     TestEveryWireFieldIsNamed).
package dialog
