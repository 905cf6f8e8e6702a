// Package conversation is the layer every front end (LSP, ACP, headless)
// drives a conversation through, between them and the agent. It owns,
// once:
//
//   - the running prompts (Turns): one per session at a time, and the
//     cancel that ends it, whatever front end asked;
//   - how a turn ended, in words (Headline, Explanation);
//   - a saved session as a replayable sequence of agent events (Replay),
//     which LSP's gemini/resumeSession and ACP's session/load both show;
//   - finding a saved session to continue (Resume);
//   - the commands: Commands lists them (conversation/builtin's built-ins,
//     then the user's: custom commands read under the one trust decision,
//     MCP servers' prompts), and a prompt "/name args" runs a built-in or
//     sends the prompt one of the user's commands expands to (Turn.Run).
//
// A front end decodes its protocol's message, calls this package and
// encodes the answer; it keeps only what its protocol alone needs (LSP's
// progress tokens, ACP's tool-call contents).
//
// It sits between the front ends and setup: cmd → lsp, acp →
// conversation → setup → agent → tools → workspace.
//
// Invariants:
//   - A session runs one prompt at a time. A prompt for a session whose
//     prompt is running is refused with an *agent.BusyError, unless that
//     prompt was cancelled: then the new one waits for it to end, so that
//     "cancel and send again" (ACP's clients do it in one step) never
//     meets a busy session.
//   - A Turn ends at its first End (later calls do nothing), which
//     cancels what it still runs and frees the session; Cancel only asks
//     it to stop.
//   - Replay shows a prompt as the user typed it (the transcript's text,
//     never the files or editor state the model was sent with it), the
//     model's text and each call with its result; exchanges a compression
//     summarised away are shown from the transcript alone.
package conversation
